package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 14: a command word that is a variable the script sets once, surely,
// to a plain word (RUNNER=pytest; $RUNNER -q tests) names that program, as
// certainVarArgs writes such variables' uses among arguments. The command
// is read again as the shell would read it with the value in place, so
// that a wrapper, a shell or an interpreter named that way (X=sudo; $X rm
// -rf /) is judged with what it runs. A value that is a builtin changing
// variables or running code (eval, source, read, declare...) keeps the
// word unknown, and so does a use with redirections or inside code read
// again by another shell.

// stateBuiltins change the shell's variables, options or code, or run
// their arguments as code: a command word with one of these values keeps
// the script unfollowable.
var stateBuiltins = map[string]bool{
	"source": true, ".": true, "eval": true, "read": true, "declare": true, "typeset": true, "local": true, "export": true,
	"readonly": true, "unset": true, "let": true, "printf": true, "mapfile": true, "readarray": true, "getopts": true,
	"wait": true, "set": true, "shift": true, "alias": true, "unalias": true, "builtin": true, "command": true, "exec": true,
	"trap": true, "enable": true, "cd": true, "pushd": true, "popd": true, "hash": true, "shopt": true, "coproc": true,
}

// certainCommandVar returns the variable a dynamic command word uses
// whole ($X, "${X}"), or "".
func certainCommandVar(inv *parse.Invocation) string {
	if !inv.Dynamic || len(inv.Redirects) > 0 || len(inv.Via) > 0 {
		return ""
	}
	m := certainUse().FindStringSubmatch(strings.ReplaceAll(inv.Name, `"`, ""))
	if m == nil || m[1] != "" || m[4] != "" {
		return ""
	}
	return m[2] + m[3]
}

// Round 19: a value of several such words (TEST_CMD="pytest -q"), used
// unquoted as the command word, is split by the default IFS (the script
// sets none, or certainVarArgs follows nothing) into the program and its
// first arguments: $TEST_CMD tests/unit runs pytest -q tests/unit. Quoted,
// it is one word naming no program, and stays unknown.

// commandLine reports whether a value is several plain words, each one a
// certainValue without ~ (which a use does not expand) or, after the
// first, an option with its value (--max-warnings=0), separated by single
// spaces.
func commandLine(v string) bool {
	if !strings.Contains(v, " ") || strings.Contains(v, "~") || strings.Contains(v, "  ") || v[0] == ' ' || v[len(v)-1] == ' ' {
		return false
	}
	for k, w := range strings.Split(v, " ") {
		if k > 0 && strings.HasPrefix(w, "-") {
			w = strings.Replace(w, "=", "", 1)
		}
		if !certainValue().MatchString(w) {
			return false
		}
	}
	return true
}

// resolvedCommand returns inv read again with its command word's certain
// value, the words value splits into, in place, or false when an argument
// is still unknown or the text does not read back.
func resolvedCommand(inv *parse.Invocation, value []string) ([]parse.Invocation, bool) {
	if inv.DynamicArgs != nil && anyTrue(inv.DynamicArgs) {
		return nil, false
	}
	inner, err := parseScript(shellQuote(append(value[:len(value):len(value)], inv.Args...)))
	if err != nil || len(inner.Invocations) == 0 || len(inner.Invocations) > maxExpansions {
		return nil, false
	}
	out := make([]parse.Invocation, 0, len(inner.Invocations))
	for k, x := range inner.Invocations {
		x.Pos = inv.Pos
		x.PipedInto, x.Background, x.EndlessLoop = inv.PipedInto, inv.Background, inv.EndlessLoop
		if k == 0 && len(inv.Env) > 0 {
			x.Env = append(append([]string(nil), inv.Env...), x.Env...)
		}
		out = append(out, x)
	}
	return out, true
}
