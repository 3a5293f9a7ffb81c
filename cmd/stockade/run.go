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
	"path/filepath"
	"sync"
	"syscall"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/exec"
	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/policy"
)

// Exit statuses of `stockade run` besides the command's own.
const (
	exitTimeout = 124 // the command ran out of time
	exitFailed  = 125 // stockade failed, or could not enforce what is required
	exitDenied  = 126 // the policy denied the command, or it needs an approval CI cannot give
)

func cmdRun(args []string, io stdio) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.err)
	var sf sandboxFlags
	sf.register(fs)
	script := fs.String("c", "", "run this shell script (with bash, else sh) instead of CMD ARGS")
	timeout := fs.Duration("timeout", 0, "stop the command after this long, e.g. 10m (default: no limit); exit status 124")
	limit := fs.Int("limit", exec.DefaultLimit, "with --json: characters of each stream kept in the result")
	verbose := fs.Bool("v", false, "log what stockade does (secrets removed from the environment, ...) to stderr")
	asJSON := fs.Bool("json", false, "print one JSON result object on stdout at the end (the MCP bash tool's result); the command's output streams to stderr")
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
	command := pipeline.Command{Argv: argv}
	if *script != "" {
		command = pipeline.Command{Script: *script}
		argv = []string{exec.DetectShell().Path, "-c", *script}
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
		stdoutCap = exec.NewCapture(*limit, exec.TruncateHead, outdir, "stdout", live)
		stderrCap = exec.NewCapture(*limit, exec.TruncateHead, outdir, "stderr", live)
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
		return finish(pipeline.Fail(&exec.Error{Code: "INVALID_ARGUMENT", Msg: err.Error()}, cwd), 2)
	}
	decision, err := st.Judge(command)
	if err == nil && decision.Verdict == policy.Ask {
		err = pipeline.ApprovalRequired(decision, "stockade run cannot get")
	}
	if err != nil {
		r := pipeline.Fail(err, st.Workdir)
		r.Judged(decision)
		var hints []string
		if decision.Verdict != "" {
			hints = append(hints, pipeline.Offending(decision))
		}
		printError(io.err, errors.New(r.Error), hints...)
		if r.ErrorCode == "INVALID_ARGUMENT" {
			return finish(r, 2)
		}
		return finish(r, exitDenied)
	}
	if !st.Report.Full {
		fmt.Fprintf(io.err, "stockade: warning: best-effort enforcement: %s\n", st.Report.Summary())
	}

	env := exec.SetEnv(st.Env, "TMPDIR", tmpdir)
	req := exec.OnceRequest{Argv: argv, Env: env, Dir: st.Workdir, Spec: st.Spec, Timeout: *timeout}
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
	// The notes: a timeout, processes stopped, what the sandbox refused.
	for _, n := range r.Notes {
		fmt.Fprintf(io.err, "stockade: note: %s\n", n)
	}
	if r.TimedOut {
		return finish(r, exitTimeout)
	}
	return finish(r, *r.ExitCode)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
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
