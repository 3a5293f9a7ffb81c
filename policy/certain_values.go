package policy

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/stockade/stockade/parse"
)

// A variable the script sets once, to a plain path, where the assignment
// surely holds (not in a subshell, pipeline, branch, loop, function body or
// substitution, nor after && or ||), has that value wherever the script
// uses it later: BUILD_DIR=./out; rm -rf "${BUILD_DIR:?}/"* removes
// ./out/*, nothing else. Such uses are written as the value, as mktemp's
// fresh paths are (freshTempArgs), so that they are judged as what they
// are rather than asked as unknown. Anything that could give the variable
// another value keeps it unknown: a second assignment, any other mention
// of its name (read, declare, local, unset, printf -v, a nameref, $((X=1))),
// code the analysis cannot follow (source, eval, a dynamic command), and
// uses in code read again by another shell (bash -c, ssh), which does not
// see an unexported variable.

var (
	// certainUse: $X, ${X}, ${X:?msg} or ${X?msg}, after a plain path prefix
	// (./$X, Round 21) and before a path suffix, with
	// the double quotes removed.
	certainUse = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z0-9._/+@%,:-]*)\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?::?\?[^}$` + "`" + `]*)?\})(/[^$` + "`" + `'\\]*)?$`)
	})
	// certainValue: a plain path, no expansion, space or pattern.
	certainValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^~?[A-Za-z0-9._/+@%,:-]*$`)
	})
)

// assignsUnknownName reports whether a builtin that sets or unsets the
// variables its arguments name is given a name known only at run time
// (declare "$n"=/, printf -v "$n", read "$n", unset "$n"): then any
// variable may change. Values known only at run time (local d="$1", read
// -p "$msg" x) name nothing.
func assignsUnknownName(inv *parse.Invocation) bool {
	if inv.DynamicArgs == nil || !anyTrue(inv.DynamicArgs) {
		return false
	}
	var valued string // options whose value is the next word
	switch inv.Name {
	case "declare", "typeset", "local", "export", "readonly":
		for k, a := range inv.Args {
			if inv.DynamicArgs[k] && !staticNameAssign().MatchString(a) {
				return true
			}
		}
		return false
	case "let", "unset":
		return true
	case "printf":
		for k, a := range inv.Args {
			if a == "-v" && k+1 < len(inv.Args) && inv.DynamicArgs[k+1] || strings.HasPrefix(a, "-v") && len(a) > 2 && inv.DynamicArgs[k] {
				return true
			}
		}
		return false
	case "wait":
		for k, a := range inv.Args {
			if a == "-p" && k+1 < len(inv.Args) && inv.DynamicArgs[k+1] {
				return true
			}
		}
		return false
	case "read":
		valued = "pdtnNui"
	case "mapfile", "readarray":
		valued = "dnOsuCc"
	case "getopts":
		return len(inv.Args) > 1 && inv.DynamicArgs[1]
	default:
		return false
	}
	for k := range inv.Args {
		if !inv.DynamicArgs[k] {
			continue
		}
		if k > 0 {
			prev := inv.Args[k-1]
			if len(prev) == 2 && prev[0] == '-' && strings.IndexByte(valued, prev[1]) >= 0 && !inv.DynamicArgs[k-1] {
				continue // read -p "$msg": a value
			}
		}
		return true
	}
	return false
}

// staticNameAssign: a declare argument whose name is written out, its
// value known or not (d="$1", arr[0]="$x").
var staticNameAssign = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]$` + "`" + `]*\])?\+?=`)
})

// certainVia: where a use is expanded by the script's own shell.
func certainVia(via []string) bool {
	for _, v := range via {
		switch {
		case v == "$(...)", v == "`...`", v == "<(...)", v == ">(...)", v == "time", strings.HasPrefix(v, "function "),
			v == "sudo", v == "env", v == "nice", v == "nohup", v == "timeout", v == "command", v == "exec", v == "xargs":
		default:
			return false
		}
	}
	return true
}

// certainVarArgs returns invs with the uses of such variables written as
// their values.
func certainVarArgs(s *parse.Script, invs []parse.Invocation) []parse.Invocation {
	var certain map[string]parse.Assignment
	for _, as := range s.Assignments {
		if as.Name == "IFS" {
			return invs // an unquoted use splits where IFS says
		}
	}
	homeSet := false
	for _, as := range s.Assignments {
		homeSet = homeSet || as.Name == "HOME"
	}
	for _, as := range s.Assignments {
		if as.Dynamic && !as.Uncertain && !homeSet {
			// Round 14: D=$HOME, D="$HOME/x": the home as the analysis writes it.
			if v := strings.TrimLeft(as.Value, `"`); strings.HasPrefix(v, "$HOME") || strings.HasPrefix(v, "${HOME}") {
				if h := homePath(as.Value); h != "" {
					as.Value, as.Dynamic = h, false
				}
			}
		}
		if !as.Dynamic && !as.Uncertain && as.Value != "" && (certainValue().MatchString(as.Value) || commandLine(as.Value)) && !strings.Contains(as.Value, "..") {
			if certain == nil {
				certain = map[string]parse.Assignment{}
			}
			certain[as.Name] = as
		}
	}
	if certain == nil {
		return invs
	}
	count := map[string]int{}
	for _, as := range s.Assignments {
		count[as.Name]++
		for name := range certain {
			if as.Name != name && (mentionsName(as.Name, name) || as.Dynamic && mentionsName(as.Value, name)) {
				count[name]++ // arr[B=2]=1, x=$((B=3))
			}
		}
	}
	for name := range certain {
		if count[name] != 1 {
			delete(certain, name)
		}
	}
	var commandVars []string // Round 14: command words that are such a variable (certain_command.go)
	for i := range invs {
		inv := &invs[i]
		if inv.Dynamic {
			v := certainCommandVar(inv)
			if v == "" {
				return invs
			}
			commandVars = append(commandVars, v)
		} else if inv.Name == "source" || inv.Name == "." || inv.Name == "eval" || slices.Contains(inv.Via, "coproc") {
			return invs
		}
		if assignsUnknownName(inv) {
			return invs // declare "$n"=/, printf -v "$n", read "$n": any variable
		}
		for name := range certain {
			for _, a := range inv.Args {
				if mentionsName(a, name) {
					delete(certain, name)
					break
				}
			}
			for _, e := range inv.Env {
				if strings.HasPrefix(e, name+"=") {
					delete(certain, name)
				}
			}
		}
	}
	for _, v := range commandVars {
		if as, ok := certain[v]; !ok || stateBuiltins[strings.Fields(as.Value)[0]] {
			return invs // a command word that may set variables or run code
		}
	}
	if len(certain) == 0 {
		return invs
	}
	var out []parse.Invocation
	for i := range invs {
		inv := &invs[i]
		if inv.DynamicArgs == nil || !certainVia(inv.Via) {
			continue
		}
		args, dyn := resolvedArgs(inv, func(a string) (string, bool) {
			m := certainUse().FindStringSubmatch(strings.ReplaceAll(a, `"`, ""))
			if m == nil {
				return "", false
			}
			as, ok := certain[m[2]+m[3]]
			if !ok || !before(as.Pos, inv.Pos) || strings.Contains(m[1]+m[4], "..") || commandLine(as.Value) {
				return "", false
			}
			return m[1] + as.Value + m[4], true
		})
		if args == nil {
			continue
		}
		out = withArgs(out, invs, i, args, dyn)
	}
	if len(commandVars) > 0 {
		if out == nil {
			out = invs
		}
		out = certainCommands(out, certain)
	}
	if out == nil {
		return invs
	}
	return out
}

// certainCommands returns invs with each command word that is a certain
// variable read again with its value in place (resolvedCommand); invs is
// copied before any change.
func certainCommands(invs []parse.Invocation, certain map[string]parse.Assignment) []parse.Invocation {
	var out []parse.Invocation
	for i := range invs {
		inv := &invs[i]
		v := certainCommandVar(inv)
		as, ok := certain[v]
		var repl []parse.Invocation
		if v != "" && ok && before(as.Pos, inv.Pos) && (!commandLine(as.Value) || !strings.Contains(inv.Name, `"`)) {
			repl, ok = resolvedCommand(inv, strings.Fields(as.Value))
		} else {
			ok = false
		}
		if !ok {
			out = kept(out, inv)
			continue
		}
		out = spliced(out, invs, i, repl...)
	}
	if out == nil {
		return invs
	}
	return out
}

// mentionsName reports whether a word names the variable other than by
// expanding it ($X, ${X...}): read X, unset X, declare -n r=X, $((X=1)).
func mentionsName(w, name string) bool {
	return wholeWord(w, name, func(k int) bool {
		return !(k > 0 && w[k-1] == '$' || k > 1 && w[k-1] == '{' && w[k-2] == '$')
	})
}

// freshTempProgram returns the path a dynamic command word names when it is
// a file under a fresh mktemp path ("$d/app" after d=$(mktemp -d)): the
// program the script built or wrote there, judged as a file it created.
func freshTempProgram(inv *parse.Invocation, fresh map[string]bool) (string, bool) {
	if !inv.Dynamic || len(inv.Via) > 0 && !certainVia(inv.Via) {
		return "", false
	}
	m := varWord().FindStringSubmatch(strings.ReplaceAll(inv.Name, `"`, ""))
	if m == nil || !fresh[m[1]] || m[2] == "" || strings.Contains(m[2], "..") {
		return "", false
	}
	return freshTempPath + m[2], true
}
