package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// gitOutputEffects: git's diff and log family write their output to the
// file --output names (git log --output=CHANGES.md), as a redirection
// would: the write is judged by where it lands (~/.bashrc, .git/hooks),
// not denied for the option alone. git's option parser takes a unique
// prefix of a long option, so --outp= counts as well; a value known only
// at run time keeps the rule program-options-git-output.
func gitOutputEffects(inv *parse.Invocation, b *effectBuilder) {
	args := inv.Args
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "--" {
			return
		}
		name, val, hasVal := strings.Cut(w, "=")
		if len(name) < len("--outp") || !strings.HasPrefix("--output", name) {
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				continue
			}
			i++
			val = args[i]
		}
		if target := homePath(val); target != "" {
			val = target
		}
		b.add(effWrite, strings.Trim(val, `"'`))
	}
}
