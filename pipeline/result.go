package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/refusal"
	"github.com/stockade/stockade/sandbox"
	"github.com/stockade/stockade/supervise"
)

// Result is what one command did: the MCP bash tool's structuredContent and
// the object `stockade run --json` prints, field for field. The jsonschema
// tags are the descriptions of the bash tool's output schema.
type Result struct {
	Status          Status           `json:"status" jsonschema:"completed: the command ran to its end or was stopped (exit_code is set); running: it was started in the background (task_id is set); error: nothing ran, or stockade failed (error_code and error are set)"`
	Stdout          string           `json:"stdout" jsonschema:"the command's standard output, ANSI escapes stripped, invalid UTF-8 replaced; empty for running and error"`
	Stderr          string           `json:"stderr" jsonschema:"the command's standard error, cleaned like stdout"`
	ExitCode        *int             `json:"exit_code,omitempty" jsonschema:"the command's exit status when completed; 128+N when killed by signal N; 124 on timeout if it had none"`
	Signal          string           `json:"signal,omitempty" jsonschema:"the signal that ended the command, if one did"`
	TimedOut        bool             `json:"timed_out" jsonschema:"the command ran out of time and was stopped"`
	Cwd             string           `json:"cwd" jsonschema:"the directory the next command starts in"`
	DurationMs      int64            `json:"duration_ms" jsonschema:"wall time in milliseconds"`
	StdoutTruncated *Truncation      `json:"stdout_truncated,omitempty" jsonschema:"present when stdout was cut"`
	StderrTruncated *Truncation      `json:"stderr_truncated,omitempty" jsonschema:"present when stderr was cut"`
	Leftovers       int              `json:"leftovers_stopped,omitempty" jsonschema:"processes still running when the shell exited, which were stopped (not counted after a timeout, when stockade stops them all)"`
	Notes           []string         `json:"notes,omitempty" jsonschema:"plain-language notes: timeout, leftovers, cwd reset, cancellation, background output, what the sandbox refused and how to allow it"`
	TaskID          string           `json:"task_id,omitempty" jsonschema:"running: the background task, for task_output and task_kill"`
	Pid             int              `json:"pid,omitempty" jsonschema:"running: the task's process id"`
	Pgid            int              `json:"pgid,omitempty" jsonschema:"running: the task's process group"`
	OutputFile      string           `json:"output_file,omitempty" jsonschema:"running: the file the task's stdout and stderr go to"`
	Decision        policy.Verdict   `json:"decision,omitempty" jsonschema:"what the policy decided: allow, ask (and a person approved) or deny"`
	Rule            string           `json:"rule,omitempty" jsonschema:"the policy rule that decided"`
	ErrorCode       string           `json:"error_code,omitempty" jsonschema:"error: a stable code such as POLICY_DENIED or SANDBOX_FAILED"`
	Error           string           `json:"error,omitempty" jsonschema:"error: what went wrong and how to go on"`
	Applied         *sandbox.Applied `json:"applied,omitempty" jsonschema:"what the sandbox put in force for the command (its notes go to the log)"`
	Enforcement     *degrade.Report  `json:"enforcement,omitempty" jsonschema:"present when not everything the policy requires is enforced on this host: what is missing"`
}

// Status says which fields of a Result are set.
type Status string

const (
	Completed Status = "completed"
	Running   Status = "running"
	Failed    Status = "error"
)

// Truncation says how much of a stream was left out, and where all of it is.
type Truncation struct {
	TotalBytes int64  `json:"total_bytes" jsonschema:"the stream's whole length in bytes"`
	FullOutput string `json:"full_output_path,omitempty" jsonschema:"a file that holds the whole stream"`
}

// Advice is what a front-end tells its user to do about a timeout or about
// processes that were stopped when the shell exited; it ends the notes.
type Advice struct {
	Timeout   string
	Leftovers string
}

// Fail is the result of a command that did not run, or of stockade failing;
// err is an *Error, an error of a stage that stageCodes knows, or a bug.
func Fail(err error, cwd string) Result {
	r := Result{Status: Failed, Cwd: cwd}
	r.ErrorCode, r.Error = codeOf(err)
	return r
}

// Judged records the policy's decision in the result.
func (r *Result) Judged(d policy.Decision) {
	r.Decision, r.Rule = d.Verdict, d.Rule
}

// Session is where the MCP bash tool runs its commands.
type Session interface {
	Run(context.Context, supervise.Request) (supervise.Result, error)
	Start(supervise.Request) (supervise.TaskInfo, error)
	Cwd() string
	TmpDir() string
	Applied() sandbox.Applied
}

// RunIn runs a judged command in the foreground of a session.
func (s *Setup) RunIn(ctx context.Context, sess Session, req supervise.Request, adv Advice) Result {
	startCwd := sess.Cwd()
	res, err := sess.Run(ctx, req)
	if err != nil {
		return Fail(err, sess.Cwd())
	}
	r := s.completed(sess.Applied(), res.ExitCode, res.Signal, res.TimedOut, res.Leftovers, res.Duration, req.Timeout, adv)
	r.Cwd = res.Cwd
	r.SetStreams(res.Stdout, res.Stderr)
	if res.CwdReset != "" {
		r.Notes = append(r.Notes, res.CwdReset)
	}
	if res.Cancelled {
		r.Notes = append(r.Notes, "the call was cancelled by the client and the command was stopped")
	}
	spec := s.Spec
	spec.Workdir, spec.TmpDir = s.Workdir, sess.TmpDir()
	r.Notes = append(r.Notes, refusal.Notes(res.Stderr.Text, startCwd, s.refusalSpec(spec))...)
	if len(res.ProtectedChanged) > 0 {
		r.Notes = append(r.Notes, supervise.ProtectedNote(res.ProtectedChanged))
	}
	r.Notes = append(r.Notes, ReposNotes(res.ReposChanged, res.ReposStopped)...)
	return r
}

// ReposNotes are the notes on repositories that are not protected.
func ReposNotes(changed []string, stopped string) []string {
	var notes []string
	if len(changed) > 0 {
		notes = append(notes, supervise.ReposNote(changed))
	}
	if stopped != "" {
		notes = append(notes, supervise.ReposStoppedNote(stopped))
	}
	return notes
}

// StartIn starts a judged command as a background task of a session. If it
// does not start, req.Ended is called at once.
func (s *Setup) StartIn(sess Session, req supervise.Request) Result {
	start := time.Now()
	info, err := sess.Start(req)
	if err != nil {
		if req.Ended != nil {
			req.Ended()
		}
		return Fail(err, sess.Cwd())
	}
	applied := withoutNotes(sess.Applied())
	return Result{Status: Running, TaskID: info.ID, Pid: info.Pid, Pgid: info.Pgid, OutputFile: info.LogPath,
		Cwd: sess.Cwd(), DurationMs: time.Since(start).Milliseconds(), Applied: &applied, Enforcement: s.enforcement(),
		Notes: []string{"stdout and stderr go to output_file; read them with task_output, stop the task with task_kill"}}
}

// RunChild hands a judged command to a child started ahead (stockade run)
// and supervises it to the end. stderr returns (the end of) what the command
// wrote to its stderr, which explains what the sandbox refused. The streams,
// if the front-end kept them, are added with SetStreams.
func (s *Setup) RunChild(ctx context.Context, child *supervise.Child, req supervise.OnceRequest, adv Advice, stderr func() string) Result {
	repos := supervise.WatchRepos(s.Spec, supervise.DefaultRepoBounds, false)
	protected := repos.Protected()
	protectedBefore := supervise.SnapshotProtected(protected)
	res, err := child.Run(ctx, req)
	if err != nil {
		r := Fail(err, s.Workdir)
		r.DurationMs = res.Duration.Milliseconds()
		return r
	}
	slog.Info("sandbox applied", "applied", fmt.Sprintf("%+v", res.Applied))
	r := s.completed(res.Applied, res.ExitCode, res.Signal, res.TimedOut, res.Leftovers, res.Duration, req.Timeout, adv)
	r.Cwd = s.Workdir
	r.Notes = append(r.Notes, refusal.Notes(stderr(), s.Workdir, s.refusalSpec(s.Spec))...)
	if changed := supervise.ChangedProtected(protectedBefore, supervise.SnapshotProtected(protected), s.Workdir); len(changed) > 0 {
		r.Notes = append(r.Notes, supervise.ProtectedNote(changed))
	}
	r.Notes = append(r.Notes, ReposNotes(repos.Changes())...)
	return r
}

func (s *Setup) completed(applied sandbox.Applied, code int, signal string, timedOut bool, leftovers int, took, timeout time.Duration, adv Advice) Result {
	applied = withoutNotes(applied)
	if timedOut {
		// stockade stopped the whole process group itself: what was still
		// there when the shell was gone is what was being stopped (a process
		// may take a moment to die of its SIGTERM), not what the command
		// left behind. Counting it would make the figure a race.
		leftovers = 0
	}
	r := Result{Status: Completed, ExitCode: &code, Signal: signal, TimedOut: timedOut, DurationMs: took.Milliseconds(),
		Leftovers: leftovers, Applied: &applied, Enforcement: s.enforcement()}
	if timedOut {
		r.Notes = append(r.Notes, fmt.Sprintf("the command timed out after %s and was stopped (SIGTERM to its process group, SIGKILL after the grace period)%s", timeout, adv.Timeout))
	}
	if leftovers > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("stopped %d process(es) the command left running when its shell exited%s", leftovers, adv.Leftovers))
	}
	return r
}

// refusalSpec is the spec refusal.Notes judges a command's stderr by: its
// network notes are for network = "off"; what the allowlist refused is said
// by NetworkNotes, which knows the proxy's and the supervisor's side.
func (s *Setup) refusalSpec(spec sandbox.Spec) sandbox.Spec {
	if s.Network == policy.NetworkAllowlist {
		spec.NetworkOff = false
	}
	return spec
}

// enforcement is the report when something the policy requires is missing.
func (s *Setup) enforcement() *degrade.Report {
	if s.Report.Full {
		return nil
	}
	return &s.Report
}

// SetStreams puts the captured output in the result.
func (r *Result) SetStreams(stdout, stderr supervise.Output) {
	r.Stdout, r.StdoutTruncated = stdout.Text, Truncated(stdout)
	r.Stderr, r.StderrTruncated = stderr.Text, Truncated(stderr)
}

// Truncated says how a stream was cut, or nil if it was not.
func Truncated(o supervise.Output) *Truncation {
	if !o.Truncated {
		return nil
	}
	return &Truncation{TotalBytes: o.TotalBytes, FullOutput: o.FullPath}
}

// withoutNotes drops the sandbox's notes (a line per deny-read path) from a
// result, which every call would otherwise repeat; the log has them.
func withoutNotes(a sandbox.Applied) sandbox.Applied {
	a.Notes = ""
	return a
}

// TaskNotes says what the sandbox refused a background task: what its
// output shows (as a foreground call's stderr), and events, the calls of its
// process group that the connect supervisor refused. cwd is where it ran,
// tmpdir the session's TMPDIR.
func (s *Setup) TaskNotes(events []netproxy.Event, output, cwd, tmpdir string) []string {
	spec := s.Spec
	spec.Workdir, spec.TmpDir = s.Workdir, tmpdir
	return append(refusal.Notes(output, cwd, s.refusalSpec(spec)), netproxy.Notes(events)...)
}

// NetworkNotes says what the egress proxy or the connect supervisor refused
// a completed command (events), or else that its output shows it failed for
// want of a network: with network = "allowlist", of a host the list lacks;
// with the network off, where r's notes (the refusal notes) do not say so
// already. stderr is what the front-end kept of the command's stderr
// besides r's own streams.
func (s *Setup) NetworkNotes(events []netproxy.Event, r Result, stderr string) []string {
	if notes := netproxy.Notes(events); len(notes) > 0 || s.Network == policy.NetworkOn || r.ExitCode == nil {
		return notes
	}
	for _, n := range r.Notes {
		if strings.Contains(n, `no network (network = "off")`) {
			return nil
		}
	}
	if n := netproxy.NoNetworkNote(s.Network, *r.ExitCode, r.Stderr+r.Stdout+stderr); n != "" {
		return []string{n}
	}
	return nil
}
