package policy

import (
	"path"
	"slices"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 21: tests and generators a script writes and then hands to their
// runner. pytest FILE runs the file's Python (and, given no file, every
// test_*.py it collects); go test compiles and runs the package's
// _test.go files; go generate runs the //go:generate lines of its .go
// files as commands. Written with text the script shows, that code is
// judged as if the script ran it (written_code.go): Python as python3 -c,
// generator lines as commands, and Go, which this analysis does not read,
// by the command lines it quotes and the files it names by a literal path
// in the home directory or /etc (os.ReadFile(os.Getenv("HOME") +
// "/.aws/credentials") reads as cat ~/.aws/credentials).

// writtenTestCode returns, as shell code, what the test runner inv (named
// name) runs of the files the script wrote, or "".
func writtenTestCode(inv *parse.Invocation, name string, files map[string]string, key func(string) string) string {
	var code strings.Builder
	switch {
	case name == "pytest" || name == "py.test":
		named := false
		for k, a := range inv.Args {
			if inv.DynamicArgs != nil && inv.DynamicArgs[k] || strings.HasPrefix(a, "-") {
				continue
			}
			a, _, _ = strings.Cut(a, "::") // tests/test_x.py::test_one
			if text, ok := files[key(a)]; ok && strings.HasSuffix(a, ".py") {
				code.WriteString("python3 -c " + shellQuote([]string{text}) + "\n")
			}
			named = true
		}
		if !named {
			for _, p := range writtenNames(files, func(b string) bool {
				return strings.HasSuffix(b, ".py") && (strings.HasPrefix(b, "test_") || strings.HasSuffix(b, "_test.py"))
			}) {
				code.WriteString("python3 -c " + shellQuote([]string{files[p]}) + "\n")
			}
		}
	case name == "go" && len(inv.Args) > 0 && inv.Args[0] == "test":
		for _, p := range writtenNames(files, func(b string) bool { return strings.HasSuffix(b, "_test.go") }) {
			goCodeCommands(files[p], &code)
		}
	case name == "go" && len(inv.Args) > 0 && inv.Args[0] == "generate":
		for _, p := range writtenNames(files, func(b string) bool { return strings.HasSuffix(b, ".go") }) {
			for _, l := range strings.Split(files[p], "\n") {
				if d, ok := strings.CutPrefix(strings.TrimSpace(l), "//go:generate "); ok {
					code.WriteString(d + "\n")
				}
			}
		}
	}
	return code.String()
}

// writtenNames returns, in order, the written files whose base name keep
// accepts.
func writtenNames(files map[string]string, keep func(base string) bool) []string {
	var out []string
	for p := range files {
		if keep(path.Base(p)) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// goCodeCommands writes the command lines Go source quotes and, as cat,
// the files it names by a literal path in the home directory or /etc.
func goCodeCommands(text string, code *strings.Builder) {
	quotedCommandLines(text, code)
	home := strings.Contains(text, `Getenv("HOME")`) || strings.Contains(text, "UserHomeDir()")
	for s := range quotedStrings(text, "\"`") {
		switch {
		case strings.ContainsAny(s, " \n'\"$`;|&"):
		case home && strings.HasPrefix(s, "/."):
			code.WriteString("cat ~" + s + "\n")
		case strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "/home/") || strings.HasPrefix(s, "/root/") || strings.HasPrefix(s, "/etc/"):
			code.WriteString("cat " + s + "\n")
		}
	}
}
