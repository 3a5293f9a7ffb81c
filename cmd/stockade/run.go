package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/internal/envlist"
	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/sandbox"
	"github.com/stockade/stockade/supervise"
)

// Exit statuses of `stockade run` besides the command's own.
const (
	exitTimeout = 124 // the command ran out of time
	exitFailed  = 125 // stockade failed, or could not enforce what is required
	exitDenied  = 126 // the policy denied the command, or it needs an approval CI cannot give
)

const runUsage = `usage: stockade run [flags] -- CMD [ARGS...]
       stockade run [flags] -c 'SCRIPT'

Runs one command under the policy and the sandbox, and exits with its status:
124 when it timed out, 125 when stockade failed or could not enforce what the
policy requires, 126 when the policy denied it, 127 when the command was not
found (126 when it could not be executed).
`

// cmdRun implements `stockade run`.
func cmdRun(args []string, io stdio) int {
	fs := newFlags("run", runUsage)
	var sf sandboxFlags
	sf.register(fs.FlagSet)
	script := fs.String("c", "", "run this shell `SCRIPT` (with bash, else sh) instead of CMD ARGS")
	var timeout timeoutFlag
	fs.Var(&timeout, "timeout", "stop the command after this long: seconds (120) or a `DURATION` (10m); exit status 124 (default: no limit)")
	limit := fs.Int("limit", supervise.DefaultLimit, "with --json: `CHARS` of each stream kept in the result, at least 1")
	verbose := fs.Bool("v", false, "log what stockade does (secrets removed from the environment, ...) to stderr")
	asJSON := fs.Bool("json", false, "print one JSON result object on stdout at the end (the MCP bash tool's result); the command's output streams to stderr")
	if status, ok := fs.parse(args, io); !ok {
		return status
	}
	if *limit < 1 {
		return fail(io.err, fmt.Errorf("--limit %d: must be at least 1", *limit))
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
	command := pipeline.Command{Argv: argv}
	if *script != "" {
		command = pipeline.Command{Script: *script}
		argv = []string{supervise.DetectShell().Path, "-c", *script}
	}

	early := warmUp(sf)
	defer early.discard()

	// The sandboxed child starts now and waits for its command, so its
	// start-up overlaps the policy work below; it runs nothing unless allowed.
	var stdoutCap, stderrCap *supervise.Capture
	var stdout, stderr = io.out, io.err
	state, err := supervise.DefaultInstance()
	if err != nil {
		printError(io.err, err)
		return exitFailed
	}
	defer state.Close()
	tmpdir, err := state.NewDir("run-")
	if err != nil {
		printError(io.err, err)
		return exitFailed
	}
	if *asJSON {
		// The output still streams live (to stderr) while it is kept for the
		// result. A stream too long for it is kept whole in a file of its
		// own, outside the command's reach, which outlives stockade run.
		outdir, err := os.MkdirTemp("", "stockade-output-")
		if err != nil {
			printError(io.err, err)
			return exitFailed
		}
		defer os.Remove(outdir) // unless it holds a full output
		live := func(p []byte) { io.err.Write(p) }
		stdoutCap = supervise.NewCapture(*limit, supervise.TruncateHead, outdir, "stdout", live)
		stderrCap = supervise.NewCapture(*limit, supervise.TruncateHead, outdir, "stderr", live)
		stdout, stderr = stdoutCap, stderrCap
	}
	// The end of stderr is kept to explain what the sandbox refused; a
	// terminal is handed to the command as it is (colours, progress bars),
	// and a person reads its errors there.
	stderrTail := &tailBuffer{max: 64 << 10}
	if !isTerminal(stderr) {
		stderr = teeWriter{stderr, stderrTail}
	}
	child, err := supervise.StartChild(os.Stdin, stdout, stderr)
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
	// finish prints the result with --json, and returns the exit status.
	finish := func(r pipeline.Result, code int) int {
		if *asJSON {
			enc := json.NewEncoder(io.out)
			enc.SetIndent("", "  ")
			enc.Encode(r)
		}
		return code
	}

	st, err := sf.prepare(tmpdir)
	if err != nil {
		printError(io.err, err)
		cwd, _ := filepath.Abs(sf.workdir)
		var refusal *degrade.Refusal
		if errors.As(err, &refusal) {
			return finish(pipeline.Fail(err, cwd), exitFailed)
		}
		return finish(pipeline.Fail(&pipeline.Error{Code: pipeline.CodeInvalidArgument, Msg: err.Error()}, cwd), 2)
	}
	decision, err := st.Judge(command)
	if err == nil && decision.Verdict == policy.Ask && !approvedForSession(command.Text()) {
		switch a, asked := askTerminal(decision, command.Text()); {
		case !asked:
			err = st.ApprovalRequired(command, decision, "stockade run cannot get without a terminal to ask on")
		case a == answerNo:
			err = &pipeline.Error{Code: pipeline.CodeApprovalDenied, Msg: fmt.Sprintf("not approved at the terminal (rule %q: %s); nothing was run", decision.Rule, decision.Reason)}
		case a == answerSession:
			if err := approveForSession(command.Text()); err != nil {
				fmt.Fprintf(io.err, "stockade: warning: the approval is for this run only: %v\n", err)
			}
		}
	}
	if err != nil {
		r := pipeline.Fail(err, st.Workdir)
		r.Judged(decision)
		var hints []string
		if decision.Verdict != "" && r.ErrorCode != pipeline.CodeApprovalRequired { // the advice, last, names the command
			hints = append(hints, pipeline.Offending(decision))
		}
		printError(io.err, errors.New(r.Error), hints...)
		if r.ErrorCode == pipeline.CodeInvalidArgument {
			return finish(r, 2)
		}
		return finish(r, exitDenied)
	}
	if !st.Report.Full {
		fmt.Fprintf(io.err, "stockade: warning: best-effort enforcement: %s\n", st.Report.Summary())
	}

	// A network namespace of the command's own, and the allowlist proxy
	// served inside it. In a user namespace (a plain user's run), the
	// sandbox makes the namespace and opens the proxy's listener itself.
	var netns *os.File
	var egress netproxy.Recorder
	var grants netproxy.Grants
	var serveEgress func(net.Listener)
	if st.Egress != nil {
		serveEgress = func(ln net.Listener) { st.Egress.Serve(ln, &grants, egress.Record) }
	}
	if st.Spec.NetNS && !st.Spec.UserNS {
		if netns, err = early.netNS(); err != nil {
			printError(io.err, fmt.Errorf("the network namespace: %w", err))
			return finish(pipeline.Fail(err, st.Workdir), exitFailed)
		}
		defer netns.Close()
	}
	if serveEgress != nil && netns != nil {
		ln, err := sandbox.ListenIn(netns, supervise.ProxyAddr)
		if err != nil {
			printError(io.err, fmt.Errorf("the egress proxy: %w", err))
			return finish(pipeline.Fail(err, st.Workdir), exitFailed)
		}
		defer ln.Close()
		go serveEgress(ln)
		serveEgress = nil
	}
	// Without a namespace, the proxy on the host's loopback, which the
	// connect supervisor lets the command reach.
	ln, spec, env, err := st.HostProxy(st.Spec, st.Env, egress.Record)
	if err != nil {
		printError(io.err, err)
		return finish(pipeline.Fail(err, st.Workdir), exitFailed)
	}
	if ln != nil {
		defer ln.Close()
		grants.Addr = ln.Addr().String()
		go st.Egress.Serve(ln, &grants, egress.Record)
	}
	st.Spec = spec
	// Hosts a rule grants this command, with a credential in its
	// environment alone.
	grantEnv, granted, revoke := st.Grant(command, &grants)
	defer revoke()
	start := time.Now()

	st.Spec.PrivateRoot, st.Spec.SessionDir = state.Root, tmpdir
	env = envlist.Set(env, "TMPDIR", tmpdir)
	for _, kv := range grantEnv {
		name, value, _ := strings.Cut(kv, "=")
		env = envlist.Set(env, name, value)
	}
	req := supervise.OnceRequest{Argv: argv, Env: env, Dir: st.Workdir, Spec: st.Spec, Timeout: timeout.d, NetNS: netns, Egress: serveEgress}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	started = true
	r := st.RunChild(ctx, child, req, pipeline.Advice{Timeout: "; raise --timeout"}, stderrTail.String)
	r.Judged(decision)
	if *asJSON {
		r.SetStreams(stdoutCap.Finish(), stderrCap.Finish())
	}
	if r.Status == pipeline.Failed {
		printError(io.err, errors.New(r.Error))
		return finish(r, exitFailed)
	}
	if granted != "" {
		r.Notes = append(r.Notes, granted)
	}
	r.Notes = append(r.Notes, st.NetworkNotes(egress.Since(start), r, stderrTail.String())...)
	// The notes: a timeout, processes stopped, what the sandbox refused.
	for _, n := range r.Notes {
		fmt.Fprintf(io.err, "stockade: note: %s\n", n)
	}
	if r.TimedOut {
		return finish(r, exitTimeout)
	}
	return finish(r, *r.ExitCode)
}

// warmUp starts, each on a thread of its own, the set-up that does not
// depend on what the policy says, so that on a machine with a core to spare
// it overlaps with the state directory and the policy layers instead of
// following them: loading the built-in policy, detecting the host (for a
// plain user, whether it allows a user namespace), and as root (unless
// --network on) the network namespace a command gets under the default
// policy. Nothing is applied here; a namespace no spec asks for is closed
// unused.
func warmUp(sf sandboxFlags) *earlyWork {
	go policy.Default()
	if sf.hostFile == "" {
		go hostfacts.Detect()
		if os.Geteuid() != 0 {
			go hostfacts.UserNamespaces()
		}
	}
	w := &earlyWork{}
	if os.Geteuid() == 0 && sf.network != "on" {
		ch := make(chan netnsResult, 1)
		go func() {
			f, err := sandbox.NewNetNS()
			ch <- netnsResult{f, err}
		}()
		w.netns = ch
	}
	return w
}

// earlyWork is what warmUp started.
type earlyWork struct {
	netns <-chan netnsResult // nil when not started, or taken
}

type netnsResult struct {
	f   *os.File
	err error
}

// netNS returns the network namespace made ahead, or makes one now.
func (w *earlyWork) netNS() (*os.File, error) {
	if w.netns == nil {
		return sandbox.NewNetNS()
	}
	r := <-w.netns
	w.netns = nil
	return r.f, r.err
}

// discard closes a namespace made ahead that no spec asked for.
func (w *earlyWork) discard() {
	if w.netns != nil {
		if r := <-w.netns; r.f != nil {
			r.f.Close()
		}
	}
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
