package policy

import (
	"path"
	"slices"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Code a script writes to a file and then runs: cat > x.sh <<'EOF' ... EOF;
// bash x.sh, echo '...' > m.py; python3 m.py. The text written is known, so
// what runs is judged as if the script ran it inline (shell code as
// commands of the script, other languages as their interpreter's -c or -e
// code), instead of as a file nobody has seen.

// writtenCodeInterpreters: how a file of each interpreter's language is
// judged, as the option that gives it the same code inline ("" for shells,
// whose code is read as commands).
var writtenCodeInterpreters = map[string]string{
	"sh": "", "bash": "", "dash": "", "zsh": "", "ksh": "", "ash": "", "mksh": "", "source": "", ".": "",
	"python": "-c", "python3": "-c", "python2": "-c", "pypy": "-c", "pypy3": "-c", "node": "-e", "nodejs": "-e", "ruby": "-e", "perl": "-e", "php": "-r",
}

// mayRunWrittenCode is a quick test: some invocation writes through a
// redirection (or sets a package script) and a later one is an
// interpreter or runs a path.
func mayRunWrittenCode(invs []parse.Invocation) bool {
	writes := false
	for i := range invs {
		if writes {
			n := commandName(invs[i].Name)
			if _, ok := writtenCodeInterpreters[strings.TrimRight(n, "0123456789.")]; ok || n == "." || n == "make" || n == "gmake" || n == "ninja" || packageScriptRunners[n] || strings.Contains(invs[i].Name, "/") {
				return true
			}
			if _, ok := projectFiles[n]; ok || n == "run-parts" || n == "go" {
				return true
			}
		}
		for _, r := range invs[i].Redirects {
			if r.Op == ">" || r.Op == ">>" || r.Op == ">|" {
				writes = true
			}
		}
		if packageScriptRunners[commandName(invs[i].Name)] && len(invs[i].Args) > 1 && (invs[i].Args[0] == "pkg" || invs[i].Args[0] == "set-script" || invs[i].Args[0] == "pm") {
			writes = true // npm pkg set scripts.x=...
		}
	}
	return false
}

// writtenCode returns the commands that running the files written before
// them adds to invs.
func writtenCode(invs []parse.Invocation) (out []parse.Invocation) {
	files := map[string]string{}
	// Round 19: paths are keyed from where the script's cd's lead (cat >>
	// ~/src/api/conftest.py <<EOF ... EOF; cd ~/src/api && pytest), and
	// a file is looked for there first, then as named: a cd in a subshell
	// does not last, which the analysis does not see.
	cwd := ""
	asNamed := func(p string) string { return strings.TrimPrefix(normPath(p, places{}), "./") }
	key := func(p string) string {
		if cwd != "" && p != "" && p[0] != '/' && p[0] != '~' && !strings.HasPrefix(p, "$HOME") {
			return asNamed(cwd + "/" + p)
		}
		return asNamed(p)
	}
	lookup := func(p string) string {
		if k := key(p); cwd == "" || files[k] != "" {
			return k
		}
		return asNamed(p)
	}
	for i := range invs {
		inv := &invs[i]
		if !inv.Dynamic {
			if text, ok := runsWritten(inv, files, lookup); ok {
				out = append(out, text...)
			}
		}
		if n := commandName(inv.Name); (n == "cd" || n == "pushd") && !inv.Dynamic {
			cwd = writtenCodeDir(inv, key)
		}
		if set := setPackageScripts(inv); set != nil {
			files[key("package.json")] = withPackageScripts(files[key("package.json")], set)
		}
		// what this invocation writes, when its text is known
		text, known := writtenText(inv)
		for _, r := range inv.Redirects {
			if r.FD != "" && r.FD != "1" || r.Dynamic || r.Op != ">" && r.Op != ">>" && r.Op != ">|" {
				continue
			}
			k := key(r.Target)
			switch {
			case !known:
				delete(files, k)
			case r.Op == ">>":
				files[k] += text
			default:
				files[k] = text
			}
		}
		if commandName(inv.Name) == "tee" && known {
			for k, a := range inv.Args {
				if !strings.HasPrefix(a, "-") && (inv.DynamicArgs == nil || !inv.DynamicArgs[k]) {
					files[key(a)] += text
				}
			}
		}
		if len(out) > maxExpansions {
			break
		}
	}
	return out
}

// writtenCodeDir is the directory cd or pushd leads to, as a key of the
// files written, or a directory no path is keyed under when it is known
// only at run time.
func writtenCodeDir(inv *parse.Invocation, key func(string) string) string {
	dir := "~"
	for k, a := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] || a == "-" {
			return "\x00" // cd "$D", cd -: unknown
		}
		if !strings.HasPrefix(a, "-") {
			dir = a
			break
		}
	}
	return key(dir)
}

// writtenText is what inv prints, when the script shows it: echo or printf
// of static words, cat or tee of a here-document or a here-string.
func writtenText(inv *parse.Invocation) (string, bool) {
	if inv.Dynamic || inv.DynamicArgs != nil {
		return "", false
	}
	switch commandName(inv.Name) {
	case "echo":
		return echoOutput(inv.Args)
	case "printf":
		return printfOutput(inv.Args)
	case "cat", "tee":
		for _, a := range inv.Args {
			if a != "-" && commandName(inv.Name) == "cat" {
				return "", false // cat FILE: a file's text
			}
		}
		for _, r := range inv.Redirects {
			if (r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<") && (r.FD == "" || r.FD == "0") && !r.Dynamic {
				return r.Target + "\n", true
			}
		}
	}
	return "", false
}

// shebang is how a file run by its path is judged: as code of the
// interpreter its #! line names (through env too), given by that
// interpreter's inline option, or as shell when the line names none it
// knows.
func shebang(text string) (interpreter, flag string) {
	l, _, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(l, "#!") {
		return "", ""
	}
	words := strings.Fields(l[2:])
	for len(words) > 0 {
		prog := path.Base(words[0])
		words = words[1:]
		if prog == "env" {
			for len(words) > 0 && (strings.HasPrefix(words[0], "-") || strings.Contains(words[0], "=")) {
				words = words[1:] // env -S, env NAME=VALUE
			}
			continue
		}
		if f, ok := writtenCodeInterpreters[strings.TrimRight(prog, "0123456789.")]; ok && f != "" {
			return prog, f
		}
		break
	}
	return "", ""
}

// runsParts is what the script wrote into the directory run-parts runs
// (Round 20), and how it is judged: run-parts runs every program there.
func runsParts(inv *parse.Invocation, files map[string]string, key func(string) string) (text, interpreter, flag string) {
	if slices.Contains(inv.Args, "--test") || slices.Contains(inv.Args, "--list") {
		return "", "", ""
	}
	for k, a := range inv.Args {
		if strings.HasPrefix(a, "-") || inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			continue
		}
		dir := key(a)
		var names []string
		for f := range files {
			if strings.HasPrefix(f, dir+"/") && !strings.Contains(f[len(dir)+1:], "/") {
				names = append(names, f)
			}
		}
		switch len(names) {
		case 0:
			continue
		case 1:
			text := files[names[0]]
			interpreter, flag := shebang(text)
			return text, interpreter, flag
		}
		// Several programs: each is run, so all are judged, in the order
		// run-parts runs them, read as one shell text (a program in
		// another language then does not parse, and is judged unseen).
		slices.Sort(names)
		texts := make([]string, len(names))
		for n, f := range names {
			texts[n] = files[f]
		}
		return strings.Join(texts, "\n"), "", ""
	}
	return "", "", ""
}

// runsWritten returns the commands inv runs when it runs a file the
// script wrote with known text: bash x.sh, . ./x.sh, ./x.sh, python3 x.py.
func runsWritten(inv *parse.Invocation, files map[string]string, key func(string) string) ([]parse.Invocation, bool) {
	if len(files) == 0 {
		return nil, false
	}
	name := commandName(inv.Name)
	if name != "." {
		name = strings.TrimRight(name, "0123456789.")
	}
	// runner is the command that reads the file's code: the interpreter
	// its #! line names when the file is run by its path.
	file, flag, runner := "", "", commandName(inv.Name)
	if text, ok := files[key(inv.Name)]; ok && strings.Contains(inv.Name, "/") {
		file = text
		runner, flag = shebang(text) // ./x.sh, ./x.py
	} else if name == "run-parts" {
		file, runner, flag = runsParts(inv, files, key)
	} else if name == "make" || name == "gmake" {
		file = writtenRecipes(inv, files, key) // Round 14: printf 'x:\n\tcmd\n' >> Makefile; make x
	} else if name == "ninja" {
		file = writtenNinjaCommands(inv, files, key) // Round 14: printf 'rule r\n  command = ...' > b.ninja; ninja -f b.ninja
	} else if packageScriptRunners[name] {
		file = writtenPackageScripts(inv, files, key) // Round 14: echo '{"scripts":{"postinstall":...}}' > package.json; npm i
	} else if _, ok := projectFiles[name]; ok || name == "go" {
		file = writtenProjectCode(inv, name, files, key) // Round 17 (written_project.go)
		file += writtenTestCode(inv, name, files, key)   // Round 21 (written_tests.go)
	} else if f, ok := writtenCodeInterpreters[name]; ok {
		if text, ok := shadowedModule(inv, files, key); ok {
			file, flag = text, "-c" // Round 17: python -m json.tool with ./json.py written
		}
		for k, a := range inv.Args {
			if file != "" {
				break
			}
			if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
				return nil, false
			}
			if strings.HasPrefix(a, "-") {
				if a == "-c" || a == "-e" || a == "-m" || a == "-r" {
					return nil, false // code or a module on the command line
				}
				continue
			}
			text, ok := files[key(a)]
			if !ok {
				return nil, false
			}
			file, flag = text, f
			break
		}
	}
	if file == "" {
		return nil, false
	}
	code := file
	if flag != "" {
		code = runner + " " + flag + " " + shellQuote([]string{strings.TrimPrefix(file, "<?php")})
		if name == "source" || name == "." {
			code = file
		}
	}
	if invs, ok := codeRunBy(inv, code, "written file"); ok {
		return invs, true
	}
	return []parse.Invocation{{Name: file, Dynamic: true, Pos: inv.Pos, Via: append(append([]string(nil), inv.Via...), "written file")}}, true
}
