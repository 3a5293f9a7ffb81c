package parse

import "strings"

// Round 21: eval "$(go env | grep GOPATH)" runs the lines of a setup
// tool's output that grep keeps: fewer of the same lines, each one the
// tool's own (an assignment, an export), never text of grep's making.

// linesKept reports whether a pipeline stage's source text (after the |)
// is grep, egrep or fgrep with options and a pattern of plain text only:
// no expansion, substitution, redirection, file operand from elsewhere or
// further command (;, &, another |).
func linesKept(stage string) bool {
	f := strings.Fields(stage)
	if len(f) < 2 || f[0] != "grep" && f[0] != "egrep" && f[0] != "fgrep" {
		return false
	}
	if strings.ContainsAny(stage, "`;&|<>\\\n") || strings.Contains(stage, "$(") || strings.Contains(stage, "${") {
		return false
	}
	patterns := 0
	for _, w := range f[1:] {
		if strings.HasPrefix(w, "-") {
			if strings.ContainsAny(w, "fro") && !strings.HasPrefix(w, "--") || strings.HasPrefix(w, "--file") || strings.HasPrefix(w, "--r") || strings.HasPrefix(w, "--o") {
				return false // patterns or input from files; -o prints parts of lines, not the tool's lines
			}
			continue
		}
		// one pattern, quoted or not; a $ only at its end (^GOPATH=$)
		if k := strings.IndexByte(strings.Trim(w, `'"`), '$'); k >= 0 && k != len(strings.Trim(w, `'"`))-1 {
			return false
		}
		patterns++
	}
	return patterns == 1
}
