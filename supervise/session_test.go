package supervise

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade/internal/leakcheck"
	"github.com/stockade/stockade/sandbox"
)

// TestMain fails the tests if they leave a process behind. The sandboxed child
// the sessions start is this test binary running the real child code: package
// sandbox's init answers the production re-exec sentinel.
func TestMain(m *testing.M) {
	leakcheck.Main(m)
}

func newTestSession(t *testing.T, cfg Config) *Session {
	t.Helper()
	if cfg.Workdir == "" {
		cfg.Workdir = t.TempDir()
	}
	if cfg.Env == nil {
		cfg.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + cfg.Workdir, "LANG=C.UTF-8"}
	}
	cfg.Spec.FS = sandbox.FSOff
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func run(t *testing.T, s *Session, script string) Result {
	t.Helper()
	res, err := s.Run(context.Background(), Request{Script: script, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("%q: %v", script, err)
	}
	return res
}

func TestRunBasics(t *testing.T) {
	s := newTestSession(t, Config{})
	tests := []struct {
		script         string
		stdout, stderr string
		code           int
	}{
		{"echo hello", "hello\n", "", 0},
		{"exit 42", "", "", 42},
		{"echo err >&2", "", "err\n", 0},
		{"printf 'a\\033[31mred\\033[0m\\n'", "ared\n", "", 0},
		{"printf '\\377\\376ok'", "\ufffdok", "", 0},
		{"kill -9 $$", "", "", 137},
		{"# only a comment", "", "", 0},
		{"cat <<EOF\nheredoc $((1+1))\nEOF", "heredoc 2\n", "", 0},
	}
	for _, tt := range tests {
		res := run(t, s, tt.script)
		if res.Stdout.Text != tt.stdout || res.Stderr.Text != tt.stderr || res.ExitCode != tt.code {
			t.Errorf("%q: got stdout %q stderr %q code %d; want %q %q %d", tt.script, res.Stdout.Text, res.Stderr.Text, res.ExitCode, tt.stdout, tt.stderr, tt.code)
		}
	}
}

func TestCwdAndEnvPersist(t *testing.T) {
	s := newTestSession(t, Config{})
	sub := t.TempDir()
	run(t, s, "cd "+sub+" && export FOO='bar baz' && export ML=$'a\\nb'")
	res := run(t, s, `pwd; echo "$FOO"; printf '%s' "$ML"`)
	if want := sub + "\nbar baz\na\nb"; res.Stdout.Text != want {
		t.Fatalf("got %q, want %q", res.Stdout.Text, want)
	}
	if res.Cwd != sub {
		t.Fatalf("cwd %q, want %q", res.Cwd, sub)
	}
	run(t, s, "unset FOO; cd /")
	if res := run(t, s, `echo "${FOO-unset}"; pwd`); res.Stdout.Text != "unset\n/\n" {
		t.Fatalf("got %q", res.Stdout.Text)
	}
	// Syntax errors, exit and a fake report on stdout do not confuse the tracking.
	for _, script := range []string{"cd /tmp; if then", "cd /tmp; exit 3", "cd /tmp; echo stockade-report-0000 /etc"} {
		res := run(t, s, "cd /; "+script)
		if res.Cwd != "/tmp" && !strings.Contains(script, "if then") {
			t.Errorf("%q: cwd %q", script, res.Cwd)
		}
	}
}

func TestTimeoutKeepsPartialOutputAndCwd(t *testing.T) {
	s := newTestSession(t, Config{Grace: 200 * time.Millisecond})
	before := s.Cwd()
	start := time.Now()
	res, err := s.Run(context.Background(), Request{Script: "echo partial; cd /; sleep 30 & sleep 30", Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Stdout.Text != "partial\n" {
		t.Fatalf("timed out %v, stdout %q", res.TimedOut, res.Stdout.Text)
	}
	if res.Cwd != before {
		t.Fatalf("cwd moved to %q on timeout", res.Cwd)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestLeftoversStoppedAndCallReturns(t *testing.T) {
	s := newTestSession(t, Config{})
	start := time.Now()
	res := run(t, s, "sleep 60 & (setsid sleep 61 &) ; nohup sleep 62 >/dev/null 2>&1 & echo done")
	if res.Stdout.Text != "done\n" {
		t.Fatalf("stdout %q", res.Stdout.Text)
	}
	if res.Stderr.Text != "" {
		// Say "nohup: command not found" (busybox has no nohup) rather than
		// miscount.
		t.Fatalf("stderr %q", res.Stderr.Text)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatalf("call held by leftovers for %v", time.Since(start))
	}
	if res.Leftovers < 3 {
		t.Fatalf("leftovers stopped: %d, want ≥ 3", res.Leftovers)
	}
}

func TestTruncation(t *testing.T) {
	s := newTestSession(t, Config{})
	res := run(t, s, "head -c 50000 /dev/zero | tr '\\0' a; head -c 40000 /dev/zero | tr '\\0' b >&2")
	if !res.Stdout.Truncated || res.Stdout.TotalBytes != 50000 || !strings.HasPrefix(res.Stdout.Text, strings.Repeat("a", 30000)+"\n\n[stockade: output truncated: 50000 bytes") {
		t.Fatalf("stdout: truncated %v total %d text %.80q...", res.Stdout.Truncated, res.Stdout.TotalBytes, res.Stdout.Text[30000:])
	}
	full, err := os.ReadFile(res.Stdout.FullPath)
	if err != nil || len(full) != 50000 {
		t.Fatalf("full output file: %d bytes, %v", len(full), err)
	}
	if !res.Stderr.Truncated || res.Stderr.TotalBytes != 40000 {
		t.Fatalf("stderr not truncated on its own")
	}
	small := run(t, s, "head -c 10000 /dev/zero | tr '\\0' c")
	if small.Stdout.Truncated || len(small.Stdout.Text) != 10000 {
		t.Fatalf("10000 characters were truncated")
	}
}

func TestBackgroundTasks(t *testing.T) {
	s := newTestSession(t, Config{MaxTasks: 2, Grace: 200 * time.Millisecond})
	info, err := s.Start(Request{Script: "cd /; echo started; sleep 0.2; echo finished"})
	if err != nil {
		t.Fatal(err)
	}
	before := s.Cwd()
	st, err := s.Output(context.Background(), info.ID, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != "completed" || !strings.Contains(st.Output.Text, "started\nfinished\n") || *st.ExitCode != 0 {
		t.Fatalf("status %q exit %v output %q", st.Status, st.ExitCode, st.Output.Text)
	}
	if !strings.Contains(st.Output.Text, "[stockade: task-1 exited with code 0") {
		t.Fatalf("no completion line in %q", st.Output.Text)
	}
	if s.Cwd() != before {
		t.Fatalf("a background cd moved the session to %q", s.Cwd())
	}
	if _, err := s.Output(context.Background(), info.ID, nil, 0); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("a completed task read twice: %v", err)
	}
	a, _ := s.Start(Request{Script: "sleep 30"})
	if _, err := s.Start(Request{Script: "sleep 31"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(Request{Script: "sleep 32"}); !errors.Is(err, ErrTaskLimit) || !strings.Contains(err.Error(), "sleep 31") {
		t.Fatalf("limit: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // let bash start: a signal during its start-up is held back
	killed, err := s.Kill(a.ID)
	if err != nil || killed.Status != "completed" || killed.Signal != "SIGTERM" {
		t.Fatalf("kill: %+v %v", killed, err)
	}
}

// Without bash, commands run with /bin/sh through eval, and the cwd and the
// exported environment still carry over.
func TestShellFallback(t *testing.T) {
	s := newTestSession(t, Config{Shell: PosixShell()})
	sub := t.TempDir()
	run(t, s, "cd "+sub+"; export GREETING='hi there'")
	res := run(t, s, `pwd; echo "$GREETING"; [ -z "$BASH_VERSION" ] && echo posix`)
	if want := sub + "\nhi there\nposix\n"; res.Stdout.Text != want {
		t.Fatalf("got %q, want %q", res.Stdout.Text, want)
	}
	if res := run(t, s, "exit 5"); res.ExitCode != 5 {
		t.Fatalf("exit code %d", res.ExitCode)
	}
}
