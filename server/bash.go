package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/supervise"
)

func bashTool(description string) mcp.Tool {
	return mcp.NewTool("bash",
		mcp.WithDescription(description),
		mcp.WithString("command", mcp.Required(), mcp.Description("The shell command or script to run (bash syntax).")),
		mcp.WithNumber("timeout", mcp.Description("Timeout in milliseconds (at most 600000). Default: the server's --timeout.")),
		mcp.WithBoolean("run_in_background", mcp.Description("Start the command and return at once with a task_id; read it with task_output, stop it with task_kill.")),
		mcp.WithString("description", mcp.Description("A few words on what the command does, for the log.")),
		mcp.WithString("mode", mcp.Enum("default", "slow", "background"),
			mcp.Description("default: the normal timeout; slow: the longest allowed timeout (10 minutes), for builds and test suites; background: the same as run_in_background.")),
		mcp.WithRawOutputSchema(bashSchema()),
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
	b.WriteString(sandboxSentences(s.opts.Spec, s.opts.Workdir, s.opts.Network, allowEntries(s.opts.Egress)) + " ")
	b.WriteString("When the sandbox refused something, the result's notes say what and how it could be allowed. ")
	b.WriteString("Sandbox on this host: " + s.opts.Report.Summary() + ".")
	return b.String()
}

// allowEntries lists what the proxy allows, and to which commands alone;
// none without a proxy.
func allowEntries(p *netproxy.Proxy) []string {
	if p == nil {
		return nil
	}
	return append(p.Allowlist().Entries(), p.Granted...)
}

// toolError is an isError result whose text starts with the stable code.
func toolError(code, format string, args ...any) *mcp.CallToolResult {
	return mcp.NewToolResultError("[" + code + "] " + fmt.Sprintf(format, args...))
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
			return a, toolError(pipeline.CodeInvalidArgument, "unknown parameter %q; the parameters are command, timeout, run_in_background, description and mode", name)
		}
	}
	cmd, ok := args["command"].(string)
	if _, present := args["command"]; present && !ok {
		return a, toolError(pipeline.CodeInvalidArgument, "command must be a string")
	}
	a.command = cmd
	a.description, _ = args["description"].(string)
	a.timeout = s.opts.Timeout
	timeoutSet := false
	if v, present := args["timeout"]; present && v != nil {
		ms, ok := v.(float64)
		if !ok || ms <= 0 || ms != float64(int64(ms)) {
			return a, toolError(pipeline.CodeInvalidArgument, "timeout must be a positive whole number of milliseconds, such as 30000 (got %v)", v)
		}
		a.timeout = min(time.Duration(ms)*time.Millisecond, MaxTimeout)
		timeoutSet = true
	}
	bgSet := false
	if v, present := args["run_in_background"]; present && v != nil {
		b, ok := v.(bool)
		if !ok {
			return a, toolError(pipeline.CodeInvalidArgument, "run_in_background must be true or false")
		}
		a.background, bgSet = b, true
	}
	if v, present := args["mode"]; present && v != nil {
		mode, _ := v.(string)
		switch mode {
		case "default":
			if a.background {
				return a, toolError(pipeline.CodeInvalidArgument, "mode \"default\" runs in the foreground, but run_in_background is true; drop one of them")
			}
		case "slow":
			if a.background {
				return a, toolError(pipeline.CodeInvalidArgument, "mode \"slow\" runs in the foreground, but run_in_background is true; use mode \"background\" instead")
			}
			if timeoutSet && a.timeout != MaxTimeout {
				return a, toolError(pipeline.CodeInvalidArgument, "mode \"slow\" means the longest timeout (600000 ms), but timeout is %d; drop one of them", a.timeout.Milliseconds())
			}
			a.timeout = MaxTimeout
		case "background":
			if bgSet && !a.background {
				return a, toolError(pipeline.CodeInvalidArgument, "mode \"background\" contradicts run_in_background: false; drop one of them")
			}
			if timeoutSet {
				return a, toolError(pipeline.CodeInvalidArgument, "a background task has no timeout; drop timeout or use mode \"slow\"")
			}
			a.background = true
		default:
			return a, toolError(pipeline.CodeInvalidArgument, "mode must be \"default\", \"slow\" or \"background\" (got %v)", v)
		}
	}
	return a, nil
}

func (s *Server) handleBash(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, bad := s.parseBashArgs(req)
	if bad != nil {
		return bad, nil
	}
	decision, err := s.opts.Judge(pipeline.Command{Script: a.command})
	s.log.Info("bash", "description", a.description, "command", a.command, "decision", decision.Verdict, "rule", decision.Rule, "background", a.background)
	if err == nil && decision.Verdict == policy.Ask {
		err = s.askApproval(ctx, a.command, decision)
	}
	if err != nil {
		r := pipeline.Fail(err, s.currentCwd(ctx))
		if decision.Verdict != "" {
			r.Judged(decision)
		}
		return bashResult(r), nil
	}
	sess, err := s.session(ctx)
	if err != nil {
		return bashResult(pipeline.Fail(err, s.currentCwd(ctx))), nil
	}
	var r pipeline.Result
	started := time.Now()
	// Hosts a rule grants this call alone: the credential is in its
	// environment only, and revoked when it ends.
	env, granted, revoke := s.opts.Grant(pipeline.Command{Script: a.command}, s.grants(ctx))
	if a.background {
		r = s.opts.StartIn(sess, supervise.Request{Script: a.command, Env: env, Ended: revoke})
	} else {
		progress := s.progressSender(ctx, req)
		r = s.opts.RunIn(ctx, sess, supervise.Request{Script: a.command, Timeout: a.timeout, OnOutput: progress.add, Env: env}, pipeline.Advice{
			Timeout:   "; increase timeout, use mode \"slow\", or run it in the background",
			Leftovers: "; use run_in_background: true to keep a process running",
		})
		progress.stop()
		revoke()
	}
	if granted != "" && r.Status != pipeline.Failed {
		r.Notes = append(r.Notes, granted)
	}
	if r.Status == pipeline.Completed {
		r.Notes = append(r.Notes, s.opts.NetworkNotes(s.callEgress(ctx, sess, started), r, "")...)
	}
	r.Judged(decision)
	return bashResult(r), nil
}

// bashResult is the tool result of r: its structuredContent is r, its text
// says the same for clients that show only text, and a result that ran
// nothing is an isError result whose text starts with the stable code.
func bashResult(r pipeline.Result) *mcp.CallToolResult {
	if r.Status == pipeline.Failed {
		res := mcp.NewToolResultStructured(r, "["+r.ErrorCode+"] "+r.Error)
		res.IsError = true
		return res
	}
	return mcp.NewToolResultStructured(r, renderBash(r))
}

// errorResult is the isError result of a tool without structured errors.
func errorResult(err error) *mcp.CallToolResult {
	r := pipeline.Fail(err, "")
	return toolError(r.ErrorCode, "%s", r.Error)
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
		p.buf.WriteString(supervise.CleanText(b[:min(room, len(b))]))
	}
}

func (p *progressSender) stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.stopped.Wait()
}
