package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/exec"
	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/refusal"
	"github.com/stockade/stockade/sandbox"
)

// BashResult is the structured result of the bash tool.
type BashResult struct {
	Stdout          string          `json:"stdout"`
	Stderr          string          `json:"stderr"`
	ExitCode        int             `json:"exit_code"`
	Signal          string          `json:"signal,omitempty"`
	TimedOut        bool            `json:"timed_out"`
	Cwd             string          `json:"cwd"`
	DurationMs      int64           `json:"duration_ms"`
	StdoutTruncated *Truncation     `json:"stdout_truncated,omitempty"`
	StderrTruncated *Truncation     `json:"stderr_truncated,omitempty"`
	Leftovers       int             `json:"leftovers_stopped,omitempty"`
	Notes           []string        `json:"notes,omitempty"`
	Enforcement     *degrade.Report `json:"enforcement,omitempty"` // present when not everything is enforced
}

// Truncation says how much of a stream was left out, and where all of it is.
type Truncation struct {
	TotalBytes int64  `json:"total_bytes"`
	FullOutput string `json:"full_output_path,omitempty"`
}

// BackgroundResult is the result of bash with run_in_background.
type BackgroundResult struct {
	TaskID      string          `json:"task_id"`
	Pid         int             `json:"pid"`
	Pgid        int             `json:"pgid"`
	OutputFile  string          `json:"output_file"`
	Cwd         string          `json:"cwd"`
	Notes       []string        `json:"notes,omitempty"`
	Enforcement *degrade.Report `json:"enforcement,omitempty"`
}

func bashTool(description string) mcp.Tool {
	return mcp.NewTool("bash",
		mcp.WithDescription(description),
		mcp.WithString("command", mcp.Required(), mcp.Description("The shell command or script to run (bash syntax).")),
		mcp.WithNumber("timeout", mcp.Description("Timeout in milliseconds (at most 600000). Default: the server's --timeout.")),
		mcp.WithBoolean("run_in_background", mcp.Description("Start the command and return at once with a task_id; read it with task_output, stop it with task_kill.")),
		mcp.WithString("description", mcp.Description("A few words on what the command does, for the log.")),
		mcp.WithString("mode", mcp.Enum("default", "slow", "background"),
			mcp.Description("default: the normal timeout; slow: the longest allowed timeout (10 minutes), for builds and test suites; background: the same as run_in_background.")),
		mcp.WithOutputSchema[BashResult](),
		mcp.WithDestructiveHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

// description tells the model where it is, what is enforced and how to use
// background tasks.
func (s *Server) description(cwd string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run a shell command with bash in a sandbox. The current working directory is %s; `cd` and `export` persist between calls. ", cwd)
	fmt.Fprintf(&b, "No TTY: stdin is empty, so commands must not wait for input. Default timeout %s, at most 10 minutes (mode \"slow\"). ", s.opts.Timeout)
	b.WriteString("stdout and stderr are returned separately, each cut at 30000 characters (the full output is saved to a file whose path is given). ")
	b.WriteString("Processes still running when the command's shell exits are stopped: for servers, watchers and anything long-running use run_in_background: true, then task_output (with wait and filter) to read it and task_kill to stop it. ")
	b.WriteString("Each command is checked against a security policy first; a denied command returns [POLICY_DENIED] with the reason. ")
	b.WriteString(sandboxSentences(s.opts.Spec, s.opts.Workdir) + " ")
	b.WriteString(netproxy.Describe(s.opts.Network, s.opts.Spec.NetNS, allowEntries(s.opts.Egress)) + " ")
	b.WriteString("When the sandbox refused something, the result's notes say what and how it could be allowed. ")
	b.WriteString("Sandbox on this host: " + s.opts.Report.Summary() + ".")
	return b.String()
}

// allowEntries lists what the proxy allows; none without a proxy.
func allowEntries(p *netproxy.Proxy) []string {
	if p == nil {
		return nil
	}
	return p.Allowlist().Entries()
}

// toolError is an isError result whose text starts with the stable code.
func toolError(code, format string, args ...any) *mcp.CallToolResult {
	return mcp.NewToolResultError("[" + code + "] " + fmt.Sprintf(format, args...))
}

func errorResult(err error) *mcp.CallToolResult {
	var e *exec.Error
	if errors.As(err, &e) {
		return toolError(e.Code, "%s", e.Msg)
	}
	return toolError("INTERNAL", "%v (this is a bug in stockade; please report it)", err)
}

// bashArgs are the validated arguments of one bash call.
type bashArgs struct {
	command     string
	timeout     time.Duration
	background  bool
	description string
}

func (s *Server) parseBashArgs(req mcp.CallToolRequest) (bashArgs, *mcp.CallToolResult) {
	args := req.GetArguments()
	var a bashArgs
	for name := range args {
		switch name {
		case "command", "timeout", "run_in_background", "description", "mode":
		default:
			return a, toolError("INVALID_ARGUMENT", "unknown parameter %q; the parameters are command, timeout, run_in_background, description and mode", name)
		}
	}
	cmd, ok := args["command"].(string)
	if _, present := args["command"]; present && !ok {
		return a, toolError("INVALID_ARGUMENT", "command must be a string")
	}
	if strings.TrimSpace(cmd) == "" {
		return a, toolError("EMPTY_COMMAND", "the command is empty; pass the shell command to run in `command`")
	}
	a.command = cmd
	a.description, _ = args["description"].(string)
	a.timeout = s.opts.Timeout
	timeoutSet := false
	if v, present := args["timeout"]; present && v != nil {
		ms, ok := v.(float64)
		if !ok || ms <= 0 || ms != float64(int64(ms)) {
			return a, toolError("INVALID_ARGUMENT", "timeout must be a positive whole number of milliseconds, such as 30000 (got %v)", v)
		}
		a.timeout = min(time.Duration(ms)*time.Millisecond, MaxTimeout)
		timeoutSet = true
	}
	bgSet := false
	if v, present := args["run_in_background"]; present && v != nil {
		b, ok := v.(bool)
		if !ok {
			return a, toolError("INVALID_ARGUMENT", "run_in_background must be true or false")
		}
		a.background, bgSet = b, true
	}
	if v, present := args["mode"]; present && v != nil {
		mode, _ := v.(string)
		switch mode {
		case "default":
			if a.background {
				return a, toolError("INVALID_ARGUMENT", "mode \"default\" runs in the foreground, but run_in_background is true; drop one of them")
			}
		case "slow":
			if a.background {
				return a, toolError("INVALID_ARGUMENT", "mode \"slow\" runs in the foreground, but run_in_background is true; use mode \"background\" instead")
			}
			if timeoutSet && a.timeout != MaxTimeout {
				return a, toolError("INVALID_ARGUMENT", "mode \"slow\" means the longest timeout (600000 ms), but timeout is %d; drop one of them", a.timeout.Milliseconds())
			}
			a.timeout = MaxTimeout
		case "background":
			if bgSet && !a.background {
				return a, toolError("INVALID_ARGUMENT", "mode \"background\" contradicts run_in_background: false; drop one of them")
			}
			if timeoutSet {
				return a, toolError("INVALID_ARGUMENT", "a background task has no timeout; drop timeout or use mode \"slow\"")
			}
			a.background = true
		default:
			return a, toolError("INVALID_ARGUMENT", "mode must be \"default\", \"slow\" or \"background\" (got %v)", v)
		}
	}
	return a, nil
}

func (s *Server) handleBash(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, bad := s.parseBashArgs(req)
	if bad != nil {
		return bad, nil
	}
	decision := s.opts.Policy.Check(a.command)
	s.log.Info("bash", "description", a.description, "command", a.command, "decision", decision.Verdict, "rule", decision.Rule, "background", a.background)
	switch decision.Verdict {
	case policy.Deny:
		return toolError("POLICY_DENIED", "%s", denialText(decision)), nil
	case policy.Ask:
		if r := s.askApproval(ctx, a.command, decision); r != nil {
			return r, nil
		}
	}
	sess, err := s.session(ctx)
	if err != nil {
		return errorResult(err), nil
	}
	var enforcement *degrade.Report
	if !s.opts.Report.Full {
		enforcement = &s.opts.Report
	}
	if a.background {
		info, err := sess.Start(exec.Request{Script: a.command})
		if err != nil {
			return errorResult(err), nil
		}
		res := BackgroundResult{TaskID: info.ID, Pid: info.Pid, Pgid: info.Pgid, OutputFile: info.LogPath, Cwd: sess.Cwd(), Enforcement: enforcement,
			Notes: []string{"stdout and stderr go to output_file; read them with task_output, stop the task with task_kill"}}
		return mcp.NewToolResultStructured(res, renderBackground(res)), nil
	}

	startCwd := sess.Cwd()
	progress := s.progressSender(ctx, req)
	started := time.Now()
	res, err := sess.Run(ctx, exec.Request{Script: a.command, Timeout: a.timeout, OnOutput: progress.add})
	progress.stop()
	if err != nil {
		return errorResult(err), nil
	}
	out := BashResult{
		Stdout: res.Stdout.Text, Stderr: res.Stderr.Text, ExitCode: res.ExitCode, Signal: res.Signal,
		TimedOut: res.TimedOut, Cwd: res.Cwd, DurationMs: res.Duration.Milliseconds(), Leftovers: res.Leftovers,
		Enforcement: enforcement,
	}
	out.StdoutTruncated = truncation(res.Stdout)
	out.StderrTruncated = truncation(res.Stderr)
	if res.TimedOut {
		out.Notes = append(out.Notes, fmt.Sprintf("the command timed out after %s and was stopped (SIGTERM to its process group, SIGKILL after the grace period); increase timeout, use mode \"slow\", or run it in the background", a.timeout))
	}
	if res.Leftovers > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d process(es) still running when the shell exited were stopped; use run_in_background: true to keep a process running", res.Leftovers))
	}
	if res.CwdReset != "" {
		out.Notes = append(out.Notes, res.CwdReset)
	}
	if res.Cancelled {
		out.Notes = append(out.Notes, "the call was cancelled by the client and the command was stopped")
	}
	// What the proxy refused; with the network off, the refusal notes
	// below say that the sandbox has no network.
	netNotes := s.egressNotes(ctx, started)
	if len(netNotes) == 0 && s.opts.Network == "allowlist" {
		if n := netproxy.NoNetworkNote(s.opts.Network, res.ExitCode, res.Stderr.Text+res.Stdout.Text); n != "" {
			netNotes = []string{n}
		}
	}
	out.Notes = append(out.Notes, netNotes...)
	out.Notes = append(out.Notes, refusal.Notes(res.Stderr.Text, startCwd, s.sessionSpec(sess))...)
	return mcp.NewToolResultStructured(out, renderBash(out)), nil
}

func truncation(o exec.Output) *Truncation {
	if !o.Truncated {
		return nil
	}
	return &Truncation{TotalBytes: o.TotalBytes, FullOutput: o.FullPath}
}

// denialText names the rule, the reason and the offending invocation.
func denialText(d policy.Decision) string {
	text := fmt.Sprintf("denied by policy rule %q: %s", d.Rule, d.Reason)
	if inv := d.Invocation; inv != nil {
		text += fmt.Sprintf(" (offending command at %d:%d: %s)", inv.Pos.Line, inv.Pos.Col, strings.TrimSpace(inv.Name+" "+strings.Join(inv.Args, " ")))
	}
	return text + ". Nothing was run. Find another way to reach the goal that the policy allows, or ask the user to change the policy."
}

// progressSender batches a command's output into MCP progress notifications,
// at most one every 100 ms, and only if the client asked for progress.
type progressSender struct {
	mu      sync.Mutex
	buf     strings.Builder
	total   int
	done    chan struct{}
	stopped sync.WaitGroup
}

func (s *Server) progressSender(ctx context.Context, req mcp.CallToolRequest) *progressSender {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	token := req.Params.Meta.ProgressToken
	p := &progressSender{done: make(chan struct{})}
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			var final bool
			select {
			case <-tick.C:
			case <-p.done:
				final = true
			}
			p.mu.Lock()
			chunk, total := p.buf.String(), p.total
			p.buf.Reset()
			p.mu.Unlock()
			if chunk != "" {
				s.mcp.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": token, "progress": total, "message": chunk,
				})
			}
			if final {
				return
			}
		}
	}()
	return p
}

// add records output; it never blocks the command for long, and keeps at most
// 64 KiB between two notifications (the rest is in the final result).
func (p *progressSender) add(stream string, b []byte) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total += len(b)
	if room := 64<<10 - p.buf.Len(); room > 0 {
		p.buf.WriteString(exec.CleanText(b[:min(room, len(b))]))
	}
}

func (p *progressSender) stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.stopped.Wait()
}

// sessionSpec is the sandbox of sess, as its commands meet it.
func (s *Server) sessionSpec(sess *exec.Session) sandbox.Spec {
	spec := s.opts.Spec
	spec.Workdir, spec.TmpDir = s.opts.Workdir, sess.TmpDir()
	return spec
}
