package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/exec"
	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/refusal"
	"github.com/stockade/stockade/sandbox"
	"mvdan.cc/sh/v3/syntax"
)

// Exit statuses of `stockade run` besides the command's own.
const (
	exitTimeout = 124 // the command ran out of time
	exitFailed  = 125 // stockade failed, or could not enforce what is required
	exitDenied  = 126 // the policy denied the command, or it needs an approval CI cannot give
)

// runResult is the --json output: the MCP result's fields, plus what was enforced.
type runResult struct {
	Stdout      *exec.Output     `json:"stdout,omitempty"`
	Stderr      *exec.Output     `json:"stderr,omitempty"`
	ExitCode    int              `json:"exit_code"`
	Signal      string           `json:"signal,omitempty"`
	TimedOut    bool             `json:"timed_out"`
	Cwd         string           `json:"cwd"`
	DurationMs  int64            `json:"duration_ms"`
	Leftovers   int              `json:"leftovers_stopped,omitempty"`
	Decision    *policy.Decision `json:"decision,omitempty"`
	Enforcement *degrade.Report  `json:"enforcement,omitempty"`
	Applied     *sandbox.Applied `json:"applied,omitempty"`
	Notes       []string         `json:"notes,omitempty"` // what the sandbox refused, and how to allow it
	Error       string           `json:"error,omitempty"`
}

func cmdRun(args []string, io stdio) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.err)
	var sf sandboxFlags
	sf.register(fs)
	script := fs.String("c", "", "run this shell script (with bash, else sh) instead of CMD ARGS")
	timeout := fs.Duration("timeout", 0, "stop the command after this long, e.g. 10m (default: no limit); exit status 124")
	limit := fs.Int("limit", exec.DefaultLimit, "with --json: characters of each stream kept in the result")
	verbose := fs.Bool("v", false, "log what stockade does (secrets removed from the environment, ...) to stderr")
	asJSON := fs.Bool("json", false, "print one JSON result object on stdout at the end; the command's output streams to stderr")
	fs.Usage = func() {
		fmt.Fprintln(io.err, "usage: stockade run [flags] -- CMD [ARGS...]\n       stockade run [flags] -c 'SCRIPT'\n\nflags:")
		fs.PrintDefaults()
	}
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: level})))
	argv := fs.Args()
	if (*script == "") == (len(argv) == 0) {
		return fail(io.err, errors.New("give either a command after -- or a script with -c"), "stockade run -- go test ./...", "stockade run -c 'make && make test'")
	}
	shell := exec.DetectShell()
	analysed := *script
	if *script != "" {
		argv = []string{shell.Path, "-c", *script}
	} else {
		analysed = quoteArgv(argv)
	}

	// The sandboxed child starts now and waits for its command, so its
	// start-up overlaps the policy work below; it runs nothing unless allowed.
	var stdoutCap, stderrCap *exec.Capture
	var stdout, stderr = io.out, io.err
	tmpdir, err := os.MkdirTemp("", "stockade-run-")
	if err != nil {
		printError(io.err, err)
		return exitFailed
	}
	defer os.RemoveAll(tmpdir)
	if *asJSON {
		// The output still streams live (to stderr) while it is kept for the result.
		live := func(p []byte) { io.err.Write(p) }
		stdoutCap = exec.NewCapture(*limit, exec.TruncateHead, tmpdir, "stdout", live)
		stderrCap = exec.NewCapture(*limit, exec.TruncateHead, tmpdir, "stderr", live)
		stdout, stderr = stdoutCap, stderrCap
	}
	// The end of stderr is kept to explain what the sandbox refused; a
	// terminal is handed to the command as it is (colours, progress bars),
	// and a person reads its errors there.
	stderrTail := &tailBuffer{max: 64 << 10}
	if !isTerminal(stderr) {
		stderr = teeWriter{stderr, stderrTail}
	}
	child, err := exec.StartChild(os.Stdin, stdout, stderr)
	if err != nil {
		printError(io.err, err)
		return exitFailed
	}
	started := false
	defer func() {
		if !started {
			child.Abort()
		}
	}()
	out := runResult{ExitCode: exitFailed}
	finish := func(code int) int {
		if *asJSON {
			enc := json.NewEncoder(io.out)
			enc.SetIndent("", "  ")
			enc.Encode(out)
		}
		return code
	}

	st, err := sf.prepare(tmpdir)
	if err != nil {
		out.Error = err.Error()
		printError(io.err, err)
		var refusal *degrade.Refusal
		if errors.As(err, &refusal) {
			return finish(exitFailed)
		}
		return finish(2)
	}
	out.Enforcement = &st.report
	decision := st.policy.Check(analysed)
	out.Decision = &decision
	switch decision.Verdict {
	case policy.Deny:
		out.Error = "denied by policy: " + decision.Reason
		printError(io.err, fmt.Errorf("denied by policy rule %q: %s", decision.Rule, decision.Reason), offending(decision))
		return finish(exitDenied)
	case policy.Ask:
		if !approvedForSession(analysed) {
			a, asked := askTerminal(decision, analysed)
			switch {
			case !asked:
				out.Error = "approval required: " + decision.Reason
				printError(io.err, fmt.Errorf("rule %q asks for a person's approval, and there is no terminal to ask on: %s", decision.Rule, decision.Reason), offending(decision))
				if advice := st.policy.ApprovalAdvice(analysed); advice != "" {
					fmt.Fprintf(io.err, "%s\n", advice)
				}
				return finish(exitDenied)
			case a == answerNo:
				out.Error = "not approved: " + decision.Reason
				printError(io.err, fmt.Errorf("not approved at the terminal (rule %q: %s); nothing was run", decision.Rule, decision.Reason))
				return finish(exitDenied)
			case a == answerSession:
				if err := approveForSession(analysed); err != nil {
					fmt.Fprintf(io.err, "stockade: warning: the approval is for this run only: %v\n", err)
				}
			}
		}
	}
	if !st.report.Full {
		fmt.Fprintf(io.err, "stockade: warning: best-effort enforcement: %s\n", st.report.Summary())
	}

	// A network namespace of its own, with the egress proxy's listener in
	// it for network = "allowlist".
	var netns *os.File
	if st.spec.NetNS {
		if netns, err = sandbox.NewNetNS(); err != nil {
			out.Error = err.Error()
			printError(io.err, fmt.Errorf("network namespace: %w", err))
			return finish(exitFailed)
		}
		defer netns.Close()
	}
	var egress netproxy.Recorder
	if st.egress != nil && netns != nil {
		ln, err := sandbox.ListenIn(netns, exec.ProxyAddr)
		if err != nil {
			out.Error = err.Error()
			printError(io.err, fmt.Errorf("the egress proxy: %w", err))
			return finish(exitFailed)
		}
		defer ln.Close()
		go st.egress.Serve(ln, egress.Record)
	}
	start := time.Now()

	env := exec.SetEnv(st.env, "TMPDIR", tmpdir)
	req := exec.OnceRequest{Argv: argv, Env: env, Dir: st.workdir, Spec: st.spec, NetNS: netns, Timeout: *timeout}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	started = true
	res, err := child.Run(ctx, req)
	if *asJSON {
		o, e := stdoutCap.Finish(), stderrCap.Finish()
		out.Stdout, out.Stderr = &o, &e
	}
	out.Cwd, out.DurationMs = st.workdir, res.Duration.Milliseconds()
	out.Applied, out.Leftovers = &res.Applied, res.Leftovers
	if err != nil {
		out.Error = err.Error()
		printError(io.err, err)
		return finish(exitFailed)
	}
	out.ExitCode, out.Signal, out.TimedOut = res.ExitCode, res.Signal, res.TimedOut
	// What the proxy refused (network = "allowlist"), then what the sandbox
	// refused, each with what would allow it.
	out.Notes = netproxy.Notes(egress.Since(start))
	if len(out.Notes) == 0 && st.network == "allowlist" {
		if n := netproxy.NoNetworkNote(st.network, res.ExitCode, stderrTail.String()); n != "" {
			out.Notes = append(out.Notes, n)
		}
	}
	out.Notes = append(out.Notes, refusal.Notes(stderrTail.String(), st.workdir, st.spec)...)
	for _, n := range out.Notes {
		fmt.Fprintf(io.err, "stockade: note: %s\n", n)
	}
	if res.TimedOut {
		fmt.Fprintf(io.err, "stockade: error: the command timed out after %s and was stopped\n", *timeout)
		out.ExitCode = exitTimeout
	}
	if res.Leftovers > 0 {
		fmt.Fprintf(io.err, "stockade: stopped %d process(es) the command left running\n", res.Leftovers)
	}
	return finish(out.ExitCode)
}

// quoteArgv renders argv as the shell text the policy judges.
func quoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = q
	}
	return strings.Join(parts, " ")
}

// offending names the invocation that decided, as a hint line.
func offending(d policy.Decision) string {
	if d.Invocation == nil {
		return "run 'stockade check' on the command to see every invocation"
	}
	inv := d.Invocation
	return fmt.Sprintf("offending command at %d:%d: %s", inv.Pos.Line, inv.Pos.Col, strings.TrimSpace(inv.Name+" "+strings.Join(inv.Args, " ")))
}

// tailBuffer keeps (at least) the last max bytes written to it; it trims
// only when it holds twice that, so a long stream costs O(bytes) copying.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return n, nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf[max(0, len(t.buf)-t.max):])
}

// teeWriter writes to w, and a copy to tail.
type teeWriter struct {
	w    interface{ Write([]byte) (int, error) }
	tail *tailBuffer
}

func (t teeWriter) Write(p []byte) (int, error) {
	t.tail.Write(p)
	return t.w.Write(p)
}
