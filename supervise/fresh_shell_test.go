package supervise

import (
	"strings"
	"testing"
)

// TestEachCommandGetsAFreshShell: of what one command does to its shell, only
// the cwd and the exported variables reach the next command. Traps, shell
// options, functions, aliases, unexported variables, positional parameters,
// the umask... and a shell that exits or fails under set -e leave nothing
// behind; every command here runs in the shell prepared for it.
func TestEachCommandGetsAFreshShell(t *testing.T) {
	s := newPreparedSession(t)
	dir := t.TempDir()
	setups := []string{
		"cd " + dir + "; export CARRIED=yes; LOCAL=leaked",
		"trap 'echo trap-leaked' EXIT; trap 'echo int-leaked' INT; trap 'echo err-leaked' ERR",
		"set -e -u -x -o pipefail -o noglob; shopt -s nullglob extglob failglob",
		"f() { echo function-leaked; }; export -f g 2>/dev/null; alias ls='echo alias-leaked'",
		"set -- leaked positional; declare -r RO=leaked; readonly -f; ulimit -S -n 64",
		"umask 077; exec 7>/dev/null; enable -n echo; hash -p /bin/false true",
		"set -e; false; echo unreachable",
		"exit 9",
		"exec bash -c 'echo replaced'",
	}
	check := strings.Join([]string{
		`echo "cwd=$PWD carried=${CARRIED-} local=${LOCAL-unset} ro=${RO-unset}"`,
		`trap -p`,
		`echo "opts=$- pipefail=$(set -o | grep -c 'pipefail *on') nullglob=$(shopt -q nullglob && echo on || echo off)"`,
		`type f 2>/dev/null | head -1; alias 2>/dev/null`,
		`echo "args=$# umask=$(umask) fd7=$( { true >&7; } 2>/dev/null && echo open || echo closed) nofile=$(ulimit -S -n)"`,
		`type -t echo; true && echo true-works`,
	}, "\n")
	fresh := prepRun(t, s, check) // what a fresh shell says, before any setup
	if fresh.ExitCode != 0 || strings.Contains(fresh.Stdout.Text, "leaked") {
		t.Fatalf("fresh shell: %d %q %q", fresh.ExitCode, fresh.Stdout.Text, fresh.Stderr.Text)
	}
	for _, setup := range setups {
		prepRun(t, s, setup)
		got := prepRun(t, s, check)
		want := strings.Replace(fresh.Stdout.Text, "carried= ", "carried=yes ", 1)
		want = strings.Replace(want, "cwd="+fresh.Cwd+" ", "cwd="+dir+" ", 1)
		if got.Stdout.Text != want || got.Stderr.Text != "" || got.ExitCode != 0 {
			t.Errorf("after %q the next command saw:\n%s%s(exit %d)\nwant:\n%s", setup, got.Stdout.Text, got.Stderr.Text, got.ExitCode, want)
		}
	}
}
