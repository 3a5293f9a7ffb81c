package supervise

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newPreparedSession is a session whose prepared shell waits as long as a
// test needs (the default drops it after 2 s without a call).
func newPreparedSession(t *testing.T) *Session {
	t.Helper()
	if !canPrepare {
		t.Skip("no prepared shells on this OS")
	}
	return newTestSession(t, Config{preparedIdle: time.Hour})
}

// prepRun runs script and fails the test unless it ran in a prepared shell.
func prepRun(t *testing.T, s *Session, script string) Result {
	t.Helper()
	before := s.preparedRuns.Load()
	res := run(t, s, script)
	if got := s.preparedRuns.Load(); got != before+1 {
		t.Fatalf("%q did not run in a prepared shell", script)
	}
	return res
}

// freshRun runs script and fails the test unless it ran in a fresh shell.
func freshRun(t *testing.T, s *Session, script string) Result {
	t.Helper()
	before := s.preparedRuns.Load()
	res := run(t, s, script)
	if got := s.preparedRuns.Load(); got != before {
		t.Fatalf("%q ran in a prepared shell", script)
	}
	return res
}

// TestPreparedShellIsBashC: a script run in a prepared shell does what the
// same script does in the fresh bash -c of another session (same
// environment, cwd and init), in everything eval could change: line numbers,
// error messages and their prefixes, $0, $-, BASH_EXECUTION_STRING, exit and
// return at the top level, set -e, stdin, and the stub's own variables and
// descriptors, which the script must not see.
func TestPreparedShellIsBashC(t *testing.T) {
	prepared := newPreparedSession(t)
	fresh := newTestSession(t, Config{preparedIdle: -1, Workdir: prepared.Cwd()})
	big := "x='" + strings.Repeat("y", 10000) + "'; echo ${#x} $LINENO"
	scripts := []string{
		"echo $LINENO",
		"echo a\necho $LINENO\n\necho $LINENO",
		`printf '[%s]' "$BASH_EXECUTION_STRING"`,
		"printf '[%s]' \"$BASH_EXECUTION_STRING\" # é \\ trailing newlines\n\n\n",
		`echo "$0|$-|$#|$*"`,
		"nosuchcmd-stockade",
		"true\n\nnosuchcmd-stockade arg",
		"if true; then\n  nosuchcmd-stockade\nfi",
		"echo ${x?is unset}",
		"set -u; echo $nosuch",
		"\n\n(( 1/0 ))",
		"echo before; exit 7",
		"return 3",
		"local x",
		"break",
		"shift",
		"exec nosuchcmd-stockade",
		"set -e; false; echo unreachable",
		"set -e\nf() { false; echo in-f; }\nf\necho after",
		"set -e; false || echo or-ok; (exit 3); echo unreachable",
		"trap 'echo ERR $BASH_COMMAND $LINENO' ERR; false; true",
		"trap 'echo $BASH_COMMAND' EXIT; true",
		"trap 'echo $BASH_COMMAND' EXIT; exit 4",
		`echo "[${PIPESTATUS[*]}]"`,
		`echo "[$_]" $?`,
		"caller; echo $?",
		"f() { echo $LINENO; caller; }\nf",
		`echo "${BASH_SOURCE[*]}|${FUNCNAME[*]}|${BASH_LINENO[*]}|${BASH_ARGC[*]}|${BASH_ARGV[*]}"`,
		"eval 'echo $LINENO'\necho $LINENO",
		"cat <<EOF\n$LINENO\nEOF",
		// SECONDS as a bound: a fresh bash -c may take a second to start on a loaded machine.
		"echo $BASH_SUBSHELL $SHLVL $(( SECONDS < 5 ))",
		"ls /proc/self/fd | tr '\\n' ' '",
		"cat; read -r line; echo \"read=$? [$line]\"",
		"compgen -v __; compgen -A function; alias; trap -p | grep -v EXIT; echo done",
		"set +o | md5sum; shopt | md5sum",
		"compgen -v | tr '\\n' ' '; declare -p SECONDS _ | sed 's/SECONDS=.*/SECONDS/'; echo $(( SECONDS < 5 ))",
		"printf 'é\\xff\\n'; echo $'a\\tb'",
		"kill -TERM $$",
		big,
	}
	for _, script := range scripts {
		want := freshRun(t, fresh, script)
		got := prepRun(t, prepared, script)
		// Each session's report carries a nonce of its own.
		want.Stdout.Text = strings.ReplaceAll(want.Stdout.Text, fresh.init.nonce, prepared.init.nonce)
		if got.Stdout.Text != want.Stdout.Text || got.Stderr.Text != want.Stderr.Text || got.ExitCode != want.ExitCode {
			t.Errorf("%q\nprepared: %q %q exit %d\nbash -c:  %q %q exit %d", script,
				got.Stdout.Text, got.Stderr.Text, got.ExitCode, want.Stdout.Text, want.Stderr.Text, want.ExitCode)
		}
	}
}

// TestPreparedShellDifferences pins what differs from bash -c in a prepared
// shell, as README states it: a syntax error is reported by eval, and the
// shell's command line is the stub.
func TestPreparedShellDifferences(t *testing.T) {
	prepared := newPreparedSession(t)
	fresh := newTestSession(t, Config{preparedIdle: -1, Workdir: prepared.Cwd()})
	for _, tt := range []struct{ script, fresh, prepared string }{
		{"echo a; fi", "bash: -c: line 1: syntax error near unexpected token `fi'", "bash: eval: line 1: syntax error near unexpected token `fi'"},
		{`tr '\0' ' ' </proc/$$/cmdline`, `bash -c tr '\0' ' ' </proc/$$/cmdline`, "bash -c IFS= read -r -N"},
	} {
		want := freshRun(t, fresh, tt.script)
		got := prepRun(t, prepared, tt.script)
		if !strings.Contains(want.Stdout.Text+want.Stderr.Text, tt.fresh) {
			t.Errorf("%q in bash -c: %q %q, want %q", tt.script, want.Stdout.Text, want.Stderr.Text, tt.fresh)
		}
		if !strings.Contains(got.Stdout.Text+got.Stderr.Text, tt.prepared) {
			t.Errorf("%q in a prepared shell: %q %q, want %q", tt.script, got.Stdout.Text, got.Stderr.Text, tt.prepared)
		}
	}
}

// TestPreparedShellOnlyWhenItFits: a call runs in the prepared shell only
// when its environment and cwd are those the shell was prepared with, and
// its script fits; every other call starts a fresh shell, and works.
func TestPreparedShellOnlyWhenItFits(t *testing.T) {
	s := newPreparedSession(t)
	prepRun(t, s, "true")

	// A script too big for the pipe, one with a NUL.
	huge := "x='" + strings.Repeat("y", maxPreparedScript) + "'; echo ${#x}"
	if got := freshRun(t, s, huge); got.Stdout.Text != "65536\n" {
		t.Errorf("a huge script: %q %q", got.Stdout.Text, got.Stderr.Text)
	}
	before := s.preparedRuns.Load()
	if _, err := s.Run(context.Background(), Request{Script: "echo a\x00b"}); err == nil || s.preparedRuns.Load() != before {
		t.Errorf("a script with a NUL: %v, or it ran in the prepared shell", err)
	}

	// The cwd was replaced by another directory of the same name.
	dir := filepath.Join(t.TempDir(), "d")
	os.Mkdir(dir, 0o755)
	prepRun(t, s, "cd "+dir)
	waitPrepared(t, s) // in the directory that is then replaced
	os.Remove(dir)
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "new"), nil, 0o644)
	if got := freshRun(t, s, "ls"); got.Stdout.Text != "new\n" {
		t.Errorf("in the replaced cwd: %q %q", got.Stdout.Text, got.Stderr.Text)
	}

	// An environment that changes how bash runs the stub: none is prepared.
	prepRun(t, s, "set -x; export SHELLOPTS")
	if got := freshRun(t, s, "true"); !strings.Contains(got.Stderr.Text, "+ true\n") || strings.Contains(got.Stderr.Text, "read -r") {
		t.Errorf("exported SHELLOPTS: %q", got.Stderr.Text)
	}
	freshRun(t, s, "set +x; export -n SHELLOPTS")
	prepRun(t, s, "true")

	// A function exported into the session's environment could replace a
	// builtin the stub calls.
	withFunc := newTestSession(t, Config{preparedIdle: time.Hour,
		Env: []string{"PATH=/usr/bin:/bin", "BASH_FUNC_read%%=() { echo exported-function; }"}})
	if got := freshRun(t, withFunc, "read"); got.Stdout.Text != "exported-function\n" {
		t.Errorf("exported function: %q %q", got.Stdout.Text, got.Stderr.Text)
	}
	for _, kv := range []string{"BASHOPTS=extdebug", "TMOUT=1", "POSIXLY_CORRECT=1", "BASH_COMPAT=50"} {
		other := newTestSession(t, Config{preparedIdle: time.Hour, Env: []string{"PATH=/usr/bin:/bin", kv}})
		if got := freshRun(t, other, "echo ok"); got.Stdout.Text != "ok\n" {
			t.Errorf("with %s: %q %q", kv, got.Stdout.Text, got.Stderr.Text)
		}
	}

	// The prepared shell was killed before the call: a fresh one runs it.
	waitPrepared(t, s)
	s.mu.Lock()
	ps := s.prep
	s.mu.Unlock()
	if p, err := os.FindProcess(ps.cmd.Pid); err == nil {
		p.Kill()
	}
	<-ps.cmd.Exited
	if got := freshRun(t, s, "echo ok"); got.Stdout.Text != "ok\n" {
		t.Errorf("after the prepared shell was killed: %q %q", got.Stdout.Text, got.Stderr.Text)
	}
	prepRun(t, s, "true")
}

// TestPreparedShellLeavesWhenIdle: an idle session drops its prepared shell,
// which leaves without running anything or reporting.
func TestPreparedShellLeavesWhenIdle(t *testing.T) {
	if !canPrepare {
		t.Skip("no prepared shells on this OS")
	}
	s := newTestSession(t, Config{preparedIdle: 100 * time.Millisecond})
	waitPrepared(t, s)
	s.mu.Lock()
	ps := s.prep
	s.mu.Unlock()
	if ps == nil {
		return // already dropped
	}
	exit := <-ps.cmd.Exited
	if exit.Status != 0 || exit.Leftovers != 0 {
		t.Errorf("the dropped shell: status %#x, %d leftovers", exit.Status, exit.Leftovers)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prep != nil {
		t.Error("the session still holds a prepared shell")
	}
}

// waitPrepared waits until the shell being prepared, if one is, is ready.
func waitPrepared(t *testing.T, s *Session) {
	t.Helper()
	s.mu.Lock()
	wait := s.preparing
	s.mu.Unlock()
	if wait != nil {
		<-wait
	}
}
