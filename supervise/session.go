package supervise

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/stockade/stockade/internal/envlist"
	"github.com/stockade/stockade/sandbox"
)

// Config is what a session is started with.
type Config struct {
	Workdir  string        // the initial cwd, writable in workspace-write mode
	Spec     sandbox.Spec  // what to enforce; Workdir and TmpDir are filled in by the session
	Env      []string      // the initial environment, already scrubbed
	Limit    int           // characters of each stream in a result (default DefaultLimit)
	Truncate Truncation    // which part of a long stream to keep (default TruncateHead)
	MaxTasks int           // running background tasks at most (default 10)
	Grace    time.Duration // between SIGTERM and SIGKILL (default DefaultGrace)
	// State holds the session's private directory (TMPDIR, full outputs,
	// task logs); default DefaultInstance().
	State  *Instance
	Stderr io.Writer // the sandbox child's own diagnostics (default os.Stderr)
	// Shell runs the commands; default DetectShell(): /bin/bash, else /bin/sh.
	Shell Shell
	// preparedIdle overrides how long a prepared shell waits for a call
	// (tests); below zero: no shell is prepared.
	preparedIdle time.Duration
	// Egress serves the allowlist proxy on a listener at ProxyAddr inside the
	// session's network namespace (Spec.NetNS), until the listener is closed;
	// nil: no proxy.
	Egress func(net.Listener)
}

// Session is the state one agent carries between calls: the cwd, the exported
// environment, the sandbox supervisor and the background tasks.
type Session struct {
	cfg     Config
	init    *shellInit
	dir     string // private: tmp/ (TMPDIR), out/ (full outputs and task logs)
	tmp     string
	out     string
	spawner spawner
	devnull *os.File

	mu        sync.Mutex
	protected ProtectedState // the protected paths after the last command
	repos     *RepoWatch
	cwd       string
	env       []string
	tasks     map[string]*task
	nextID    int
	closed    bool

	// The shell prepared for the next command (prepared.go).
	prep         *preparedShell // nil: none ready
	preparing    chan struct{}  // closed when the one on its way is ready or failed; nil: none
	prepWG       sync.WaitGroup
	preparedRuns atomic.Int64 // calls that ran in a prepared shell
}

// Request is one command to run.
type Request struct {
	Script  string
	Timeout time.Duration
	// OnOutput, if set, receives the command's output as it appears
	// ("stdout" or "stderr"); it must not block.
	OnOutput func(stream string, p []byte)
	// Env (NAME=value) is set for this command alone, over the session's
	// environment, and not carried to the next call: a variable the
	// command's shell still holds with this value when it exits is given
	// back its value from before.
	Env []string
	// Ended, if set, is called once a background task that started
	// (Start returned no error) has ended.
	Ended func()
}

// Result is what a foreground command did.
type Result struct {
	Stdout, Stderr Output
	ExitCode       int    // 128+N when killed by signal N; 124 on timeout if it had none
	Signal         string // the signal that ended it, if any
	TimedOut       bool
	Cancelled      bool
	Cwd            string // where the next command starts
	Duration       time.Duration
	Leftovers      int    // processes still running when the shell exited, which were stopped
	CwdReset       string // why the cwd went back to the workdir, if it did
	// ProtectedChanged lists the protected files (git hooks and config, the
	// policy file) that changed since the previous command ended: by this
	// command, or a background task, where the host could not make them
	// read-only.
	ProtectedChanged []string
	// ReposChanged lists what names a program (a hook, a config entry) and
	// appeared or changed since the previous command ended in a repository
	// that is not protected: created since the session started, or nested
	// in the workdir. ReposStopped says where a bound stopped the look.
	ReposChanged []string
	ReposStopped string
}

// NewSession creates the session's private directory and starts its sandbox.
func NewSession(cfg Config) (*Session, error) {
	if cfg.Limit <= 0 {
		cfg.Limit = DefaultLimit
	}
	if cfg.Truncate == "" {
		cfg.Truncate = TruncateHead
	}
	if cfg.MaxTasks <= 0 {
		cfg.MaxTasks = 10
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	workdir, err := filepath.Abs(cfg.Workdir)
	if err != nil {
		return nil, err
	}
	if cfg.State == nil {
		if cfg.State, err = DefaultInstance(); err != nil {
			return nil, err
		}
	}
	dir, err := cfg.State.NewDir("session-")
	if err != nil {
		return nil, fmt.Errorf("session directory: %w", err)
	}
	if cfg.Shell.Path == "" {
		cfg.Shell = DetectShell()
	}
	s := &Session{cfg: cfg, dir: dir, tmp: filepath.Join(dir, "tmp"), out: filepath.Join(dir, "out"),
		cwd: workdir, tasks: map[string]*task{}}
	fail := func(err error) (*Session, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	for _, d := range []string{s.tmp, s.out} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fail(err)
		}
	}
	if s.init, err = newShellInit(dir); err != nil {
		return fail(err)
	}
	if s.devnull, err = os.Open(os.DevNull); err != nil {
		return fail(err)
	}
	s.env = envlist.Set(cfg.Env, "TMPDIR", s.tmp)
	spec := cfg.Spec
	spec.Workdir, spec.TmpDir = workdir, s.tmp
	spec.PrivateRoot, spec.SessionDir = cfg.State.Root, dir
	s.repos = WatchRepos(spec, DefaultRepoBounds, true)
	s.cfg.Spec.Protected, s.cfg.Spec.Workdir = s.repos.Protected(), workdir
	s.protected = SnapshotProtected(s.cfg.Spec.Protected)
	if s.spawner, err = newSpawner(spec, cfg.Stderr, cfg.Egress); err != nil {
		s.devnull.Close()
		s.repos.Close()
		return fail(err)
	}
	s.prepareNext()
	return s, nil
}

// Applied says what the sandbox child really put in force.
func (s *Session) Applied() sandbox.Applied { return s.spawner.applied() }

// Cwd is the directory the next command starts in.
func (s *Session) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// TmpDir is the session's private temporary directory.
func (s *Session) TmpDir() string { return s.tmp }

// Env is the environment the next command starts with.
func (s *Session) Env() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.env)
}

// startDir returns the cwd to start in; a cwd that has disappeared falls back to
// the workdir, and the reason is returned.
func (s *Session) startDir() (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fi, err := os.Stat(s.cwd); err != nil || !fi.IsDir() {
		old := s.cwd
		s.cwd = s.cfg.Spec.Workdir
		if s.cwd == "" {
			s.cwd, _ = filepath.Abs(s.cfg.Workdir)
		}
		return s.cwd, fmt.Sprintf("the previous directory %s no longer exists; started in %s", old, s.cwd)
	}
	return s.cwd, ""
}

// Run runs a command in the foreground and returns when its shell has exited
// and everything it left behind has been stopped.
func (s *Session) Run(ctx context.Context, req Request) (Result, error) {
	if err := s.check(); err != nil {
		return Result{}, err
	}
	start := time.Now()
	dir, reset := s.startDir()
	argv, extra := s.init.argv(s.cfg.Shell, req.Script)
	before := s.Env()
	env := append(withEnv(before, req.Env), extra...)

	var p pipes
	defer p.closeAll()
	cmd, out, prepared := s.runPrepared(req.Script, env, dir)
	if prepared {
		p.readers = out[:]
	} else {
		var err error
		for i := range out {
			if out[i], _, err = p.pipe(); err != nil {
				return Result{}, &Error{ErrSpawn, err.Error()}
			}
		}
		cmd, err = s.spawner.spawn(argv, env, dir, [4]*os.File{s.devnull, p.writers[0], p.writers[1], p.writers[2]})
		p.closeWriters()
		if err != nil {
			return Result{}, &Error{ErrSpawn, fmt.Sprintf("could not start %s: %v", s.cfg.Shell.Path, err)}
		}
	}
	stdoutR, stderrR, reportR := out[0], out[1], out[2]

	outCap := NewCapture(s.cfg.Limit, s.cfg.Truncate, s.out, "stdout", streamTo(req.OnOutput, "stdout"))
	errCap := NewCapture(s.cfg.Limit, s.cfg.Truncate, s.out, "stderr", streamTo(req.OnOutput, "stderr"))
	var report limitedBuffer
	report.max = 4 << 20
	var wg sync.WaitGroup
	copyInto := func(w io.Writer, r *os.File) {
		defer wg.Done()
		copyOutput(w, r)
	}
	wg.Add(3)
	go copyInto(outCap, stdoutR)
	go copyInto(errCap, stderrR)
	go copyInto(&report, reportR)

	timeout := req.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	end := await(ctx, inSession(s, cmd.ID, cmd.Exited), timeout, s.cfg.Grace, sandbox.Exit{Status: int(syscall.SIGKILL)})
	drain(&wg, p.readers, 2*time.Second)

	res := Result{TimedOut: end.timedOut, Cancelled: end.cancelled}
	res.Stdout, res.Stderr = outCap.Finish(), errCap.Finish()
	res.Duration = time.Since(start)
	res.Leftovers = end.exit.Leftovers
	res.CwdReset = reset
	res.ExitCode, res.Signal = exitCode(end.exit.Status, res.TimedOut)
	if end.gone {
		res.ExitCode = -1
		return res, &Error{sandbox.ErrSupervisorGone, "the sandbox supervisor exited while the command ran (it may have been killed by the command); everything it ran was stopped, and the next call starts a new one"}
	}
	res.ReposChanged, res.ReposStopped = s.repos.Changes()
	now := SnapshotProtected(s.cfg.Spec.Protected)
	s.mu.Lock()
	res.ProtectedChanged = ChangedProtected(s.protected, now, s.cfg.Spec.Workdir)
	s.protected = now
	if !res.TimedOut && !res.Cancelled {
		if cwd, env, ok := s.init.parseReport(report.Bytes()); ok {
			s.cwd = cwd
			if env != nil {
				s.env = envlist.Set(withoutCallEnv(env, req.Env, before), "TMPDIR", s.tmp)
			}
		}
	}
	res.Cwd = s.cwd
	s.mu.Unlock()
	s.prepareNext()
	return res, nil
}

// withEnv is env with the NAME=value entries of set over it.
func withEnv(env, set []string) []string {
	for _, kv := range set {
		name, value, _ := strings.Cut(kv, "=")
		env = envlist.Set(env, name, value)
	}
	return env
}

// withoutCallEnv is the environment a call reported (after), less what was
// set for that call alone (set): a variable that still has its per-call value
// gets back its value from before the call, or is removed if it had none.
func withoutCallEnv(after, set, before []string) []string {
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		i := slices.Index(after, kv)
		if i < 0 {
			continue // the command changed or removed it: its own doing
		}
		if j := slices.IndexFunc(before, func(b string) bool { return strings.HasPrefix(b, name+"=") }); j >= 0 {
			after = slices.Clone(after)
			after[i] = before[j]
		} else {
			after = slices.Delete(slices.Clone(after), i, i+1)
		}
	}
	return after
}

// check refuses a call on a closed session. What a command may be (its size,
// the policy) is judged before it gets here, by package pipeline.
func (s *Session) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return &Error{ErrSessionClosed, "the session has ended"}
	}
	return nil
}

// inSession is command id of session s, for supervision.
func inSession[T any](s *Session, id uint64, exited <-chan T) command[T] {
	return command[T]{exited: exited, gone: s.spawner.gone(), signal: func(sig syscall.Signal) { s.spawner.signal(id, sig) }}
}

func streamTo(f func(string, []byte), stream string) func([]byte) {
	if f == nil {
		return nil
	}
	return func(p []byte) { f(stream, p) }
}

// Close stops every task and the sandbox supervisor, and removes the session's
// private directory.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.dropPrepared()
	tasks := make([]*task, 0, len(s.tasks))
	for _, t := range s.tasks {
		tasks = append(tasks, t)
	}
	s.mu.Unlock()
	for _, t := range tasks {
		s.spawner.signal(t.zid, syscall.SIGKILL)
	}
	s.prepWG.Wait() // a shell being prepared is dropped when it is ready
	s.spawner.close()
	for _, t := range tasks {
		<-t.done
	}
	s.devnull.Close()
	s.repos.Close()
	return os.RemoveAll(s.dir)
}

// copyOutput copies r to w until r ends, with a buffer that starts small and
// doubles, up to 256 KiB, each time a read fills it: a command that prints a
// line costs a call 4 KiB, one that streams is read in few system calls.
// (io.Copy would hand an *os.File's copy to its WriteTo, with a fixed 32 KiB
// buffer of its own.)
func copyOutput(w io.Writer, r io.Reader) {
	buf := make([]byte, 4<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
			if n == len(buf) && len(buf) < 256<<10 {
				buf = make([]byte, 2*len(buf))
			}
		}
		if err != nil {
			return
		}
	}
}

// limitedBuffer keeps at most max bytes and drops the rest.
type limitedBuffer struct {
	buf []byte
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *limitedBuffer) Bytes() []byte { return b.buf }

// pipes tracks the pipes of one call so every end is closed exactly once.
type pipes struct {
	readers, writers []*os.File
}

func (p *pipes) pipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	growPipe(r)
	p.readers = append(p.readers, r)
	p.writers = append(p.writers, w)
	return r, w, nil
}

func (p *pipes) closeWriters() {
	for _, w := range p.writers {
		w.Close()
	}
	p.writers = nil
}

// drain waits, at most d, for the copies (counted by wg) out of readers to
// reach end of file; then it stops them. Everything a command started is
// stopped before, so the pipes close; a writer that escaped must not hold the
// caller, though.
func drain(wg *sync.WaitGroup, readers []*os.File, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		for _, r := range readers {
			r.SetReadDeadline(time.Now())
		}
		<-done
		slog.Warn("a process outside the command's tree still held its output; stopped reading")
	}
}

func (p *pipes) closeAll() {
	p.closeWriters()
	for _, r := range p.readers {
		r.Close()
	}
	p.readers = nil
}
