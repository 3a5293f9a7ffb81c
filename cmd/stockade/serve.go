package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/stockade/stockade/server"
	"github.com/stockade/stockade/supervise"
)

const serveUsage = `usage: stockade serve [flags]

Serves the MCP tools bash, task_output and task_kill over stdio (the default)
or streamable HTTP (--http). Over HTTP every request needs the bearer token:
set it in $STOCKADE_TOKEN or in a file named by --token-file (never on the
command line, where every local user can read it); without one, a new token
is made and printed to stderr.
`

// cmdServe implements `stockade serve`.
func cmdServe(args []string, io stdio) int {
	fs := newFlags("serve", serveUsage)
	var sf sandboxFlags
	sf.register(fs.FlagSet)
	httpAddr := fs.String("http", "", "serve streamable HTTP at `ADDR`/mcp instead of stdio (e.g. :8080, bound to loopback unless a host is given)")
	tokenFile := fs.String("token-file", "", "with --http: read the bearer token from `FILE` (default: $STOCKADE_TOKEN, else a new one printed to stderr)")
	token := fs.String("token", "", "with --http: the bearer `TOKEN` itself; visible in the process list, prefer $STOCKADE_TOKEN or --token-file")
	var origins listFlag
	fs.Var(&origins, "allow-origin", "with --http: a browser `ORIGIN` allowed besides loopback ones (repeatable)")
	timeout := timeoutFlag{d: 120 * time.Second}
	fs.Var(&timeout, "timeout", "default timeout of a command: seconds (120) or a `DURATION` (2m); at most 600 seconds")
	noBash := fs.Bool("no-bash", false, "do not offer the bash, task_output and task_kill tools")
	maxTasks := fs.Int("max-tasks", 10, "at most `N` running background tasks per session (N at least 1)")
	truncate := fs.String("truncate", "head", "which `PART` of an output longer than 30000 characters to keep: head or middle")
	idle := timeoutFlag{d: 30 * time.Minute}
	fs.Var(&idle, "idle-timeout", "with --http: close a session unused this long, stopping its processes: seconds or a `DURATION`")
	if status, ok := fs.parse(args, io); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return fail(io.err, fmt.Errorf("unexpected argument %q", fs.Arg(0)), fs.helpHint())
	}
	switch {
	case timeout.d <= 0:
		return fail(io.err, errors.New("--timeout must be a positive number of seconds or a duration"))
	case timeout.d > server.MaxTimeout:
		return fail(io.err, fmt.Errorf("--timeout %s is above the longest timeout, %d seconds", &timeout, int(server.MaxTimeout.Seconds())),
			"a longer job belongs in the background: the bash tool's run_in_background has no timeout")
	case *maxTasks < 1:
		return fail(io.err, fmt.Errorf("--max-tasks %d: must be at least 1", *maxTasks))
	case idle.d <= 0:
		return fail(io.err, errors.New("--idle-timeout must be a positive number of seconds or a duration"))
	}
	if *truncate != string(supervise.TruncateHead) && *truncate != string(supervise.TruncateMiddle) {
		return fail(io.err, fmt.Errorf("--truncate %q: must be head or middle", *truncate))
	}
	tok, err := bearerToken(*token, *tokenFile, io)
	if err != nil {
		return fail(io.err, err)
	}
	logger := slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	slog.SetDefault(logger)

	state, err := supervise.DefaultInstance()
	if err != nil {
		printError(io.err, err)
		return exitFailed
	}
	defer state.Close()
	st, err := sf.prepare("")
	if err != nil {
		printError(io.err, err)
		return exitFailed
	}
	if !st.Report.Full {
		logger.Warn("best-effort enforcement: not everything the policy requires is enforced on this host; every result says what is missing", "report", st.Report.Summary())
	}
	srv := server.New(server.Options{
		Version: shortVersion(), Setup: st, Timeout: timeout.d, NoBash: *noBash,
		MaxTasks: *maxTasks, Truncate: supervise.Truncation(*truncate), Logger: logger, IdleTimeout: idle.d,
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *httpAddr == "" {
		err = srv.ServeStdio(ctx, io.in, io.out)
	} else {
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

// bearerToken is the HTTP token from --token-file, else --token, else
// $STOCKADE_TOKEN; "" when none was given. --token works but warns:
// /proc/PID/cmdline is readable by every local user and by commands.
func bearerToken(flagToken, file string, io stdio) (string, error) {
	if flagToken != "" && file != "" {
		return "", errors.New("--token and --token-file both given; keep --token-file")
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("reading the token: %w", err)
		}
		tok := strings.TrimSpace(string(data))
		if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
			return "", fmt.Errorf("token file %s must hold one token on one line", file)
		}
		return tok, nil
	}
	if flagToken != "" {
		fmt.Fprintln(io.err, "stockade: warning: --token puts the token in the process list, where every local user and every command can read it")
		fmt.Fprintln(io.err, "hint: set STOCKADE_TOKEN or pass --token-file FILE instead")
		return flagToken, nil
	}
	return os.Getenv("STOCKADE_TOKEN"), nil
}
