package supervise

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/stockade/stockade/sandbox"
)

// A background task writes stdout and stderr, interleaved as they come, straight
// into a log file of the session (no copy through stockade). When it ends, a
// completion line is appended to the log.

// TaskInfo describes a background task.
type TaskInfo struct {
	ID      string    `json:"task_id"`
	Command string    `json:"command"`
	Pid     int       `json:"pid"`
	Pgid    int       `json:"pgid"`
	LogPath string    `json:"output_file"`
	Started time.Time `json:"started"`
}

// TaskStatus is a task's state and output, as task_output and task_kill return it.
type TaskStatus struct {
	TaskInfo
	Status     string `json:"status"` // running | completed
	Output     Output `json:"output"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Signal     string `json:"signal,omitempty"`
	DurationMs int64  `json:"duration_ms"`
	// ReposChanged and ReposStopped, for a completed task: what the look
	// for repositories that are not protected found when the task's end was
	// reported (as in Result).
	ReposChanged []string `json:"-"`
	ReposStopped string   `json:"-"`
}

type task struct {
	TaskInfo
	zid    uint64
	done   chan struct{} // closed when the task has ended and its log is complete
	ended  time.Time
	onEnd  func() // Request.Ended
	status int
}

// Start runs a command in the background and returns at once.
func (s *Session) Start(req Request) (TaskInfo, error) {
	if err := s.check(); err != nil {
		return TaskInfo{}, err
	}
	s.mu.Lock()
	var running []*task
	for _, t := range s.tasks {
		select {
		case <-t.done:
		default:
			running = append(running, t)
		}
	}
	if len(running) >= s.cfg.MaxTasks {
		s.mu.Unlock()
		return TaskInfo{}, &Error{ErrTaskLimit, taskLimitMessage(s.cfg.MaxTasks, running)}
	}
	s.nextID++
	id := fmt.Sprintf("task-%d", s.nextID)
	s.mu.Unlock()

	dir, _ := s.startDir()
	logPath := filepath.Join(s.out, id+".log")
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_EXCL, 0o600)
	if err != nil {
		return TaskInfo{}, &Error{ErrSpawn, err.Error()}
	}
	defer log.Close()
	argv, extra := s.init.argv(s.cfg.Shell, req.Script)
	// A background task does not report a cwd: its fd 3 goes nowhere.
	cmd, err := s.spawner.spawn(argv, append(withEnv(s.Env(), req.Env), extra...), dir, [4]*os.File{s.devnull, log, log, s.devnull})
	if err != nil {
		return TaskInfo{}, &Error{ErrSpawn, fmt.Sprintf("could not start %s: %v", s.cfg.Shell.Path, err)}
	}
	t := &task{TaskInfo: TaskInfo{ID: id, Command: req.Script, Pid: cmd.Pid, Pgid: cmd.Pid, LogPath: logPath, Started: time.Now()},
		zid: cmd.ID, done: make(chan struct{}), onEnd: req.Ended}
	s.mu.Lock()
	s.tasks[id] = t
	s.mu.Unlock()
	go s.watch(t, cmd.Exited)
	return t.TaskInfo, nil
}

// watch waits for a task to end and appends the completion line to its log.
func (s *Session) watch(t *task, exited <-chan sandbox.Exit) {
	var m sandbox.Exit
	select {
	case m = <-exited:
	case <-s.spawner.gone():
		m.Status = int(syscall.SIGKILL)
	}
	code, sig := decodeStatus(m.Status)
	line := fmt.Sprintf("\n[stockade: %s exited with code %d", t.ID, code)
	if sig != "" {
		line = fmt.Sprintf("\n[stockade: %s was stopped by %s (exit code %d)", t.ID, sig, code)
	}
	line += fmt.Sprintf(" after %s]\n", time.Since(t.Started).Round(time.Millisecond))
	if f, err := os.OpenFile(t.LogPath, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		f.WriteString(line)
		f.Close()
	}
	s.mu.Lock()
	t.status, t.ended = m.Status, time.Now()
	s.mu.Unlock()
	if t.onEnd != nil {
		t.onEnd()
	}
	close(t.done)
}

func taskLimitMessage(max int, running []*task) string {
	slices.SortFunc(running, func(a, b *task) int { return a.Started.Compare(b.Started) })
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d background tasks are running, the most allowed; stop one with task_kill or wait for one to finish:", max)
	for _, t := range running {
		cmd := t.Command
		if len(cmd) > 80 {
			cmd = cmd[:77] + "..."
		}
		fmt.Fprintf(&sb, "\n  %s (running %s): %s", t.ID, time.Since(t.Started).Round(time.Second), strings.ReplaceAll(cmd, "\n", " "))
	}
	return sb.String()
}

func (s *Session) lookup(id string) (*task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[id]
	if !ok {
		ids := make([]string, 0, len(s.tasks))
		for k := range s.tasks {
			ids = append(ids, k)
		}
		slices.Sort(ids)
		known := "there are no background tasks"
		if len(ids) > 0 {
			known = "known tasks: " + strings.Join(ids, ", ")
		}
		return nil, &Error{ErrTaskNotFound, fmt.Sprintf("no task %q (a completed task is forgotten once its output was read); %s", id, known)}
	}
	return t, nil
}

// Output returns a task's state and output so far (the newest part when it is
// long), keeping only lines that match filter if it is not nil. With wait > 0 it
// first waits up to that long for the task to end. A completed task is forgotten
// once its final output has been returned.
func (s *Session) Output(ctx context.Context, id string, filter *regexp.Regexp, wait time.Duration) (TaskStatus, error) {
	t, err := s.lookup(id)
	if err != nil {
		return TaskStatus{}, err
	}
	if wait > 0 {
		timer := time.NewTimer(wait)
		select {
		case <-t.done:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	return s.status(t, filter), nil
}

// Kill stops a task's whole process group (SIGTERM, the grace period, SIGKILL)
// and returns its final output.
func (s *Session) Kill(id string) (TaskStatus, error) {
	t, err := s.lookup(id)
	if err != nil {
		return TaskStatus{}, err
	}
	select {
	case <-t.done:
	default:
		// Waits for done even if the supervisor dies: watch then closes it.
		c := inSession[struct{}](s, t.zid, t.done)
		c.gone = nil
		stop(c, s.cfg.Grace, struct{}{})
	}
	return s.status(t, nil), nil
}

// status reads a task's log; a completed task is removed from the session.
func (s *Session) status(t *task, filter *regexp.Regexp) TaskStatus {
	st := TaskStatus{TaskInfo: t.TaskInfo, Status: "running"}
	completed := false
	select {
	case <-t.done:
		completed = true
	default:
	}
	st.Output = readLog(t.LogPath, s.cfg.Limit, filter)
	if completed {
		st.ReposChanged, st.ReposStopped = s.repos.Changes()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if completed {
		st.Status = "completed"
		code, sig := decodeStatus(t.status)
		st.ExitCode, st.Signal = &code, sig
		st.DurationMs = t.ended.Sub(t.Started).Milliseconds()
		delete(s.tasks, t.ID)
	} else {
		st.DurationMs = time.Since(t.Started).Milliseconds()
	}
	return st
}

// readLog returns the newest limit characters of a task log (of the lines that
// match filter, when given), cleaned like any other output.
func readLog(path string, limit int, filter *regexp.Regexp) Output {
	out := Output{FullPath: path}
	f, err := os.Open(path)
	if err != nil {
		out.Text = "[stockade: the task log could not be read: " + err.Error() + "]"
		return out
	}
	defer f.Close()
	fi, _ := f.Stat()
	out.TotalBytes = fi.Size()
	// Read at most the newest window that can matter.
	window := int64(4 * limit)
	if filter != nil {
		window = 64 << 20
	}
	from := max(0, out.TotalBytes-window)
	data, _ := io.ReadAll(io.NewSectionReader(f, from, out.TotalBytes-from))
	text := CleanText(data)
	if filter != nil {
		var kept []string
		for line := range strings.Lines(text) {
			if filter.MatchString(strings.TrimSuffix(line, "\n")) {
				kept = append(kept, line)
			}
		}
		text = strings.Join(kept, "")
	}
	if n := len([]rune(text)); n > limit || from > 0 {
		out.Truncated = true
		text = fmt.Sprintf("[stockade: showing the newest %d characters; %d bytes in all in %s]\n", limit, out.TotalBytes, path) + lastRunes(text, limit)
	}
	out.Text = text
	return out
}

// Tasks lists the background tasks the session knows.
func (s *Session) Tasks() []TaskInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []TaskInfo
	for _, t := range s.tasks {
		out = append(out, t.TaskInfo)
	}
	slices.SortFunc(out, func(a, b TaskInfo) int { return a.Started.Compare(b.Started) })
	return out
}
