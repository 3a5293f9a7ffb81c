package policy

// Round 13: resources exhausted by spelling the analysis did not know: a
// file concatenated with itself and put back in its place (cat f f > g &&
// mv g f), the step of a loop that doubles it each time until the disk is
// full, a bomb made without an archive; and loops that only spin.

// growsItself reports whether invocation i writes to a file, through its
// standard output, an operand given more than once, and a later command
// of the script moves or copies that file back over the operand.
// Round 22 (C): or it is a variable's assignment whose value names the
// variable twice (x=$x$x, doublesVariable).
func (ctx *scriptCtx) growsItself(i int, a *argv) bool {
	if ctx.invs[i].Name == "declare" {
		return ctx.doublesVariable(i)
	}
	dup := ""
	for k, p := range a.positionals {
		for _, q := range a.positionals[:k] {
			if p == q && p != "-" {
				dup = p
			}
		}
	}
	if dup == "" {
		return false
	}
	out := ""
	for _, r := range ctx.invs[i].Redirects {
		if (r.Op == ">" || r.Op == ">>" || r.Op == ">|") && (r.FD == "" || r.FD == "1") && !r.Dynamic {
			out = r.Target
		}
	}
	if out == "" || out == dup {
		return false
	}
	for j := i + 1; j < len(ctx.invs); j++ {
		n := &ctx.invs[j]
		if (n.Name == "mv" || n.Name == "cp") && len(n.Args) >= 2 && n.Args[len(n.Args)-1] == dup {
			for _, s := range n.Args[:len(n.Args)-1] {
				if s == out {
					return true
				}
			}
		}
	}
	return false
}

// spinsOnly reports whether every command in the script's endless loops
// does nothing (:, true, continue): the loop only burns a CPU. It holds
// for the first such command, so that a script is judged once.
func (ctx *scriptCtx) spinsOnly(i int) bool {
	if !ctx.invs[i].EndlessLoop {
		return false
	}
	for j := range ctx.invs {
		if ctx.invs[j].EndlessLoop {
			switch ctx.invs[j].Name {
			case ":", "true", "continue":
			default:
				return false
			}
		}
	}
	return true
}
