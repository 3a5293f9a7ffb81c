package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 21: grep -v prints the lines its patterns do not match, so the
// words in its patterns name what is dropped, not what is looked for:
// env | grep -E '^(NODE|NPM)_' | grep -vi token searches for no secret,
// it keeps them out. What such a stage lets through is judged as the text
// it reads is (environment_shown.go: grep -v narrows nothing).

// invertsMatch reports whether inv is grep or one of its kin printing the
// lines that do not match (-v, combined as -iv, or --invert-match).
func invertsMatch(inv *parse.Invocation) bool {
	switch inv.Name {
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "ugrep":
	default:
		return false
	}
	for _, w := range inv.Args {
		if w == "--" {
			return false
		}
		if w == "--invert-match" || len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w, 'v') > 0 {
			return true
		}
	}
	return false
}
