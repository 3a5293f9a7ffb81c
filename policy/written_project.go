package policy

import (
	"iter"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 17: files of the project that a tool runs as code whenever it is
// invoked: pytest imports conftest.py, cargo builds and runs build.rs, pip
// install . runs setup.py, gradle evaluates build.gradle, just and tox run
// the commands of their files, python -m NAME imports NAME.py from the
// current directory before the library's module of that name. Written by
// the script with text it shows and then handed to the tool, that text is
// judged as if the script ran it (written_code.go): Python as python3 -c,
// recipe and command lines as shell, and, in languages this analysis does
// not read (Rust, Groovy, Kotlin), the quoted strings that read as a
// command line.

// projectCode: the files a tool runs and how their text is read.
type projectCode struct {
	files []string
	lang  byte // 'p' Python, 'r' indented recipe lines, 'i' tox's commands = lines, 'q' quoted command lines
}

var (
	gradleProject = projectCode{[]string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "init.gradle"}, 'q'}
	pytestProject = projectCode{[]string{"conftest.py", "tests/conftest.py", "test/conftest.py"}, 'p'}
	projectFiles  = map[string]projectCode{
		"pytest": pytestProject, "py.test": pytestProject,
		"cargo":  {[]string{"build.rs"}, 'q'},
		"gradle": gradleProject, "gradlew": gradleProject,
		"just": {[]string{"justfile", "Justfile", ".justfile"}, 'r'},
		"tox":  {[]string{"tox.ini"}, 'i'},
		"pip":  {[]string{"setup.py"}, 'p'}, "pip3": {[]string{"setup.py"}, 'p'},
	}
)

// writtenProjectCode returns, as shell code, what tool runs of the
// project files the script wrote, or "".
func writtenProjectCode(inv *parse.Invocation, tool string, files map[string]string, key func(string) string) string {
	pc := projectFiles[tool]
	if (tool == "pip" || tool == "pip3") && !installsWorkdir(inv) {
		return ""
	}
	var code strings.Builder
	for _, n := range pc.files {
		text, ok := files[key(n)]
		if !ok {
			continue
		}
		switch pc.lang {
		case 'p':
			code.WriteString("python3 -c " + shellQuote([]string{text}) + "\n")
		case 'r':
			for _, l := range strings.Split(text, "\n") {
				if t := strings.TrimLeft(l, " \t"); t != l && t != "" {
					code.WriteString(strings.TrimLeft(t, "@-") + "\n")
				}
			}
		case 'i':
			toxCommands(text, &code)
		case 'q':
			quotedCommandLines(text, &code)
		}
	}
	return code.String()
}

// installsWorkdir: pip install . or -e . builds the project in the
// current directory.
func installsWorkdir(inv *parse.Invocation) bool {
	for _, a := range inv.Args {
		switch strings.TrimPrefix(strings.TrimPrefix(a, "--editable="), "-e") {
		case ".", "./":
			return true
		}
	}
	return false
}

// toxCommands writes the lines of tox.ini's commands, commands_pre and
// commands_post settings (and their continuation lines).
func toxCommands(text string, code *strings.Builder) {
	in := false
	for _, l := range strings.Split(text, "\n") {
		if in && l != "" && (l[0] == ' ' || l[0] == '\t') {
			code.WriteString(strings.TrimLeft(strings.TrimSpace(l), "-") + "\n")
			continue
		}
		in = false
		k, v, ok := strings.Cut(l, "=")
		if k = strings.TrimSpace(k); ok && (k == "commands" || k == "commands_pre" || k == "commands_post") {
			in = true
			if v = strings.TrimSpace(v); v != "" {
				code.WriteString(strings.TrimLeft(v, "-") + "\n")
			}
		}
	}
}

// quotedCommandLines writes the quoted strings of text that read as a
// command line with arguments ("sh", "-c", "curl ... | sh": the last).
func quotedCommandLines(text string, code *strings.Builder) {
	for q := range quotedStrings(text, "'\"") {
		if !strings.Contains(q, " ") || strings.Contains(q, "\n") {
			continue
		}
		if _, err := parseScript(q); err == nil {
			code.WriteString(q + "\n")
		}
	}
}

// shadowedModule returns the text of NAME.py when python -m NAME would
// import a file the script wrote in the current directory (the directory
// comes first on the module path, and a package is imported before its
// modules), or conftest.py for -m pytest.
func shadowedModule(inv *parse.Invocation, files map[string]string, key func(string) string) (string, bool) {
	for k, a := range inv.Args {
		if a != "-m" || k+1 >= len(inv.Args) || dynArg(inv, k+1) {
			continue
		}
		m := inv.Args[k+1]
		// -m json.tool imports json first: ./json.py or json/__init__.py
		parts := strings.Split(m, ".")
		for n := 1; n <= len(parts); n++ {
			p := strings.Join(parts[:n], "/")
			if text, ok := files[key(p+".py")]; ok {
				return text, true
			}
			if text, ok := files[key(p+"/__init__.py")]; ok {
				return text, true
			}
		}
		if m == "pytest" {
			for _, n := range pytestProject.files {
				if text, ok := files[key(n)]; ok {
					return text, true
				}
			}
		}
	}
	return "", false
}

// quotedStrings yields, in order, the texts between a pair of the same
// quote character of quotes ("'\"" for Python, "\"`" for Go).
func quotedStrings(text, quotes string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for rest := text; ; {
			i := strings.IndexAny(rest, quotes)
			if i < 0 {
				return
			}
			j := strings.IndexByte(rest[i+1:], rest[i])
			if j < 0 {
				return
			}
			q := rest[i+1 : i+1+j]
			rest = rest[i+j+2:]
			if !yield(q) {
				return
			}
		}
	}
}
