package policy

import (
	"strings"
)

// searchesText reports whether an invocation only searches text for a
// pattern it is given: grep and its kin, git grep. Their words are a
// pattern and the files to look in, so a pattern that spells a download
// piped into a shell (grep -rn 'curl .* | bash' docs/) is text they look
// for, not code that runs later. What they print, though, is the lines
// that match: written to a file or piped on, those may be the very
// commands, so the output must go to the reader only. rg --pre runs a
// program on every file, and git's options before the subcommand (-c
// core.pager=...) set what it runs, so neither counts.
func (ctx *scriptCtx) searchesText(i int, a *argv) bool {
	inv := &ctx.invs[i]
	if i+1 < len(ctx.invs) && ctx.invs[i+1].PipedInto {
		return false // the matches go on to another command
	}
	for _, r := range inv.Redirects {
		if strings.Contains(r.Op, ">") && r.FD != "2" && r.Target != "/dev/null" && !strings.HasSuffix(r.Op, "&") {
			return false // the matches written to a file
		}
	}
	switch a.name {
	case "grep", "egrep", "fgrep", "zgrep", "ag", "ack", "ugrep":
		return true
	case "rg":
		for _, w := range inv.Args {
			if strings.HasPrefix(w, "--pre") {
				return false
			}
		}
		return true
	case "git":
		return len(inv.Args) > 0 && inv.Args[0] == "grep"
	}
	return false
}
