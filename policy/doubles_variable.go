package policy

import "strings"

// Round 22 (C): a shell variable set to its own value twice over
// (x=$x$x): in a loop, the step of a string that doubles each time until
// the shell has taken all the memory. No build or script needs a value
// glued to itself; a value that grows by a piece each time (s=$s$line)
// names its own variable once.

// doublesVariable (grows_itself, exhaustion.go) reports whether invocation i is an assignment (read as
// declare NAME=VALUE, expand.go) whose value names its own variable twice
// or more.
func (ctx *scriptCtx) doublesVariable(i int) bool {
	inv := &ctx.invs[i]
	if inv.Name != "declare" || len(inv.Args) != 1 || len(inv.Via) == 0 || inv.Via[0] != "assignment" {
		return false
	}
	name, val, ok := strings.Cut(inv.Args[0], "=")
	if !ok || name == "" || !strings.Contains(val, "$") {
		return false
	}
	return selfRefs(val, name) >= 2
}

// selfRefs counts the references to the variable name in val ($name not
// followed by a letter of a longer name, ${name}).
func selfRefs(val, name string) int {
	n := strings.Count(val, "${"+name+"}")
	for rest := val; ; {
		k := strings.Index(rest, "$"+name)
		if k < 0 {
			return n
		}
		rest = rest[k+1+len(name):]
		if rest == "" || !isNameByte(rest[0], false) {
			n++
		}
	}
}
