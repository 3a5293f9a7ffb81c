package parse

import "strings"

// envFileWord reports whether a word env is given is the NAME=VALUE lines
// of a file in the project, read by text tools: env $(grep -v '^#'
// .env.test | xargs) npm test. Its assignments stay unknown (the word's
// source text is what rules see), as a sourced project file's would; what
// follows it is the command env runs, judged as itself. A substitution
// that runs anything else, reads outside the workdir or is itself built
// at run time could print the command, so it keeps env unknown.
func envFileWord(w word) bool {
	if !w.dyn {
		return false
	}
	t := strings.TrimSuffix(strings.TrimPrefix(w.text, `"`), `"`)
	inner, ok := strings.CutPrefix(t, "$(")
	if !ok || !strings.HasSuffix(inner, ")") || strings.ContainsAny(inner, "$`\\<>;&\n") {
		return false
	}
	s, err := Parse(strings.TrimSuffix(inner, ")"))
	if err != nil || len(s.Invocations) == 0 || len(s.Assignments) > 0 {
		return false
	}
	for _, inv := range s.Invocations {
		if inv.Dynamic || len(inv.Redirects) > 0 || len(inv.Env) > 0 || inv.InlineCode != nil || len(inv.Via) > 0 {
			return false
		}
		switch inv.Name {
		case "grep", "egrep", "fgrep", "cat", "sort", "uniq", "tr", "cut", "head", "tail":
		case "xargs":
			if len(inv.Args) > 0 {
				return false // xargs alone echoes its input; with a command it runs one
			}
		default:
			return false
		}
		for k, a := range inv.Args {
			if inv.DynamicArgs != nil && inv.DynamicArgs[k] || strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~") || strings.Contains(a, "..") {
				return false
			}
		}
	}
	return true
}
