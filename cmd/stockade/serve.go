package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/stockade/stockade/exec"
	"github.com/stockade/stockade/server"
)

func cmdServe(args []string, io stdio) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.err)
	var sf sandboxFlags
	sf.register(fs)
	httpAddr := fs.String("http", "", "serve streamable HTTP at ADDR/mcp instead of stdio (e.g. :8080, bound to loopback unless a host is given)")
	token := fs.String("token", "", "bearer token for --http (default: $STOCKADE_TOKEN, else a new one printed to stderr)")
	var origins listFlag
	fs.Var(&origins, "allow-origin", "with --http: a browser origin allowed besides loopback ones (repeatable)")
	timeout := fs.Int("timeout", 120, "default timeout of a command, in seconds (at most 600)")
	noBash := fs.Bool("no-bash", false, "do not offer the bash, task_output and task_kill tools")
	maxTasks := fs.Int("max-tasks", 10, "running background tasks per session")
	truncate := fs.String("truncate", "head", "which part of an output longer than 30000 characters to keep: head or middle")
	idle := fs.Duration("idle-timeout", 30*time.Minute, "with --http: close a session unused this long, stopping its processes")
	fs.Usage = func() {
		fmt.Fprintln(io.err, "usage: stockade serve [flags]\n\nflags:")
		fs.PrintDefaults()
	}
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return fail(io.err, fmt.Errorf("unexpected argument %q", fs.Arg(0)), "run 'stockade serve -h' for the flags")
	}
	if *timeout <= 0 {
		return fail(io.err, errors.New("--timeout must be a positive number of seconds"))
	}
	if *truncate != string(exec.TruncateHead) && *truncate != string(exec.TruncateMiddle) {
		return fail(io.err, fmt.Errorf("--truncate %q: must be head or middle", *truncate))
	}
	logger := slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	slog.SetDefault(logger)

	st, err := sf.prepare("")
	if err != nil {
		printError(io.err, err)
		return exitFailed
	}
	if !st.report.Full {
		logger.Warn("best-effort enforcement: not everything the policy requires is enforced on this host; every result says what is missing", "report", st.report.Summary())
	}
	srv := server.New(server.Options{
		Version: version, Workdir: st.workdir, Timeout: time.Duration(*timeout) * time.Second, NoBash: *noBash,
		MaxTasks: *maxTasks, Truncate: exec.Truncation(*truncate), Policy: st.policy, Spec: st.spec,
		Report: st.report, Env: st.env, Logger: logger, IdleTimeout: *idle, Network: st.network, Egress: st.egress,
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *httpAddr == "" {
		err = srv.ServeStdio(ctx, io.in, io.out)
	} else {
		tok := *token
		if tok == "" {
			tok = os.Getenv("STOCKADE_TOKEN")
		}
		generated := tok == ""
		if generated {
			var b [24]byte
			rand.Read(b[:])
			tok = hex.EncodeToString(b[:])
		}
		err = srv.ServeHTTP(ctx, server.HTTPOptions{Addr: *httpAddr, Token: tok, AllowedOrigins: origins, Ready: func(addr string) {
			fmt.Fprintf(io.err, "stockade: serving MCP at http://%s/mcp\n", addr)
			if generated {
				fmt.Fprintf(io.err, "stockade: token: %s\n", tok)
			}
		}})
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		printError(io.err, err)
		return exitFailed
	}
	return 0
}
