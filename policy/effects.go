package policy

import (
	"path"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Effects: what each invocation does to files, derived from its
// redirections, the signatures table (signatures.go) and where the script
// stands (its cd's), rather than from how it is spelled. Rules match them
// with writes, reads, deletes, executes, reads_denied, executes_created and
// program_unseen, so that a new spelling of a known effect (tee -a
// ~/.bashrc, cd ~/.ssh && base64 id_rsa, curl -o a URL; ruby a) is caught
// without a rule of its own.

// effectKind is what an invocation does to a path.
type effectKind byte

const (
	effRead   effectKind = 'r'
	effWrite  effectKind = 'w'
	effDelete effectKind = 'd'
	effExec   effectKind = 'x'
)

// effect is one thing an invocation does.
type effect struct {
	kind effectKind
	// path in the form patterns are written in (normPath): ~/..., /abs, or
	// relative to the workdir; relative paths are joined to the directory
	// the script's cd's lead to, when that is known.
	path string
	// created: for effExec, the file was written or downloaded by an
	// earlier command of the script; for effWrite, what is written is
	// downloaded (inline code's copy of an address into a file).
	created bool
	// madeHere: for effExec, an earlier command of the script built the
	// file from its sources or wrote it with text the script shows
	// (made_here.go), and nothing downloaded or overwrote it since.
	madeHere bool
	// unseen: for effExec, a program the analysis cannot read: a shell or
	// interpreter reads it from a redirection, /dev/stdin, a process
	// substitution or a dynamic here-string, or an option of the tool names
	// a program to run (tar -I, rsync -e, man -P ...).
	unseen bool
	// exact: for effRead by a command the signatures table does not
	// know, only the path as named is read, not a directory's contents.
	exact bool
	// disposable: for effDelete, only output the project's tools make
	// again (caches, objects, ignored files, a compose project's volumes),
	// in a project's tree (regenerable.go); the deletes key passes it by.
	disposable bool
}

// isInterpreter: the command reads a program from a file operand or from
// standard input.
func isInterpreter(name string) bool {
	switch strings.TrimRight(name, "0123456789.") {
	case "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "fish", "python", "ruby", "perl", "node", "nodejs", "php", "lua", "luajit", "Rscript", "tclsh", "wish", "osascript", "pwsh", "busybox":
		return true
	}
	return false
}

// effectsOf returns the effects of invocation i; they are computed for the
// whole script on first use.
func (ctx *scriptCtx) effectsOf(i int) []effect {
	if ctx.effects == nil {
		ctx.computeEffects()
	}
	return ctx.effects[i]
}

// computeEffects walks the invocations in order: each cd changes the
// directory later relative paths are resolved against, and each write marks
// a path created for the executions after it.
func (ctx *scriptCtx) computeEffects() {
	ctx.effects = make([][]effect, len(ctx.invs))
	b := effectBuilder{at: ctx.at, cwdKnown: true}
	// One backing array for the whole script; each invocation's effects
	// are a slice of it.
	b.all = make([]effect, 0, len(ctx.invs))
	for i := range ctx.invs {
		if ctx.invs[i].Function && parse.NumberCommand(ctx.invs[i].Name) {
			b.numberFuncs = true // nproc() { ...; }: its output is not a number (parse.NumberCode)
		}
	}
	for i := range ctx.invs {
		inv := &ctx.invs[i]
		a := ctx.arg(i)
		start := len(b.all)
		b.inv = inv
		for _, r := range inv.Redirects {
			target := r.Target
			if r.Dynamic {
				// < ~/.gnupg/*.key, > "$HOME"/.x: a path still known in part
				if target = homePath(r.Target); target == "" {
					if target = globPath(r.Target); target == "" {
						continue
					}
				}
			}
			switch {
			case isWriteOp(r.Op) && r.Op != ">&":
				b.add(effWrite, target)
			case r.Op == "<":
				b.add(effRead, target)
			}
		}
		if globbedName(inv.Name) {
			// /???/?m: the program is whatever file the pattern matches.
			b.push(effect{kind: effExec, path: inv.Name, unseen: true})
		} else if !inv.Dynamic && strings.Contains(inv.Name, "/") {
			if name := strings.TrimLeft(inv.Name, "\\"); !b.venvPython(name) {
				b.add(effExec, name)
			}
		}
		envEffects(inv, a, &b)
		configEnvEffects(inv, a, &b)
		if !inv.Dynamic {
			signatureEffects(inv, a, &b)
			toolProgramEffects(inv, a, &b)
			if a.name == "find" {
				findEffects(inv, &b)
			}
			ctx.foundFileReads(i, a, &b)
			inlineCodeEffects(inv, a, &b)
			if isVim(a.name) {
				vimEffects(inv, &b)
			}
			if containerRuntimes[a.name] && (a.subcommand == "run" || a.subcommand == "create" || a.subcommand == "container") {
				mountEffects(inv, &b)
			}
			if a.subcommand == "compose" || a.name == "docker-compose" || a.name == "podman-compose" {
				composeDownEffects(inv, a, &b)
				if isComposeRun(a) {
					mountEffects(inv, &b)
				}
			}
			if inv.PipedInto && i > 0 && namesFromStdin(a) {
				pipedNameReads(ctx.arg(i-1), &b)
			}
			if a.subcommand == "run" && (a.name == "go" || a.name == "deno" || a.name == "dart" || a.name == "bun") || sourceRunners[a.name] ||
				a.name == "dotnet" && (a.subcommand == "fsi" || a.subcommand == "script") {
				sourceRunEffects(a, &b)
				if a.name == "swift" && inv.PipedInto && inv.InlineCode == nil && len(a.positionals) > 0 && a.positionals[0] == "-" {
					// echo '...' | swift -: a program from the pipe, unseen
					b.push(effect{kind: effExec, path: "swift -", unseen: true})
				}
			}
			if jvmLaunchers[a.name] {
				jvmRunEffects(inv, &b)
			}
			if dir, ok := gitCleanDir(inv); ok && a.name == "git" && a.subcommand == "clean" && (b.cwd != "" || dir != ".") && gitCleanForced(a) {
				// git clean -f after a cd, or given -C, deletes the untracked
				// files there (cd ~ && git init && git clean -fdx empties the
				// home).
				n := len(b.all)
				b.add(effDelete, dir)
				if a.hasShort('X') && !a.hasShort('x') {
					b.markDisposable(n) // -X: only the files git ignores (regenerable.go)
				}
			}
			if a.name == "git" {
				gitOutputEffects(inv, &b)
				gitShownReads(inv, a, &b)
			}
			ctx.toolEffects(i, inv, a, &b)
		}
		effs := b.all[start:len(b.all):len(b.all)]
		if len(effs) > 0 {
			ctx.effects[i] = effs
		}
		// What this invocation leaves behind for the ones after it.
		switch {
		case inv.Dynamic:
		case a.name == "cd" || a.name == "pushd":
			dir := "~"
			if len(a.positionals) > 0 {
				dir = a.positionals[0]
			}
			if a.dynamicArg || dir == "-" {
				b.cwd, b.cwdKnown = "", false
				break
			}
			b.cwd = b.resolve(dir)
		case a.name == "git" && a.subcommand == "clone" && len(a.positionals) >= 2:
			dir := a.positionals[len(a.positionals)-1]
			if len(a.positionals) == 2 {
				dir = strings.TrimSuffix(path.Base(a.positionals[1]), ".git")
			}
			b.createdDirs = append(b.createdDirs, b.resolve(dir))
		case extractsHere(a.name):
			b.createdDirs = append(b.createdDirs, b.resolve("."))
		case a.name == "curl" && (a.hasShort('O') || containsLong(a.longs, "remote-name")) || a.name == "wget" && !hasWgetOutput(a):
			b.createdDirs = append(b.createdDirs, b.resolve(".")) // the file is named after the URL
		}
		if len(effs) > 0 {
			fetched := fetches(a.name) || ctx.fedByFetch(i)
			for _, e := range effs {
				if e.kind == effWrite && (fetched || e.created) {
					if b.created == nil {
						b.created = map[string]bool{}
					}
					b.created[e.path] = true
				}
			}
		}
		if !inv.Dynamic {
			b.noteMadeHere(inv, a, effs)
		}
	}
}

// sourceRunners run the source file they are given (tsx x.ts, ts-node
// x.ts); go run, deno run, dart run and bun run do too.
var sourceRunners = map[string]bool{"tsx": true, "ts-node": true, "esno": true, "swift": true, "runghc": true, "runhaskell": true, "kotlin": true, "scala-cli": true}

// sourceExts are the source files a runner compiles and runs.
var sourceExts = []string{".go", ".fsx", ".csx", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".tsx", ".jsx", ".dart", ".swift", ".hs", ".kts", ".scala", ".sc"}

// sourceRunEffects: go run /tmp/r.go runs the file it is given, as
// python3 /tmp/r.py does.
func sourceRunEffects(a *argv, b *effectBuilder) {
	for _, p := range a.positionals {
		for _, ext := range sourceExts {
			if strings.HasSuffix(p, ext) && !strings.Contains(p, "://") && !strings.Contains(p, "@") {
				b.add(effExec, p)
				break
			}
		}
	}
}

// jvmLaunchers run the archive or class path they are given.
var jvmLaunchers = map[string]bool{"java": true, "javaw": true, "jbang": true}

// jvmRunEffects: java -jar tool.jar runs the archive, java -cp a.jar Main
// and java -javaagent:a.jar the archives named, java Tool.java the source
// file, as python3 tool.py runs its file.
func jvmRunEffects(inv *parse.Invocation, b *effectBuilder) {
	args := inv.Args
	dyn := func(k int) bool { return inv.DynamicArgs != nil && inv.DynamicArgs[k] }
	for k := 0; k < len(args); k++ {
		w := args[k]
		switch {
		case (w == "-jar" || w == "-cp" || w == "-classpath" || w == "--class-path") && k+1 < len(args):
			k++
			if dyn(k) {
				continue
			}
			for _, p := range strings.Split(args[k], ":") {
				if p != "" && !strings.HasSuffix(p, "*") {
					b.add(effExec, p)
				}
			}
			if w == "-jar" {
				return // the rest are the program's arguments
			}
		case strings.HasPrefix(w, "-javaagent:") && !dyn(k):
			if v, _, _ := strings.Cut(strings.TrimPrefix(w, "-javaagent:"), "="); v != "" {
				b.add(effExec, v)
			}
		case !strings.HasPrefix(w, "-"):
			if !dyn(k) && (strings.HasSuffix(w, ".java") || strings.HasSuffix(w, ".jar")) {
				b.add(effExec, w) // java Tool.java, jbang x.jar
			}
			return // the main class: the rest are its arguments
		}
	}
}

// globbedName reports whether a command word is a file-name pattern the
// shell expands ([ and [[ are the test commands).
func globbedName(name string) bool {
	return name != "[" && name != "[[" && strings.ContainsAny(name, "*?[") && !strings.ContainsAny(name, "$`")
}

// effectBuilder collects the effects of a script's invocations in order,
// with what earlier ones left: the directory cd'd into, the files fetched.
type effectBuilder struct {
	all         []effect
	at          places
	cwd         string
	cwdKnown    bool
	created     map[string]bool
	createdDirs []string
	madeHere    map[string]byte   // made_here.go: madeBuilt or madeText
	inv         *parse.Invocation // the invocation whose effects are being added
	numberFuncs bool              // a function is named like nproc or id (parse.NumberCommand)
}

func (b *effectBuilder) resolve(p string) string {
	if p == "" {
		return p
	}
	if !(p[0] == '/' || p[0] == '~' || strings.HasPrefix(p, "$HOME") || strings.HasPrefix(p, "${HOME}")) && b.cwd != "" {
		p = b.cwd + "/" + p
	}
	return normPath(p, b.at)
}

// userHomes: spellings of the user's own home from the user's name.
var userHomes = []string{"/home/$USER", "/home/${USER}", "/home/$LOGNAME", "/home/${LOGNAME}", "/home/$(whoami)", "/home/`whoami`", "/home/$(id -un)", "/home/`id -un`"}

// homeAlias writes a path in some user's home directory (/root/..., and
// /home/NAME/...) as one under ~: the analysis does not know whose home
// the command will run in, and a secret or startup file there is one
// whoever's it is. Programs run are left as written: a toolchain under
// another home (/root/.pyenv/.../python3) is not a look-alike planted in
// this one.
func homeAlias(p string) string {
	rest, ok := strings.CutPrefix(p, "/root")
	if !ok {
		var r string
		if r, ok = strings.CutPrefix(p, "/home/"); ok && r != "" {
			rest = ""
			if i := strings.IndexByte(r, '/'); i >= 0 {
				rest = r[i:]
			}
		}
	}
	if !ok || rest != "" && rest[0] != '/' {
		return p
	}
	return "~" + rest
}

// removesSources reports whether a is given an option of sig's removes.
func removesSources(sig *signature, a *argv) bool {
	for n := range sig.removes {
		if len(n) == 1 && a.hasShort(n[0]) || n[0] == '-' && contains(a.dashWords, n) {
			return true
		}
	}
	for _, l := range a.longs {
		if sig.removes[sig.fullLong(l)] {
			return true
		}
	}
	return false
}

// makeEffects: make runs the makefile it is given (-f), or the one in the
// directory it is sent to (-C DIR runs DIR/Makefile).
func makeEffects(opts []option, b *effectBuilder) {
	dir, file := "", false
	for _, o := range opts {
		switch o.name {
		case "C", "directory":
			if o.dyn {
				return
			}
			dir = path.Join(dir, o.value)
			if strings.HasPrefix(o.value, "/") || strings.HasPrefix(o.value, "~") {
				dir = o.value
			}
		case "f", "file", "makefile":
			file = true
		}
	}
	if dir != "" && !file {
		b.add(effExec, dir+"/Makefile")
	}
}

// makeProgramVariables are the make variables that name a program its
// recipes run (SHELL runs every recipe line).
var makeProgramVariables = map[string]bool{
	"SHELL": true, "MAKESHELL": true, "CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true, "AS": true, "FC": true, "GO": true,
	"PYTHON": true, "PERL": true, "RUSTC": true, "CARGO": true, "NODE": true, "NPM": true, "INSTALL": true, "STRIP": true, "RANLIB": true,
	"OBJCOPY": true, "LEX": true, "YACC": true, "M4": true, "MAKE": true, "JAVAC": true, "JAVA": true, "SED": true, "AWK": true,
}

// makeVariableEffects: make SHELL=/tmp/x (CC=..., PYTHON=...) runs that
// program for the recipes; a value with shell syntax runs what it says.
func makeVariableEffects(ops []word, b *effectBuilder) {
	for _, o := range ops {
		name, v, ok := strings.Cut(o.value, "=")
		if !ok || o.dyn || !makeProgramVariables[strings.TrimSuffix(strings.TrimSuffix(name, ":"), "+")] {
			continue
		}
		switch prog, _, _ := strings.Cut(strings.TrimSpace(v), " "); {
		case strings.ContainsAny(v, ";|&$`<>()\n"):
			b.push(effect{kind: effExec, path: v, unseen: true})
		case strings.Contains(prog, "/"):
			b.add(effExec, prog)
		}
	}
}

// socatEffects: socat's operands are addresses; FILE:, OPEN:, GOPEN: and
// CREATE: name a file it reads or writes (with -u it reads the first and
// writes the second, with -U the other way round), EXEC: and SYSTEM: a
// program.
func socatEffects(ops []word, a *argv, b *effectBuilder) {
	for j, o := range ops {
		kind, rest, ok := strings.Cut(o.value, ":")
		if !ok {
			continue
		}
		target, _, _ := strings.Cut(rest, ",")
		if o.dyn {
			if target = homePath(target); target == "" {
				continue // FILE:"$HOME/.pgpass" is still a known path
			}
		}
		switch strings.ToUpper(kind) {
		case "FILE", "OPEN", "GOPEN", "PIPE":
			if !(a.hasShort('u') && j > 0 || a.hasShort('U') && j == 0) {
				b.add(effRead, target)
			}
			if !(a.hasShort('u') && j == 0 || a.hasShort('U') && j > 0) {
				b.add(effWrite, target)
			}
		case "CREATE", "CREAT":
			b.add(effWrite, target)
		case "EXEC", "SYSTEM":
			b.push(effect{kind: effExec, path: rest, unseen: true})
		}
	}
}

// push records an effect as it is.
func (b *effectBuilder) push(e effect) { b.all = append(b.all, e) }

// add records an effect on path p, resolved first.
func (b *effectBuilder) add(k effectKind, p string) {
	if p == "" {
		return
	}
	e := effect{kind: k, path: b.resolve(p)}
	if e.path[0] == '.' {
		if alt := escapeAlias(e.path); alt != "" {
			b.add(k, alt) // ../../home/dev/.ssh/x: the path it reaches, too
		}
	}
	if k != effExec {
		e.path = homeAlias(e.path)
	} else if b.cwdKnown {
		e.created = b.created[e.path] || b.created[homeAlias(e.path)] || under(e.path, b.createdDirs)
		e.madeHere = !e.created && b.madeHere != nil && b.madeHereRun(b.inv, e.path)
	}
	b.all = append(b.all, e)
}

// extractsHere: the command writes files it names from an archive or a
// transfer into the directory it runs in (tar, unzip).
func extractsHere(name string) bool {
	return name == "tar" || name == "unzip" || name == "7z" || name == "bsdtar" || name == "tftp"
}

// fetches: the command brings in content from outside the script (a
// download, a copy from another host, a decoder of hidden text), so what it
// writes was never seen.
func fetches(name string) bool {
	switch name {
	case "curl", "wget", "aria2c", "fetch", "http", "https", "xh", "scp", "rsync", "sftp", "ftp", "tftp", "nc", "ncat", "socat", "base64", "xxd", "openssl", "gpg", "uudecode", "git":
		return true
	}
	return false
}

// fedByFetch reports whether invocation i reads a pipe from a command that
// fetches (curl URL | tee a).
func (ctx *scriptCtx) fedByFetch(i int) bool {
	if !ctx.invs[i].PipedInto {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		if fetches(ctx.arg(j).name) {
			return true
		}
		if !ctx.invs[j].PipedInto {
			return false
		}
	}
	return false
}

// plainProgram reports whether a program an option names is one of a few
// that only filter data (man -P cat, tar -I zstd, rsync -e ssh), with
// nothing a shell would read specially.
func plainProgram(v string) bool {
	if strings.ContainsAny(v, ";|&$`()<>!'\"\\\n") {
		return false
	}
	f := strings.Fields(v)
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "cat", "less", "more", "most", "gzip", "gunzip", "pigz", "zstd", "unzstd", "xz", "unxz", "bzip2", "lz4", "lzip", "lzop", "brotli", "ssh", "true", "head", "tail":
		return true
	}
	return false
}

// containsLong reports whether one of the written long options longs could
// be name (itself or an abbreviation of it).
func containsLong(longs []string, name string) bool {
	for _, l := range longs {
		if l != "" && strings.HasPrefix(name, l) {
			return true
		}
	}
	return false
}

func hasWgetOutput(a *argv) bool { return a.hasShort('O') || containsLong(a.longs, "output-document") }

// below reports whether path p is inside directory dir (not dir itself),
// comparing in place: no "dir/" string is built on this hot path.
func below(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// under reports whether p is one of dirs or inside one; "." stands for
// every path relative to the workdir.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if d == "." {
			if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "..") {
				return true
			}
			continue
		}
		if p == d || below(p, d) {
			return true
		}
	}
	return false
}

// signatureEffects adds the effects the command's signature gives its
// operands and option values.
func signatureEffects(inv *parse.Invocation, a *argv, b *effectBuilder) {
	sig := signatureOf(a.name)
	if sig == nil {
		homeOperandReads(inv, a, b)
		handedCreated(inv, a, b)
		return
	}
	ops, opts := operands(sig, inv)
	if !sig.patternFirst {
		for k, w := range inv.Args {
			embeddedHomeReads(w, inv.DynamicArgs != nil && inv.DynamicArgs[k], b) // sqlite3 :memory: "select readfile('$HOME/.netrc')"
		}
	}
	readsOnly := false
	for k := 0; k < len(sig.readsOnlyWith) && !readsOnly; k++ {
		readsOnly = a.hasShort(sig.readsOnlyWith[k])
	}
	for _, o := range opts {
		k, ok := sig.optionFiles[o.name]
		if !ok {
			continue
		}
		if k == 'w' && readsOnly {
			k = 'r'
		}
		if k == 'e' {
			v, ok := strings.CutPrefix(o.value, "exec=")
			if !ok {
				continue // tar --checkpoint-action=dot, =echo: no program
			}
			o.value, k = v, 'x'
		}
		switch {
		case k == 'x' && !plainProgram(o.value):
			b.push(effect{kind: effExec, path: o.value, unseen: true})
		case o.dyn:
		case k == 'r':
			b.add(effRead, o.value)
		case k == 'X':
			b.add(effExec, o.value) // a file that names programs to run (ssh -F config)
		case k == 'w':
			b.add(effWrite, o.value)
		}
	}
	if a.name == "dd" {
		for _, w := range inv.Args {
			if v, ok := strings.CutPrefix(w, "if="); ok {
				b.add(effRead, v)
			} else if v, ok := strings.CutPrefix(w, "of="); ok {
				b.add(effWrite, v)
			}
		}
	}
	switch a.name {
	case "make", "gmake":
		makeEffects(opts, b)
		makeVariableEffects(ops, b)
	case "socat":
		socatEffects(ops, a, b)
	}
	if sig.patternFirst && len(ops) > 0 && !hasPatternOpt(sig, opts) {
		ops = ops[1:]
	}
	apply := func(k effectKind, r role) {
		n := len(ops)
		for j, o := range ops {
			take := false
			switch r {
			case all:
				take = true
			case last:
				take = j == n-1 && n > 1
			case butLast:
				take = j < n-1
			case first:
				take = j == 0
			case butFirst, afterMode:
				take = j > 0
			}
			if take && !o.dyn {
				b.add(k, o.value)
			}
		}
	}
	inPlace := sig.writes == none && inPlaceEdit(a)
	if !inPlace {
		apply(effRead, sig.reads) // an in-place edit shows nothing of what it reads
	}
	if inPlace {
		// sed -i, perl -pi -e CODE: the files read are rewritten.
		if sig.reads == none {
			apply(effWrite, all)
		} else {
			apply(effWrite, sig.reads)
		}
	}
	for _, l := range a.longs {
		if p, ok := sig.impliedReads[sig.fullLong(l)]; ok {
			b.add(effRead, p)
		}
	}
	if sig.writes == last && len(ops) > 1 && !ops[len(ops)-1].dyn && strings.HasSuffix(ops[len(ops)-1].value, "/") {
		// cp a b dir/: each source lands in the directory under its own name.
		dir := ops[len(ops)-1].value
		for _, o := range ops[:len(ops)-1] {
			if !o.dyn {
				b.add(effWrite, dir+path.Base(o.value))
			}
		}
	}
	apply(effWrite, sig.writes)
	apply(effDelete, sig.deletes)
	for j := 0; sig.deletesAfter != nil && j < len(ops); j++ {
		if o := ops[j]; sig.deletesAfter[o.value] {
			for _, d := range ops[j+1:] {
				if !d.dyn {
					b.add(effDelete, d.value)
				}
			}
			break
		}
	}
	if sig.removes != nil && sig.deletes == none && removesSources(sig, a) {
		apply(effDelete, sig.reads)
	}
	if sig.execs != none && isInterpreter(a.name) {
		interpreterEffects(inv, a, ops, b)
	} else if (a.name == "source" || a.name == ".") && len(ops) > 0 && stdinPath(ops[0].value) {
		// . /dev/stdin <<< '...' runs its standard input, as bash /dev/stdin does
		b.push(effect{kind: effExec, path: ops[0].value, unseen: true})
	} else {
		apply(effExec, sig.execs)
	}
}

// interpreterEffects: the program a shell or interpreter runs is its first
// operand (unless code comes with -c/-e), or else its standard input.
func interpreterEffects(inv *parse.Invocation, a *argv, ops []word, b *effectBuilder) {
	if isShell(a.name) && shellChecksOnly(inv) {
		for _, o := range ops {
			if !o.dyn {
				b.add(effRead, o.value)
			}
		}
		return
	}
	if isShell(a.name) && shellProgramComputed(inv, b.numberFuncs) {
		b.push(effect{kind: effExec, path: a.name + " computed", unseen: true})
		return
	}
	if ic := inv.InlineCode; ic != nil {
		if ic.Dynamic && !a.hasShort('c') {
			b.push(effect{kind: effExec, path: ic.Code, unseen: true}) // < file, <<< "$(...)"
		}
		if !isShell(a.name) {
			// perl -ne print FILE, ruby -pe 1 FILE: the operands are the
			// code's input (<>, ARGF) or its arguments, read as named.
			for _, o := range ops {
				if !o.dyn && o.value != ic.Code {
					b.add(effRead, o.value)
				}
			}
		}
		return // code on the command line, or a here-document the analysis read
	}
	// -c gives code; to a shell, -e and -m are errexit and job control,
	// which still run the script named after them (sh -e {}).
	if a.hasShort('c') || containsLong(a.longs, "command") ||
		!isShell(a.name) && (a.hasShort('e') || a.hasShort('m') || containsLong(a.longs, "eval")) {
		return
	}
	if len(ops) > 0 {
		o := ops[0]
		switch {
		case o.dyn && strings.HasPrefix(o.value, "<("):
			b.push(effect{kind: effExec, path: o.value, unseen: true})
		case stdinPath(o.value) || o.value == "-":
			b.push(effect{kind: effExec, path: o.value, unseen: true})
		case !o.dyn:
			b.add(effExec, o.value)
		}
		return
	}
	if len(inv.Via) > 0 && inv.Via[len(inv.Via)-1] == "coproc" && !inv.PipedInto && !hasStdinRedirect(inv) {
		// coproc sh: its program is what the script writes to the pipe
		b.push(effect{kind: effExec, path: "coproc", unseen: true})
		return
	}
	for _, r := range inv.Redirects {
		if r.FD != "" && r.FD != "0" {
			continue
		}
		switch r.Op {
		case "<", "<>", "<&":
			b.push(effect{kind: effExec, path: r.Target, unseen: true})
		case "<<<":
			if r.Dynamic {
				b.push(effect{kind: effExec, path: r.Target, unseen: true})
			}
		}
	}
}

// gitCleanForced reports whether git clean is told to delete (-f, --force)
// rather than to list (-n, --dry-run).
func gitCleanForced(a *argv) bool {
	return (a.hasShort('f') || containsLong(a.longs, "force")) && !a.hasShort('n') && !containsLong(a.longs, "dry-run")
}

// hasStdinRedirect reports whether inv's standard input is redirected.
func hasStdinRedirect(inv *parse.Invocation) bool {
	for _, r := range inv.Redirects {
		if (r.FD == "" || r.FD == "0") && strings.HasPrefix(r.Op, "<") {
			return true
		}
	}
	return false
}

// stdinPath reports whether p names the standard input or another open
// descriptor (/dev/stdin, /dev/fd/N, /proc/self/fd/N): a program read from
// there is one the analysis does not see.
func stdinPath(p string) bool {
	return p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/")
}

// word is one operand, with whether it is dynamic.
type word struct {
	value string
	dyn   bool
}

// option is an option that took a value.
type option struct {
	name  string // without dashes, the full long name when abbreviated; one letter for a short option
	value string
	dyn   bool
}

// operands splits inv's arguments into operands and the options that took a
// value, by sig's rules.
func operands(sig *signature, inv *parse.Invocation) (ops []word, opts []option) {
	args := inv.Args
	var home []bool // words that are "$HOME/..." with nothing else dynamic: paths under ~
	for i, d := range inv.DynamicArgs {
		if !d {
			continue
		}
		p := homePath(args[i])
		if p == "" {
			p = globPath(args[i])
		}
		if p != "" {
			if home == nil {
				home = make([]bool, len(args))
				args = append([]string(nil), args...)
			}
			home[i] = true
			args[i] = p
		}
	}
	dyn := func(i int) bool { return inv.DynamicArgs != nil && inv.DynamicArgs[i] && (home == nil || !home[i]) }
	done := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case done || len(w) < 2 || w[0] != '-' || dyn(i):
			ops = append(ops, word{w, dyn(i)})
		case w == "--":
			done = true
		case w[1] == '-':
			name, val, hasVal := strings.Cut(w[2:], "=")
			full := sig.fullLong(name)
			if hasVal {
				opts = append(opts, option{full, val, false})
			} else if sig.takesLong(full) && i+1 < len(args) {
				i++
				opts = append(opts, option{full, args[i], dyn(i)})
			}
		case strings.HasPrefix(w, "-TT"): // zip -TT cmd
			if len(w) > 3 {
				opts = append(opts, option{"TT", strings.TrimPrefix(w[3:], "="), false})
			} else if i+1 < len(args) {
				i++
				opts = append(opts, option{"TT", args[i], dyn(i)})
			}
		default:
			for j := 1; j < len(w); j++ {
				c := w[j]
				if strings.IndexByte(sig.valueShort, c) < 0 {
					continue
				}
				if j+1 < len(w) {
					opts = append(opts, option{string(c), w[j+1:], false})
				} else if i+1 < len(args) {
					i++
					opts = append(opts, option{string(c), args[i], dyn(i)})
				}
				break
			}
		}
	}
	return ops, opts
}

// fullLong returns the long option name w stands for under sig's rules:
// itself, or with getopt_long abbreviation the one option it is a unique
// prefix of.
func (s *signature) fullLong(w string) string {
	if !s.abbrev || w == "" {
		return w
	}
	match := ""
	try := func(n string) bool {
		if n == w {
			match = n
			return true
		}
		if len(n) > 1 && strings.HasPrefix(n, w) {
			if match != "" && match != n {
				match = "\x00" // ambiguous
			} else {
				match = n
			}
		}
		return false
	}
	for _, n := range s.valueLong {
		if try(n) {
			return n
		}
	}
	for n := range s.optionFiles {
		if try(n) {
			return n
		}
	}
	for n := range s.impliedReads {
		if try(n) {
			return n
		}
	}
	for n := range s.removes {
		if try(n) {
			return n
		}
	}
	if match == "" || match == "\x00" {
		return w
	}
	return match
}

func (s *signature) takesLong(name string) bool {
	for _, n := range s.valueLong {
		if n == name {
			return true
		}
	}
	_, ok := s.optionFiles[name]
	return ok && len(name) > 2
}

func hasPatternOpt(sig *signature, opts []option) bool {
	for _, o := range opts {
		if len(o.name) == 1 && strings.IndexByte(sig.patternOpts, o.name[0]) >= 0 {
			return true
		}
		if o.name == "regexp" || o.name == "file" || o.name == "expression" {
			return true
		}
	}
	return false
}

// anyEffect reports whether invocation i has an effect of kind k whose path
// matches one of globs.
func (ctx *scriptCtx) anyEffect(i int, k effectKind, l *globList) bool {
	for _, e := range ctx.effectsOf(i) {
		if e.kind == k && !e.unseen && !e.disposable && l.matches(e.path, e.path) {
			return true
		}
	}
	return false
}

// anyTreeRead reports whether invocation i reads a whole directory whose
// contents a pattern of l names (l holds ~/.thunderbird/**: tar c
// ~/.thunderbird, cp -r, zip -r, grep -r read every file below it). As in
// holdsAny, the home directory, / and the workdir are left to what reads
// them.
func (ctx *scriptCtx) anyTreeRead(i int, l *globList) bool {
	for _, e := range ctx.effectsOf(i) {
		if e.kind != effRead || e.unseen || e.exact || e.path == "~" || e.path == "/" || e.path == "." || strings.HasPrefix(e.path, "..") {
			continue
		}
		if p := strings.TrimSuffix(e.path, "/") + "/\x00"; l.matches(p, p) {
			return true
		}
	}
	return false
}

// readsDenied reports whether invocation i reads (or runs) a path on the
// policy's deny_read list or inside one.
func (ctx *scriptCtx) readsDenied(i int) bool {
	for _, e := range ctx.effectsOf(i) {
		if (e.kind == effRead || e.kind == effExec) && !e.unseen && !publicKey(e.path) &&
			(under(e.path, ctx.p.denyRead) || !e.exact && holdsAny(e.path, ctx.p.denyRead) || patternUnder(e.path, ctx.p.denyRead)) {
			return true
		}
	}
	return false
}

// publicKey reports whether p names a public key (~/.ssh/id_ed25519.pub),
// which is meant to be shown: reading one reads no secret. The sandbox
// still refuses it where the whole store is on deny_read.
func publicKey(p string) bool {
	return strings.HasSuffix(p, ".pub") && !strings.ContainsAny(p, "*?[")
}

// patternUnder reports whether the file-name pattern p (~/.s?h/id_*,
// ~/.*/credentials) can name a path on or under one of dirs: each of
// its leading segments matches the directory's segment, as bash matches
// them (a dot file only by a pattern that starts with a dot).
func patternUnder(p string, dirs []string) bool {
	if !strings.ContainsAny(p, "*?[") {
		return false
	}
	ps := strings.Split(p, "/")
	for _, d := range dirs {
		ds := strings.Split(d, "/")
		if len(ps) < len(ds) {
			continue
		}
		ok := true
		for k, seg := range ds {
			// without dotglob, a pattern names a dot file only when it starts with a dot
			// (a bare * aims at nothing in particular: ~/.config/*/x is
			// not meant for ~/.config/gh)
			hidden := strings.HasPrefix(seg, ".") && !strings.HasPrefix(ps[k], ".")
			pat := strings.ReplaceAll(ps[k], "[!", "[^") // bash's negation is path.Match's [^
			if m, err := path.Match(pat, seg); err != nil || !m || hidden || ps[k] == "*" && ps[k] != seg {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// holdsAny reports whether directory p holds one of dirs below it (tar c
// ~/.config reads ~/.config/gh): a recursive reader of p reads them too.
// The home directory itself, and /, are left to what reads them: naming
// them is too common (grep -r x ~ ...) to say a secret is meant.
func holdsAny(p string, dirs []string) bool {
	if p == "~" || p == "/" || p == "." || strings.HasPrefix(p, "..") {
		return false
	}
	for _, d := range dirs {
		if below(d, p) {
			return true
		}
	}
	return false
}

// executesCreated reports whether invocation i runs a file an earlier
// command of the script wrote or downloaded.
func (ctx *scriptCtx) executesCreated(i int) bool {
	for _, e := range ctx.effectsOf(i) {
		if e.kind == effExec && e.created {
			return true
		}
	}
	return false
}

// programUnseen reports whether invocation i runs a program the analysis
// cannot read (see effect.unseen).
func (ctx *scriptCtx) programUnseen(i int) bool {
	for _, e := range ctx.effectsOf(i) {
		if e.kind == effExec && e.unseen {
			return true
		}
	}
	return false
}

// globPath returns w as a path when it is a pattern of static text the
// shell expands to file names (~/.ssh/id_*, "$HOME"/.gnupg/*.key): every
// file it names is under its static directory, so the pattern itself
// stands for them, for globs and deny-read directories to match. "" when
// w has anything but static text (escaped spaces too) and pattern
// characters.
func globPath(w string) string {
	if !strings.ContainsAny(w, "*?[") {
		return ""
	}
	u := strings.ReplaceAll(w, `"`, "")
	if strings.Contains(u, `\ `) {
		// an escaped space (~/.config/Slack/Local\ Storage/*): the
		// space is part of the name
		u = strings.ReplaceAll(u, `\ `, " ")
	}
	if r, ok := strings.CutPrefix(u, "$HOME"); ok {
		u = "~" + r
	} else if r, ok := strings.CutPrefix(u, "${HOME}"); ok {
		u = "~" + r
	}
	if u == "" || strings.ContainsAny(u, "$`'\\{}") || u[0] == '-' {
		return ""
	}
	return u
}

// homePath returns w as a path under ~ when w is $HOME or ${HOME}, quoted
// or not, followed by static text ("$HOME/.config/x y"), or "". A user's
// home spelled from the user's name (/home/$USER, /home/$(whoami)) is a
// home directory too, whoever the user is (see homeAlias). $HISTFILE is
// the history file: ~/.bash_history. A toolchain's directory printed by the
// toolchain is where it usually is (toolDirPath).
func homePath(w string) string {
	u := strings.ReplaceAll(w, `"`, "")
	if u == "$HISTFILE" || u == "${HISTFILE}" {
		return "~/.bash_history" // the shell's history file, wherever it is set
	}
	rest, ok := strings.CutPrefix(u, "$HOME")
	if !ok {
		rest, ok = strings.CutPrefix(u, "${HOME}")
	}
	for _, h := range userHomes {
		if ok {
			break
		}
		rest, ok = strings.CutPrefix(u, h)
	}
	if !ok {
		return toolDirPath(u)
	}
	if strings.ContainsAny(rest, "$`'\\*?[") || rest != "" && rest[0] != '/' {
		return ""
	}
	return "~" + rest
}

// toolDirs: command substitutions that print where a toolchain keeps its
// programs, packages or caches, and the usual place they print. Writing
// under "$(go env GOPATH)/bin" or into "$(gem contents rake | ...)" plants
// code there, wherever that is on this host. An entry ending in a space
// takes an operand (which gopls, gem contents rake): the file is named
// after it.
var toolDirs = []struct{ subst, dir string }{
	{"$(go env GOPATH)", "~/go"}, {"$(go env GOBIN)", "~/go/bin"}, {"$(go env GOMODCACHE)", "~/go/pkg/mod"}, {"$(go env GOCACHE)", "~/.cache/go-build"},
	{"$(go env GOROOT)", "/usr/local/go"}, {"$(npm root -g)", "/usr/local/lib/node_modules"}, {"$(npm prefix -g)", "/usr/local"},
	{"$(npm config get prefix)", "/usr/local"}, {"$(npm bin -g)", "/usr/local/bin"}, {"$(brew --prefix)", "/usr/local"},
	{"$(python3 -m site --user-site)", "~/.local/lib/python3/site-packages"}, {"$(python -m site --user-site)", "~/.local/lib/python3/site-packages"},
	{"$(python3 -m site --user-base)", "~/.local"}, {"$(python -m site --user-base)", "~/.local"}, {"$(gem env gemdir)", "~/.gem"},
	{"$(rbenv root)", "~/.rbenv"}, {"$(pyenv root)", "~/.pyenv"}, {"$(rustc --print sysroot)", "~/.rustup/toolchains/default"},
	{"$(yarn global bin)", "~/.yarn/bin"}, {"$(yarn global dir)", "~/.config/yarn/global"}, {"$(pnpm root -g)", "~/.local/share/pnpm/global"},
	{"$(pnpm bin -g)", "~/.local/share/pnpm"}, {"$(gem contents ", "~/.gem/gems"}, {"$(gem which ", "~/.gem/gems"},
	{"$(which ", "/usr/local/bin"}, {"$(command -v ", "/usr/local/bin"}, {"`which ", "/usr/local/bin"}, {"`command -v ", "/usr/local/bin"},
}

// toolDirPath returns u (quotes removed) as a path when it starts with one
// of toolDirs' substitutions and goes on with static text, or "".
func toolDirPath(u string) string {
	if !strings.HasPrefix(u, "$(") && !strings.HasPrefix(u, "`") {
		return ""
	}
	for _, t := range toolDirs {
		rest, ok := strings.CutPrefix(u, t.subst)
		if !ok {
			continue
		}
		dir := t.dir
		if strings.HasSuffix(t.subst, " ") {
			// the operand names the file; the substitution ends at its
			// closing parenthesis or backquote
			end := strings.IndexAny(rest, ")`")
			if end < 0 {
				return ""
			}
			name, _, _ := strings.Cut(strings.TrimSpace(rest[:end]), " ")
			if name == "" || strings.ContainsAny(name, "$`'\\*?[/") {
				name = "x"
			}
			dir, rest = dir+"/"+name, rest[end+1:]
		}
		if strings.ContainsAny(rest, "$`'\\*?[") || rest != "" && rest[0] != '/' {
			return ""
		}
		return dir + rest
	}
	return ""
}

// isShell: the command is a POSIX-like shell.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "busybox":
		return true
	}
	return false
}

// shellChecksOnly reports whether a shell is told by an option before its
// script (-n, as in bash -n scripts/*.sh) to read its commands without
// running any: a syntax check runs nothing, whatever the script is. An
// interactive shell (-i) ignores -n, and -c code is still checked only.
func shellChecksOnly(inv *parse.Invocation) bool {
	n := false
	for _, w := range inv.Args {
		if w == "--" || !strings.HasPrefix(w, "-") {
			break
		}
		if strings.HasPrefix(w, "--") {
			if w == "--rcfile" || w == "--init-file" {
				return false // a startup file (with -i), whose value this loop does not skip
			}
			continue // --norc, --posix ...
		}
		if strings.ContainsAny(w, "ioO") {
			return false // interactive, or -o/-O whose operand this loop does not skip
		}
		n = n || strings.ContainsRune(w, 'n')
	}
	return n
}

// shellProgramComputed reports whether what a shell runs is known only at
// run time: its -c code, its script operand or a startup file it is given
// (--rcfile "$f") is computed. The words after the script or the code are
// its arguments, which do not change what runs (sh ./configure
// --prefix="$PWD/stage"). -c code built with the number nproc or id -u
// prints is known, unless the script defines a function of that name
// (numberFuncs).
func shellProgramComputed(inv *parse.Invocation, numberFuncs bool) bool {
	dyn := func(k int) bool { return inv.DynamicArgs != nil && inv.DynamicArgs[k] }
	for k := 0; k < len(inv.Args); k++ {
		w := inv.Args[k]
		switch {
		case dyn(k):
			return true
		case w == "--" || w == "-s" || !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+"):
			return false // the script operand, or the arguments of standard input's program
		case w == "--rcfile" || w == "--init-file" || w == "-o" || w == "+o" || w == "-O" || w == "+O":
			k++
			if k < len(inv.Args) && dyn(k) {
				return true
			}
		case strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.ContainsRune(w, 'c'):
			// -c CODE: the code; after it, $0 and the arguments. Code built
			// with the numbers nproc or id -u print is known (parse.NumberCode).
			if k+1 < len(inv.Args) && dyn(k+1) {
				_, known := parse.NumberCode(inv.Args[k+1])
				return !known || numberFuncs
			}
			return false
		}
	}
	return false
}
