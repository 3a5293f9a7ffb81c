package policy

import (
	"regexp"
	"slices"
	"strings"

	"github.com/stockade/stockade/parse"
)

// More effects derived from what a command is given rather than from its
// operands: variables that name a program the command will run (CC,
// RUSTC_WRAPPER, CARGO_..._RUNNER, npm_config_script_shell), the commands
// of a sed script (e, s///e, w FILE, r FILE), the paths inline interpreter
// code names, and the files an in-place edit (sed -i, perl -i) rewrites.

// programVariable reports whether an environment variable named name tells
// the command it is given to which program to run: a compiler, linker,
// wrapper, runner, shell, editor, pager or helper.
func programVariable(name string) bool {
	u := strings.ToUpper(name)
	switch u {
	case "CC", "CXX", "CPP", "LD", "AR", "AS", "NM", "RANLIB", "STRIP", "OBJCOPY", "OBJDUMP", "FC", "F77", "HOSTCC", "HOSTCXX",
		"MAKE", "SHELL", "CONFIG_SHELL", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "RUSTC", "RUSTDOC", "GOROOT_BOOTSTRAP", "TERMINAL":
		return true
	}
	for _, suf := range []string{"_CC", "_CXX", "_LD", "_LINKER", "_RUNNER", "_WRAPPER", "_COMMAND", "_COMMANDS", "_CMD", "_SHELL", "_EDITOR", "_PAGER",
		"_PROGRAM", "_EXEC", "_EXECUTABLE", "_HELPER", "_ASKPASS", "_RUSTC", "_RUSTDOC", "_INTERPRETER", "_LAUNCHER", "_BINARY"} {
		if strings.HasSuffix(u, suf) {
			return true
		}
	}
	return false
}

// programValueEffect returns the effect of giving a command a program
// variable with value v, and whether there is one: a command line a shell
// would read specially, or a shell or interpreter told to run code, is a
// program the analysis cannot see; a program named by a path is run from
// that path. A bare program name (cc, clang, sccache, "ccache gcc") has no
// effect here.
func programValueEffect(v string) (effect, bool) {
	v = strings.TrimSpace(unquoteSimple(v))
	if v == "" {
		return effect{}, false
	}
	if strings.Contains(v, "$(") || strings.Contains(v, "`") {
		return effect{}, false // CC=$(which clang): the substitution is judged itself
	}
	if strings.ContainsAny(v, ";|&<>\n") {
		return effect{kind: effExec, path: v, unseen: true}, true
	}
	f := strings.Fields(v)
	if isInterpreter(commandName(f[0])) && len(f) > 1 {
		for _, w := range f[1:] {
			if w == "-c" || w == "-e" || strings.HasPrefix(w, "-") && strings.ContainsAny(w[1:], "ce") && len(w) <= 4 {
				return effect{kind: effExec, path: v, unseen: true}, true
			}
		}
	}
	prog := f[0]
	if k := strings.IndexByte(prog, '='); k > 0 && k < strings.IndexByte(prog, '/') {
		prog = prog[k+1:] // OCAMLFIND_COMMANDS='ocamlopt=/path': a tool's name, then its program
	}
	if strings.Contains(prog, "/") {
		return effect{kind: effExec, path: prog}, true
	}
	return effect{}, false
}

// codeVariable reports whether a variable named name holds code an
// interpreter runs before its program (LUA_INIT, LUA_INIT_5_4), as opposed
// to a file name (LUA_INIT=@init.lua).
func codeVariable(name string) bool {
	return strings.HasPrefix(strings.ToUpper(name), "LUA_INIT")
}

// optionsVariable reports whether a variable named name holds command-line
// options a tool or its runtime reads (ERL_AFLAGS, ELIXIR_ERL_OPTIONS,
// JULIA_OPTS, SBT_OPTS).
func optionsVariable(name string) bool {
	u := strings.ToUpper(name)
	for _, suf := range []string{"_OPTIONS", "_OPTS", "FLAGS", "_ARGS"} {
		if strings.HasSuffix(u, suf) {
			return true
		}
	}
	return false
}

// runsMarkers are what options that run a program at start-up look like in
// the runtimes that take them (erl -s os cmd, -eval, lua's os.execute), and
// the programs a reverse shell or a download needs.
var runsMarkers = []string{"os cmd", "os:cmd", "os.execute", "io.popen", "-eval", "system(", "/dev/tcp/", "sh -c", "sh -i", "| sh", "|sh", "| bash", "|bash", "-e /bin/", "nc ", "ncat ", "curl ", "wget "}

// optionsRun reports whether an options variable's value runs a program.
func optionsRun(v string) bool {
	for _, m := range runsMarkers {
		if strings.Contains(v, m) {
			return true
		}
	}
	return false
}

// unquoteSimple removes the quotes of a word written with simple quoting
// ("a b", 'a b', a" "b); escapes are left as they are.
func unquoteSimple(s string) string {
	if !strings.ContainsAny(s, `"'`) {
		return s
	}
	var b strings.Builder
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q == 0 && (c == '"' || c == '\''):
			q = c
		case q != 0 && c == q:
			q = 0
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// envEffects adds the effects of the variables given to inv (FOO=x cmd,
// env FOO=x cmd) and of those export and declare give every later command.
func envEffects(inv *parse.Invocation, a *argv, b *effectBuilder) {
	one := func(as string) {
		name, val, ok := strings.Cut(as, "=")
		if !ok {
			return
		}
		switch {
		case codeVariable(name) && val != "" && !strings.HasPrefix(unquoteSimple(val), "@"):
			b.push(effect{kind: effExec, path: name + " code", unseen: true})
			return
		case codeVariable(name) && val != "":
			b.add(effExec, strings.TrimPrefix(unquoteSimple(val), "@"))
			return
		case optionsVariable(name) && optionsRun(val):
			b.push(effect{kind: effExec, path: name + " options", unseen: true})
			return
		case !programVariable(name):
			return
		}
		if e, ok := programValueEffect(val); ok {
			if e.unseen {
				b.push(e)
			} else {
				b.add(effExec, e.path)
			}
		}
	}
	for _, as := range inv.Env {
		one(as)
	}
	switch a.name {
	case "export", "declare", "typeset", "readonly", "local", "env":
		for k, w := range inv.Args {
			if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
				continue
			}
			one(w)
		}
	}
}

// sedScriptEffects adds the effects of the commands of sed script code: e
// and the e flag of s run a shell command, w and W (and the w flag of s)
// write a file, r and R read one.
func sedScriptEffects(code string, b *effectBuilder) {
	n := len(code)
	i := 0
	skipBlank := func() {
		for i < n && (code[i] == ' ' || code[i] == '\t') {
			i++
		}
	}
	// restOfLine returns the text up to the end of the line (file names
	// and e's command take all of it).
	restOfLine := func() string {
		skipBlank()
		j := strings.IndexByte(code[i:], '\n')
		if j < 0 {
			j = n - i
		}
		s := code[i : i+j]
		i += j
		return strings.TrimSpace(s)
	}
	// delimited skips a part ended by delim, with \ escaping.
	delimited := func(delim byte) {
		for i < n && code[i] != delim {
			if code[i] == '\\' {
				i++
			}
			i++
		}
		i++ // the delimiter
	}
	address := func() {
		skipBlank()
		for i < n {
			switch c := code[i]; {
			case c >= '0' && c <= '9' || c == '$' || c == '~' || c == '+':
				i++
			case c == '/':
				i++
				delimited('/')
				for i < n && (code[i] == 'I' || code[i] == 'M') {
					i++
				}
			case c == '\\' && i+1 < n:
				d := code[i+1]
				i += 2
				delimited(d)
			case c == ',':
				i++
				skipBlank()
			default:
				return
			}
		}
	}
	for steps := 0; i < n && steps < 10000; steps++ {
		for i < n && strings.IndexByte(" \t\n;{}", code[i]) >= 0 {
			i++
		}
		if i >= n {
			break
		}
		if code[i] == '#' {
			restOfLine()
			continue
		}
		address()
		skipBlank()
		if i < n && code[i] == '!' {
			i++
			skipBlank()
		}
		if i >= n {
			break
		}
		cmd := code[i]
		i++
		switch cmd {
		case 'e':
			b.push(effect{kind: effExec, path: "sed e " + restOfLine(), unseen: true})
		case 'w', 'W':
			if f := restOfLine(); f != "" && f != "/dev/stdout" && f != "/dev/stderr" {
				b.add(effWrite, f)
			}
		case 'r', 'R':
			if f := restOfLine(); f != "" && f != "/dev/stdin" {
				b.add(effRead, f)
			}
		case 'a', 'i', 'c', 'b', 't', 'T', ':', 'l', 'L', 'q', 'Q', 'v':
			// text or a label or a number: up to the end of the line
			// (GNU sed ends labels at ; too, which restOfLine over-reads
			// harmlessly: nothing after it on the line is judged).
			restOfLine()
		case 's':
			if i >= n {
				return
			}
			d := code[i]
			i++
			delimited(d)
			delimited(d)
			for i < n {
				f := code[i]
				switch {
				case f == 'e':
					i++
					b.push(effect{kind: effExec, path: "sed s///e", unseen: true})
					continue
				case f == 'w':
					i++
					if file := restOfLine(); file != "" && file != "/dev/stdout" && file != "/dev/stderr" {
						b.add(effWrite, file)
					}
				case strings.IndexByte("gpiImM0123456789", f) >= 0:
					i++
					continue
				}
				break
			}
		case 'y':
			if i >= n {
				return
			}
			d := code[i]
			i++
			delimited(d)
			delimited(d)
		}
	}
}

// inPlaceEdit reports whether sed or perl edits its file operands in
// place (sed -i, sed --in-place=.bak, perl -pi -e).
func inPlaceEdit(a *argv) bool {
	switch a.name {
	case "sed", "gsed":
		return a.hasShort('i') || containsLong(a.longs, "in-place")
	case "perl":
		for _, w := range a.dashWords {
			if strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.ContainsRune(w, 'i') {
				// -pi, -i.bak; -i is the first letter of its value-taking
				// cluster or after flags (-pi, -ni).
				k := strings.IndexByte(w, 'i')
				if !strings.ContainsAny(w[1:k], "eEIMmdxVlo0F") {
					return true
				}
			}
		}
	}
	return false
}

// codePaths returns the quoted strings of inline code that look like
// paths (".vscode/settings.json", "/etc/passwd", "~/.ssh/id_rsa"), at most
// a few dozen.
func codePaths(code string) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < 32; i++ {
		q := code[i]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		j := strings.IndexByte(code[i+1:], q)
		if j < 0 {
			break
		}
		s := code[i+1 : i+1+j]
		i += j + 1
		if k := strings.IndexAny(s, "*?["); k > 0 && !strings.ContainsAny(s[:k], " \t\n\\${}()<>|;&=,") {
			// a glob ("~/.ssh/*", "/etc/ssh/ssh_host_*"): the code reads
			// what the directory before it holds
			if d := strings.LastIndexByte(s[:k], '/'); d > 0 {
				s = s[:d]
			}
		}
		if len(s) < 2 || len(s) > 256 || strings.ContainsAny(s, " \t\n\\$*?{}()<>|;&=,") {
			continue
		}
		if strings.Contains(s, "/") || s[0] == '.' || s[0] == '~' {
			out = append(out, s)
		}
	}
	return out
}

// codeDownloadTo: a call that copies an address into a file, and the file.
var codeDownloadTo = regexp.MustCompile(`\b(?:copy|urlretrieve|download_file|DownloadFile|download|IO\.copy_stream|FileUtils\.copyURLToFile)\s*\(\s*(?:URI\.open\(\s*|new\s+URL\(\s*)?["'](?:https?|ftp)://[^"']*["']\s*\)?\s*,\s*(?:new\s+File\(\s*)?["']([^"'\s$]+)["']`)

// codeWrites reports whether inline code opens a file for writing, in one
// of the common spellings of the interpreters.
func codeWrites(code string) bool {
	for _, m := range []string{`"w"`, `'w'`, `"a"`, `'a'`, `"wb"`, `'wb'`, `"w+"`, `'w+'`, `"a+"`, `'a+'`, `">"`, `">>"`, `'>'`, `'>>'`,
		"write(", "writeFile", "appendFile", "write_text", "write_bytes", "dump(", "File.write", "IO.write", ".rename(", "copyfile(", "copy(", "move(", "symlink("} {
		if strings.Contains(code, m) {
			return true
		}
	}
	return false
}

// inlineCodeEffects adds the effects of inline interpreter code other than
// a shell's (the shell's commands are judged one by one): the paths it
// names are read, and written when it opens files for writing; a sed
// script's commands.
func inlineCodeEffects(inv *parse.Invocation, a *argv, b *effectBuilder) {
	ic := inv.InlineCode
	if ic == nil || ic.Dynamic {
		return
	}
	interp := commandName(ic.Interpreter)
	switch {
	case interp == "sed" || interp == "gsed":
		sedScriptEffects(ic.Code, b)
		return
	case interp == "sh" || interp == "bash" || interp == "dash" || interp == "zsh" || interp == "ksh" || interp == "ash" || interp == "mksh" || interp == "fish" || interp == "busybox":
		return
	}
	if codeRunsProgram(ic.Code) {
		b.push(effect{kind: effExec, path: interp + " code", unseen: true})
	}
	if strings.Contains(ic.Code, "://") {
		// copy('https://x/installer', 'i.php'), urlretrieve(URL, "a.py"):
		// the file named second is written with what the address gives,
		// a plain name too.
		for _, m := range codeDownloadTo.FindAllStringSubmatch(ic.Code, -1) {
			start := len(b.all)
			b.add(effWrite, m[1])
			for k := start; k < len(b.all); k++ {
				b.all[k].created = true // downloaded, as a fetch's writes are
			}
		}
	}
	paths := codePaths(ic.Code)
	if len(paths) == 0 {
		return
	}
	w := codeWrites(ic.Code)
	home := codeNamesHome(ic.Code)
	for _, p := range paths {
		b.add(effRead, p)
		if w {
			b.add(effWrite, p)
		}
		if home && (strings.HasPrefix(p, "/.") || strings.HasPrefix(p, ".") && !strings.HasPrefix(p, "..") && !strings.HasPrefix(p, "./")) {
			// HOME + "/.npmrc", join(homedir(), ".aws/credentials"): a
			// dot file joined to the home directory the code looks up.
			h := "~/" + strings.TrimPrefix(p, "/")
			b.add(effRead, h)
			if w {
				b.add(effWrite, h)
			}
		}
	}
}

// homeLookups are the ways inline code finds the user's home directory.
var homeLookups = []string{"HOME", "homedir", "home()", "expanduser", "Dir.home", "getpwuid", "user-home", "UserHomeDir", "home_dir", "homeDir", "USERPROFILE"}

// codeNamesHome reports whether inline code looks up the home directory
// (process.env.HOME, os.homedir(), getenv("HOME"), Path.home()), so that a
// dot file it joins to it is one in the home.
func codeNamesHome(code string) bool {
	for _, h := range homeLookups {
		if strings.Contains(code, h) {
			return true
		}
	}
	return false
}

// isVim: the command reads Ex commands from +cmd, -c and --cmd.
func isVim(name string) bool {
	switch name {
	case "vi", "vim", "nvim", "ex", "view", "gvim", "rvim", "rview", "vimdiff", "nvim-qt", "evim":
		return true
	}
	return false
}

// vimEffects adds the effects of the Ex commands an editor is given on its
// command line: those that run a program (!, :r !, :w !, :terminal, the
// script interfaces lua, python, perl, ruby, tcl, and system() and
// friends) run one the analysis cannot see; -S and :source run a file.
func vimEffects(inv *parse.Invocation, b *effectBuilder) {
	args := inv.Args
	for k := 0; k < len(args); k++ {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			continue
		}
		a := args[k]
		var code string
		switch {
		case a == "--":
			return
		case strings.HasPrefix(a, "+"):
			code = a[1:]
		case (a == "-c" || a == "--cmd") && k+1 < len(args):
			k++
			if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
				b.push(effect{kind: effExec, path: args[k], unseen: true})
				continue
			}
			code = args[k]
		case a == "-S" && k+1 < len(args):
			k++
			b.add(effExec, args[k])
			continue
		default:
			continue
		}
		if vimCodeRuns(code) {
			b.push(effect{kind: effExec, path: "vim " + code, unseen: true})
		}
		if f, ok := vimSourced(code); ok {
			b.add(effExec, f)
		}
	}
}

// vimCodeRuns reports whether Ex code runs a program or code of another
// language.
func vimCodeRuns(code string) bool {
	lower := strings.ToLower(code)
	for _, f := range []string{"system(", "systemlist(", "jobstart(", "job_start(", "termopen(", "term_start(", "os.execute", "io.popen", "libcall", "vim.fn.system", "vim.system"} {
		if strings.Contains(lower, f) {
			return true
		}
	}
	for _, cmd := range strings.FieldsFunc(code, func(r rune) bool { return r == '|' || r == '\n' }) {
		cmd = strings.TrimLeft(cmd, " \t:")
		// a range: %, ., $, numbers, marks, patterns and ,;
		cmd = strings.TrimLeft(cmd, "%.$0123456789,;'<>+- ")
		if strings.HasPrefix(cmd, "!") {
			return true
		}
		name := cmd
		if i := strings.IndexFunc(cmd, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }); i >= 0 {
			name = cmd[:i]
		}
		rest := strings.TrimLeft(cmd[len(name):], " \t")
		switch name {
		case "r", "re", "rea", "read", "w", "wr", "wri", "writ", "write":
			if strings.HasPrefix(rest, "!") {
				return true
			}
		case "lua", "luado", "luafile", "py", "pyt", "pyth", "pytho", "python", "py3", "python3", "pyx", "pythonx", "pydo", "py3do", "pyxdo", "pyf", "pyfile", "py3f", "py3file", "pyxfile",
			"perl", "perld", "perldo", "rub", "ruby", "rubyd", "rubydo", "rubyf", "rubyfile", "tc", "tcl", "tcld", "tcldo", "tclf", "tclfile", "mz", "mzscheme", "mzf", "mzfile",
			"sh", "she", "shell", "ter", "term", "termi", "termin", "termina", "terminal", "exe", "exec", "execu", "execut", "execute",
			"cal", "call", "let", "mak", "make", "lmak", "lmake", "gr", "grep", "lgr", "lgrep", "fil", "filter":
			// call/let/execute build commands at run time; make and
			// grep run 'makeprg'/'grepprg'; filter runs one.
			if name == "call" || name == "cal" || name == "let" {
				continue // harmful calls are caught by the function names above
			}
			return true
		}
	}
	return false
}

// vimSourced returns the file Ex code sources (:source FILE, :so FILE).
func vimSourced(code string) (string, bool) {
	cmd := strings.TrimLeft(code, " \t:")
	name, rest, _ := strings.Cut(cmd, " ")
	switch name {
	case "so", "sou", "sour", "sourc", "source", "luafile", "pyfile", "py3file", "rubyfile":
		if f := strings.TrimSpace(rest); f != "" {
			return f, true
		}
	}
	return "", false
}

// homeOperandReads: a command the signatures table does not know is taken
// to read the files under the home directory it is handed as operands
// or as option values (xmllint --xpath X ~/.m2/settings.xml, helm
// --kubeconfig ~/.kube/config): a tool nobody described still reads what
// it is given. Only the path as named: a directory is not taken to be
// walked (./configure --prefix ~/.local). Tools that only look at names
// (ls, stat, test, cd) read nothing.
func homeOperandReads(inv *parse.Invocation, a *argv, b *effectBuilder) {
	if inv.Dynamic || wordTools[a.name] && a.name != "git" {
		// git reads what it is handed too (git diff --no-index /dev/null
		// ~/.git-credentials, git hash-object ~/.netrc).
		return
	}
	for k, w := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			if h := homePath(w); h != "" {
				w = h
			}
		}
		if strings.HasPrefix(w, "~/") {
			b.push(effect{kind: effRead, path: homeAlias(b.resolve(w)), exact: true})
		} else if a.name != "git" {
			embeddedHomeReads(w, inv.DynamicArgs != nil && inv.DynamicArgs[k], b)
		}
	}
}

// embeddedHomeReads: a path under the home written inside a longer
// argument, such as a query or code given to a tool
// (sqlite3 :memory: "select readfile('$HOME/.aws/credentials')", emacs
// --eval '(insert-file-contents "~/.authinfo")'), is read by the tool that
// runs it. Only the path as written.
//
// Round 17: so is a file handed over by @ (curl -d @~/.netrc, http POST URL
// @~/.python_history, -F file=@~/.pgpass): httpie expands the ~ itself, and
// the command says which file it means.
func embeddedHomeReads(w string, dyn bool, b *effectBuilder) {
	if len(w) > 4096 || !strings.ContainsAny(w, " ('\"`") && !atHomeFile(w) || dyn && (strings.Contains(w, "$(") || strings.Contains(w, "`")) {
		return // a command substitution's output is unknown, not the path it names
	}
	for _, pre := range []string{"~/", "$HOME/", "${HOME}/"} {
		for rest := w; ; {
			k := strings.Index(rest, pre)
			if k < 0 {
				break
			}
			if k > 0 && (isWordByte(rest[k-1]) || rest[k-1] == '/' || rest[k-1] == '.') {
				rest = rest[k+len(pre):]
				continue
			}
			p := rest[k+len(pre):]
			end := strings.IndexAny(p, " \t\n'\"()`;,|&<>$*?[]{}")
			if end >= 0 {
				p = p[:end]
			}
			rest = rest[k+len(pre)+len(p):]
			if p != "" {
				b.push(effect{kind: effRead, path: homeAlias(normPath("~/"+p, b.at)), exact: true})
			}
		}
	}
}

// atHomeFile reports whether w hands a tool a file under the home by @
// (@~/x, name=@~/x, name@$HOME/x).
func atHomeFile(w string) bool {
	return strings.Contains(w, "@~/") || strings.Contains(w, "@$HOME/") || strings.Contains(w, "@${HOME}/")
}

// namesFromStdin reports whether the command reads the names of the files
// it archives or copies from its standard input (cpio -o, tar -T -, zip
// -@, rsync --files-from=-, pax -w).
func namesFromStdin(a *argv) bool {
	switch a.name {
	case "cpio":
		return a.hasShort('o') || a.hasShort('p') || containsLong(a.longs, "create") || containsLong(a.longs, "pass-through")
	case "pax":
		return a.hasShort('w') && len(a.positionals) == 0
	case "zip":
		return slices.Contains(a.dashWords, "-@") || a.hasShort('@')
	case "tar", "bsdtar", "gtar", "rsync":
		for k, w := range a.words {
			if (w == "-T" || w == "--files-from") && k+1 < len(a.words) && a.words[k+1] == "-" || w == "--files-from=-" || w == "-T-" {
				return true
			}
		}
	}
	return false
}

// pipedNameReads: the file names a command writes to the pipe (printf
// '%s\n' ~/.netrc, find ~/.ssh) are read by the archiver reading them.
func pipedNameReads(up *argv, b *effectBuilder) {
	switch up.name {
	case "printf", "echo", "print", "find", "ls":
	default:
		return
	}
	for k, w := range up.words {
		if up.name == "printf" && k == 0 || strings.HasPrefix(w, "-") || up.name == "find" && len(up.positionals) > 0 && w != up.positionals[0] {
			continue
		}
		if strings.HasPrefix(w, "~") || strings.HasPrefix(w, "/") || strings.Contains(w, "/") {
			b.add(effRead, w)
		}
	}
}

// programCalls are the calls that run a program, fetch code or evaluate a
// string in the languages whose one-liners the parser reads (Elixir,
// Erlang, Haskell, OCaml, Julia, R, PHP, Lua, Java, Rust, Guile), beyond those
// the inline-code-runs-programs rule spells: plain text, so that judging
// everyday code costs a few substring searches, not a regular expression.
var programCalls = []string{
	"System.cmd", ":os.cmd", "os:cmd", "callCommand", "callProcess", "readProcess", "spawnCommand", "spawnProcess", "createProcess", "rawSystem",
	"ProcessBuilder", "Sys.command", "Unix.system", "Unix.exec", "Unix.open_process", "shell_exec", "proc_open", "passthru", "pcntl_exec",
	"Command::new", "run(`", ":httpc.", "httpc:", "HTTPoison", "Req.get", "Req.post", "Downloads.download", "download.file", "HTTP.get",
	"HTTP.request", "eval_string", "include_string", "Code.eval", "loadstring", "(system* ", "open-pipe",
}

// codeRunsProgram reports whether inline code runs a program (a call of
// programCalls; system or exec given a string, a variable or a call's
// result without parentheses: perl's system pack(...)), or evaluates code
// it fetches (source("https://..."), include("http://...")).
func codeRunsProgram(code string) bool {
	for _, c := range programCalls {
		if strings.Contains(code, c) {
			return true
		}
	}
	for _, verb := range []string{"system", "exec"} {
		for i := 0; ; {
			k := strings.Index(code[i:], verb)
			if k < 0 {
				break
			}
			k += i
			i = k + len(verb)
			if k > 0 && isWordByte(code[k-1]) || i >= len(code) || code[i] != ' ' && code[i] != '\t' {
				continue
			}
			rest := strings.TrimLeft(code[i:], " \t")
			if rest == "" {
				continue
			}
			if strings.IndexByte("$@\"'`", rest[0]) >= 0 {
				return true
			}
			j := 0
			for j < len(rest) && isWordByte(rest[j]) {
				j++
			}
			if j > 0 && strings.HasPrefix(strings.TrimLeft(rest[j:], " \t"), "(") {
				return true
			}
		}
	}
	for i := 0; ; {
		k := strings.Index(code[i:], "http")
		if k < 0 {
			return false
		}
		k += i
		i = k + 4
		if !strings.HasPrefix(code[k:], "http://") && !strings.HasPrefix(code[k:], "https://") {
			continue
		}
		if evaluatesURL(code[:k]) {
			return true
		}
	}
}

// evaluatesURL reports whether the code before a URL hands it to a call
// that evaluates what it names, directly (source("https://...")) or
// through calls that fetch it (include(download("http://...")),
// evaluate(new URL('http://...').text)).
func evaluatesURL(before string) bool {
	for range 4 {
		before = strings.TrimRight(before, " \t(\"'")
		j := len(before)
		for j > 0 && isWordByte(before[j-1]) {
			j--
		}
		switch w := before[j:]; {
		case w == "source" || w == "include" || w == "load" || w == "require" || w == "import" || w == "exec" || strings.HasPrefix(w, "eval"):
			return true
		case !fetchCalls[w]:
			return false
		}
		before = before[:j]
		for strings.HasSuffix(before, ".") { // Downloads.download, urllib.request.urlopen
			before = strings.TrimRightFunc(before[:len(before)-1], func(r rune) bool { return r < 128 && isWordByte(byte(r)) })
		}
	}
	return false
}

// fetchCalls: calls that fetch what a URL names, for evaluatesURL.
var fetchCalls = map[string]bool{"download": true, "URL": true, "new": true, "urlopen": true, "fetch": true, "get": true, "read": true, "open": true, "URI": true, "uri": true, "url": true, "Request": true}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// wholeWord reports whether name stands in text as a whole word (no
// letter, digit or underscore on either side) at an offset keep accepts.
func wholeWord(text, name string, keep func(k int) bool) bool {
	if name == "" {
		return false
	}
	for k := strings.Index(text, name); k >= 0; {
		end := k + len(name)
		if (k == 0 || !isWordByte(text[k-1])) && (end == len(text) || !isWordByte(text[end])) && keep(k) {
			return true
		}
		n := strings.Index(text[end:], name)
		if n < 0 {
			return false
		}
		k = end + n
	}
	return false
}

// handedCreated: a program the signatures table does not know, handed a
// file the script downloaded (as an operand or an option's value: runghc
// x.hs, java -jar x.jar, scons -f x), is taken to run it, as an
// interpreter runs its script; the table's commands and onlyReaders say
// which programs only read what they are given.
func handedCreated(inv *parse.Invocation, a *argv, b *effectBuilder) {
	if len(b.created) == 0 || !b.cwdKnown || wordTools[a.name] || onlyReaders[a.name] {
		return
	}
	for k, w := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			continue
		}
		if strings.HasPrefix(w, "-") {
			_, v, ok := strings.Cut(w, "=")
			if !ok {
				continue
			}
			w = v
		}
		if w == "" {
			continue
		}
		p := b.resolve(w)
		if b.created[p] || b.created[homeAlias(p)] {
			b.push(effect{kind: effExec, path: p, created: true})
		}
	}
}

// onlyReaders: programs outside the signatures table that only read, list,
// check or unpack the files they are given, never run them.
var onlyReaders = map[string]bool{
	"unzip": true, "7zr": true, "bsdtar": true, "gtar": true, "gunzip": true, "bunzip2": true, "unxz": true, "unzstd": true,
	"lz4": true, "zstdcat": true, "xzcat": true, "bzcat": true, "cpio": true, "unsquashfs": true, "rpm2cpio": true, "ar": true,
	"shasum": true, "sha224sum": true, "sha384sum": true, "sum": true, "rhash": true, "gpgv": true, "minisign": true, "signify": true, "cosign": true,
	"openssl": true, "du": true, "xmllint": true, "mkfs.ext4": true, "mkfs": true, "identify": true, "exiftool": true, "pdftotext": true,
	"csvlook": true, "mlr": true, "dos2unix": true, "tidy": true, "jsonlint": true, "protoc": true,
	// Image loaders and uploaders read the file to store or send it.
	"docker": true, "podman": true, "nerdctl": true, "skopeo": true, "crane": true, "oras": true, "gh": true, "aws": true, "gsutil": true, "az": true,
}

// containerRuntimes: docker and the CLIs that take its options.
var containerRuntimes = map[string]bool{"docker": true, "podman": true, "nerdctl": true, "finch": true, "lima": true, "colima": true}

// mountEffects: a container runtime's bind mount (-v SRC:DST, --volume,
// --mount type=bind,source=SRC) hands the container the host path SRC, to
// read and, unless read-only, to write; named volumes are the runtime's own.
func mountEffects(inv *parse.Invocation, b *effectBuilder) {
	args := inv.Args
	for k := 0; k < len(args); k++ {
		w, dyn := args[k], inv.DynamicArgs != nil && inv.DynamicArgs[k]
		var spec string
		var mount bool
		switch {
		case w == "-v" || w == "--volume" || w == "--mount":
			if k+1 >= len(args) {
				return
			}
			k++
			spec, dyn, mount = args[k], inv.DynamicArgs != nil && inv.DynamicArgs[k], w == "--mount"
		case strings.HasPrefix(w, "--volume="):
			spec = w[len("--volume="):]
		case strings.HasPrefix(w, "--mount="):
			spec, mount = w[len("--mount="):], true
		case strings.HasPrefix(w, "-v") && len(w) > 2 && w[2] != '-':
			spec = w[2:]
		default:
			continue
		}
		if dyn {
			if spec = homePath(spec); spec == "" {
				continue // $PWD:/src: the workdir, or a value the analysis does not know
			}
		}
		src, ro := spec, false
		if mount {
			src = ""
			for _, f := range strings.Split(spec, ",") {
				key, val, _ := strings.Cut(f, "=")
				switch key {
				case "source", "src":
					src = val
				case "readonly", "ro":
					ro = val != "false"
				}
			}
		} else {
			var opts string
			src, opts, _ = strings.Cut(spec, ":")
			if _, o, ok := strings.Cut(opts, ":"); ok {
				ro = strings.Contains(o, "ro")
			}
		}
		if src == "" || src[0] != '/' && src[0] != '~' && src[0] != '.' {
			continue
		}
		b.add(effRead, src)
		if !ro {
			b.add(effWrite, src)
		}
	}
}

// findEffects: find -delete deletes under each of its roots (the words
// before its expression), resolved against the cds before it, so that
// cd ~ && find . -name x -delete deletes in the home directory. Round 19:
// -fprint, -fprint0, -fprintf and -fls write the file they name (find ~
// -name '*.pyc' -fprint ~/.bashrc overwrites it).
func findEffects(inv *parse.Invocation, b *effectBuilder) {
	for i := 0; i+1 < len(inv.Args); i++ {
		switch inv.Args[i] {
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if inv.DynamicArgs == nil || !inv.DynamicArgs[i+1] {
				b.add(effWrite, inv.Args[i+1])
			}
		}
	}
	if !slices.Contains(inv.Args, "-delete") {
		return
	}
	n := len(b.all)
	for _, root := range findRoots(inv) {
		b.add(effDelete, root)
	}
	switch {
	case findSelectsRegenerable(inv):
		b.markDisposable(n)
	case findSelects(inv, scratchName):
		b.markDisposableInWorkdir(n) // Round 21 (regenerable.go)
	}
}
