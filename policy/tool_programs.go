package policy

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/stockade/stockade/parse"
)

// Programs, scripts and preloads that a tool is told to run through its
// options, properties or environment rather than as an operand: go test
// -exec PROG, node -r MODULE, cargo --config 'target.X.runner="PROG"',
// gradle --init-script FILE, pytest -p PLUGIN, npm --script-shell=PROG,
// php -d auto_prepend_file=FILE, GIT_CONFIG_GLOBAL=FILE git ..., and the
// module python -m runs from the directory the script cd'd into. Each
// becomes an execution effect, so that the effect rules judge it as if the
// script ran it itself: from a temporary directory (runs-from-temp-or-
// lookalike), a file the script downloaded (runs-created-file), or a
// command line the analysis cannot read (program-unseen).

// Kinds of toolOpts values.
const (
	optProgram = 'p' // a program, judged by programValueEffect (go test -exec, npm --script-shell)
	optFile    = 'f' // a file of code or of configuration that names code (gradle -I, pytest -c)
	optDir     = 'd' // a directory code is loaded from (ruby -I, gradle -p)
	optKeyed   = 'k' // KEY=VALUE settings, VALUE judged by keyedSettings (rustc -C linker=P, php -d auto_prepend_file=F)
	optNode    = 'n' // options for node itself (npm --node-options='--require F')
)

// keyedSettings: the settings of optKeyed options whose value names code
// to run or load, and of which kind.
var keyedSettings = map[string]byte{
	"linker": optProgram, "ar": optProgram, "auto_prepend_file": optFile, "auto_append_file": optFile, "extension": optFile, "zend_extension": optFile,
	"sendmail_path": optProgram, "extension_dir": optDir, "include_path": optDir,
}

// toolSig says how one tool's options name code it runs.
type toolSig struct {
	opts map[string]byte // option name without dashes -> kind
	// oneDash: long options are written with one dash (go's flag package, ant).
	oneDash bool
	// abbrev: long options may be shortened to a prefix (argparse, nopt).
	abbrev bool
	// interp: the first operand is the program; what follows are its
	// arguments, not the tool's options.
	interp bool
}

var (
	nodeSig = toolSig{opts: map[string]byte{"r": optProgram, "require": optProgram, "import": optProgram, "loader": optProgram, "experimental-loader": optProgram, "preload": optProgram}, interp: true}
	rubySig = toolSig{opts: map[string]byte{"r": optProgram, "require": optProgram, "I": optDir}, interp: true}
	npmSig  = toolSig{opts: map[string]byte{"node-options": optNode, "script-shell": optProgram, "shell": optProgram, "git": optProgram, "editor": optProgram, "browser": optProgram, "viewer": optProgram, "userconfig": optFile, "globalconfig": optFile,
		// npm pack --pack-destination DIR: where the tarball goes, not a package
		"pack-destination": 0}, abbrev: true}
	gradleSig = toolSig{opts: map[string]byte{"I": optFile, "init-script": optFile, "b": optFile, "build-file": optFile, "c": optFile, "settings-file": optFile, "p": optDir, "project-dir": optDir, "include-build": optDir}}
	mavenSig  = toolSig{opts: map[string]byte{"f": optFile, "file": optFile}}
	pytestSig = toolSig{opts: map[string]byte{"p": optProgram, "c": optFile, "config-file": optFile, "rootdir": optDir, "confcutdir": optDir}, abbrev: true}
	ccSig     = toolSig{opts: map[string]byte{"B": optDir, "wrapper": optProgram, "fplugin": optFile, "specs": optFile, "fuse-ld": optProgram, "-ld-path": optProgram, "iplugindir": optDir}, oneDash: true}
	vimSig    = toolSig{opts: map[string]byte{"u": optFile, "U": optFile}}
	jsToolSig = toolSig{opts: map[string]byte{"config": optFile, "plugin": optProgram, "require": optProgram, "rulesdir": optDir, "resolve-plugins-relative-to": optDir,
		"setupFiles": optFile, "setup-files": optFile, "config-file": optFile, "configFile": optFile, "loader": optProgram, "c": optFile, "r": optProgram}}
	pipSig = toolSig{opts: map[string]byte{"e": optDir, "editable": optDir, "r": 0, "requirement": 0, "c": 0, "constraint": 0, "f": optDir, "find-links": optDir,
		// options that take a value, so that it is not read as a package path
		// (pip download -d DIR, pip wheel -w DIR: where the files go)
		"t": 0, "target": 0, "prefix": 0, "d": 0, "dest": 0, "w": 0, "wheel-dir": 0, "root": 0, "src": 0, "i": 0, "index-url": 0, "extra-index-url": 0, "cache-dir": 0, "log": 0, "report": 0, "python-version": 0, "platform": 0}}
	elixirSig  = toolSig{opts: map[string]byte{"r": optFile, "require": optFile, "pa": optDir, "pz": optDir}, interp: true}
	toolSigMap = map[string]*toolSig{
		"go":   {opts: map[string]byte{"exec": optProgram, "toolexec": optProgram, "vettool": optProgram, "overlay": optFile, "modfile": optFile, "C": optDir}, oneDash: true},
		"node": &nodeSig, "nodejs": &nodeSig, "bun": &nodeSig, "deno": {opts: map[string]byte{"preload": optProgram, "import-map": optFile, "config": optFile}},
		"ruby": &rubySig, "irb": &rubySig, "rake": {opts: map[string]byte{"f": optFile, "rakefile": optFile, "r": optProgram, "require": optProgram, "I": optDir, "libdir": optDir}},
		"perl": {opts: map[string]byte{"I": optDir}, interp: true},
		"php":  {opts: map[string]byte{"c": optFile, "php-ini": optFile, "d": optKeyed, "define": optKeyed}, interp: true},
		"npm":  &npmSig, "pnpm": &npmSig, "yarn": &npmSig,
		"gradle": &gradleSig, "gradlew": &gradleSig,
		"mvn": &mavenSig, "mvnw": &mavenSig,
		"ant":    {opts: map[string]byte{"f": optFile, "file": optFile, "buildfile": optFile, "lib": optDir}, oneDash: true},
		"pytest": &pytestSig, "py.test": &pytestSig,
		"cargo": {opts: map[string]byte{"manifest-path": optFile}},
		"git":   {opts: map[string]byte{"exec-path": optDir, "sendmail-cmd": optProgram, "to-cmd": optProgram, "cc-cmd": optProgram, "header-cmd": optProgram}},
		"bazel": {opts: map[string]byte{"bazelrc": optFile, "run_under": optProgram, "script_path": optFile}}, "bazelisk": {opts: map[string]byte{"bazelrc": optFile, "run_under": optProgram}},
		"mysql": {opts: map[string]byte{"pager": optProgram}}, "mariadb": {opts: map[string]byte{"pager": optProgram}},
		"mocha": &jsToolSig, "bats": {opts: map[string]byte{}}, "rspec": {opts: map[string]byte{"r": optProgram, "require": optProgram, "I": optDir}},
		"phpunit": {opts: map[string]byte{"bootstrap": optFile, "c": optFile, "configuration": optFile}}, "ansible-playbook": {opts: map[string]byte{"module-path": optDir, "M": optDir}},
		"tox":    {opts: map[string]byte{"c": optFile}},
		"nox":    {opts: map[string]byte{"f": optFile, "noxfile": optFile}},
		"just":   {opts: map[string]byte{"f": optFile, "justfile": optFile}},
		"task":   {opts: map[string]byte{"t": optFile, "taskfile": optFile}},
		"elixir": &elixirSig, "iex": &elixirSig,
		"pip": &pipSig, "pip3": &pipSig, "gem": {opts: map[string]byte{}},
		"gcc": &ccSig, "cc": &ccSig, "g++": &ccSig, "c++": &ccSig, "clang": &ccSig, "clang++": &ccSig, "gfortran": &ccSig, "tcc": &ccSig,
		"rustc":     {opts: map[string]byte{"C": optKeyed, "codegen": optKeyed}},
		"terraform": {opts: map[string]byte{"plugin-dir": optDir, "chdir": optDir}, oneDash: true}, "tofu": {opts: map[string]byte{"plugin-dir": optDir, "chdir": optDir}, oneDash: true},
		"helm": {opts: map[string]byte{"post-renderer": optProgram}},
		"vim":  &vimSig, "nvim": &vimSig, "vi": &vimSig, "gvim": &vimSig, "view": &vimSig, "ex": &vimSig,
		"emacs":   {opts: map[string]byte{"l": optFile, "load": optFile, "script": optFile, "x": optFile}},
		"sqlite3": {opts: map[string]byte{"init": optFile}, oneDash: true},
		"tmux":    {opts: map[string]byte{"f": optFile}}, "screen": {opts: map[string]byte{"c": optFile}},
		"eslint": &jsToolSig, "prettier": &jsToolSig, "jest": &jsToolSig, "vitest": &jsToolSig, "webpack": &jsToolSig, "vite": &jsToolSig,
		"babel": &jsToolSig, "rollup": &jsToolSig, "nyc": &jsToolSig, "ava": &jsToolSig, "karma": &jsToolSig, "stylelint": &jsToolSig, "c8": &jsToolSig,
	}
)

// toolProgramEffects adds the execution effects of the code inv's options
// name (see the comment at the top of this file).
func toolProgramEffects(inv *parse.Invocation, a *argv, b *effectBuilder) {
	name := strings.TrimRight(a.name, "0123456789.")
	switch name {
	case "python", "pypy":
		pythonModuleEffects(inv, b)
		return
	case "dotnet", "msbuild":
		msbuildEffects(inv, b)
		return
	case "java", "javaw":
		javaOptionEffects(inv, b)
		return
	case "run-parts":
		runPartsEffects(a, b)
		return
	}
	if strings.HasPrefix(a.name, "ld-linux") || strings.HasPrefix(a.name, "ld-musl") || a.name == "ld.so" {
		loaderEffects(inv, b)
		return
	}
	projectRunEffects(a, b)
	sig := toolSigMap[name]
	if sig == nil {
		sig = toolSigMap[a.name]
	}
	if sig == nil {
		return
	}
	dyn := func(k int) bool { return inv.DynamicArgs != nil && inv.DynamicArgs[k] }
	toolOptionEffects(a.name, sig, inv.Args, dyn, b)
}

// Round 20: run-parts DIR runs every program in DIR. Each one the script
// downloaded or wrote there runs as if named (runsParts in written_code.go
// reads the ones it wrote with text it shows).
func runPartsEffects(a *argv, b *effectBuilder) {
	for _, d := range a.positionals {
		dir := b.resolve(d)
		for p := range b.created {
			if below(p, dir) && !strings.Contains(p[len(dir)+1:], "/") {
				b.push(effect{kind: effExec, path: p, created: true})
			}
		}
		if under(dir, b.createdDirs) {
			b.push(effect{kind: effExec, path: dir + "/*", created: true})
		}
	}
}

// toolOptionEffects reads args by sig's rules (dyn: whether the k-th word
// is known only at run time).
func toolOptionEffects(tool string, sig *toolSig, args []string, dyn func(int) bool, b *effectBuilder) {
	for k := 0; k < len(args); k++ {
		w := args[k]
		if dyn(k) {
			continue
		}
		if w == "--" || len(w) < 2 || w[0] != '-' {
			if w == "--" || sig.interp {
				return // the program and its arguments
			}
			operandEffects(tool, w, b)
			continue
		}
		body := strings.TrimLeft(w, "-")
		key, val, hasVal := strings.Cut(body, "=")
		long := strings.HasPrefix(w, "--") || sig.oneDash
		kind, ok := byte(0), false
		if long {
			kind, key, ok = sig.longKind(key)
		}
		if !ok && w[1] != '-' {
			// -I/tmp, -r ./x, gcc's -B/tmp/x: a letter, then its value
			// attached or next.
			if k1, ok1 := sig.opts[body[:1]]; ok1 || !long {
				kind, ok, key = k1, ok1, body[:1]
				val, hasVal = body[1:], len(body) > 1
				if ok && hasVal && val[0] == '=' {
					val = val[1:]
				}
			}
		}
		if !ok {
			if tool == "pytest" || tool == "py.test" {
				pytestIniEffects(key, val, hasVal, args, &k, dyn, b)
			}
			if tool == "cargo" && key == "config" {
				if !hasVal && k+1 < len(args) && !dyn(k+1) {
					k++
					val, hasVal = args[k], true
				}
				if hasVal {
					cargoConfigEffects(val, b)
				}
			}
			continue
		}
		if !hasVal {
			if k+1 >= len(args) || dyn(k+1) {
				k++
				continue
			}
			k++
			val = args[k]
		}
		if kind != 0 {
			codeValueEffect(kind, val, b)
		}
	}
}

// longKind returns the kind of long option key under s's rules, with the
// option's full name.
func (s *toolSig) longKind(key string) (byte, string, bool) {
	if k, ok := s.opts[key]; ok {
		return k, key, true
	}
	if !s.abbrev || len(key) < 4 {
		return 0, key, false
	}
	for n, k := range s.opts {
		if len(n) > 1 && strings.HasPrefix(n, key) {
			return k, n, true
		}
	}
	return 0, key, false
}

// codeValueEffect adds the effect of an option value of kind.
func codeValueEffect(kind byte, v string, b *effectBuilder) {
	v = unquoteSimple(v)
	if v == "" || strings.Contains(v, "$") {
		return
	}
	if (kind == optFile || kind == optProgram) && (stdinPath(v) || v == "-" || strings.HasPrefix(v, "<(")) {
		// --init-script /dev/stdin <<'G': code this analysis does not read
		b.push(effect{kind: effExec, path: v, unseen: true})
		return
	}
	switch kind {
	case optProgram:
		if e, ok := programValueEffect(v); ok {
			if e.unseen {
				b.push(e)
			} else {
				b.add(effExec, e.path)
			}
		}
	case optFile:
		b.add(effExec, strings.TrimPrefix(v, "file://"))
	case optDir:
		b.add(effExec, strings.TrimSuffix(v, "/")+"/*")
	case optKeyed:
		key, val, ok := strings.Cut(v, "=")
		if k, known := keyedSettings[strings.ToLower(strings.TrimSpace(key))]; ok && known {
			if k == optFile && !strings.Contains(val, "/") {
				return // extension=intl: one of PHP's own
			}
			codeValueEffect(k, strings.TrimSpace(val), b)
		}
	case optNode:
		toolOptionEffects("node", &nodeSig, strings.Fields(v), func(int) bool { return false }, b)
	}
}

// fileRunners run the files they are given as operands: test runners
// (pytest, mocha, bats, rspec, phpunit) and ansible-playbook.
var fileRunners = map[string]bool{"pytest": true, "py.test": true, "mocha": true, "bats": true, "rspec": true, "phpunit": true, "ansible-playbook": true}

// operandEffects: a test runner runs the test files it is given (pytest
// /tmp/t.py, pytest tests/test_x.py::test_y).
func operandEffects(tool, w string, b *effectBuilder) {
	if tool == "pip" || tool == "pip3" || tool == "npm" || tool == "pnpm" || tool == "yarn" || tool == "gem" {
		// pip install /tmp/pkg builds it, running its setup code; npm
		// install ../x runs its install scripts; gem install x.gem builds
		// its extensions.
		if p := strings.TrimPrefix(w, "file:"); p == "." || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "~") {
			b.add(effExec, strings.TrimSuffix(p, "/")+"/*")
		}
		return
	}
	if !fileRunners[tool] {
		return
	}
	p, _, _ := strings.Cut(w, "::")
	if strings.Contains(p, "/") || strings.HasSuffix(p, ".py") {
		b.add(effExec, p)
	}
}

// pytestIniEffects: pytest -o addopts='-p PLUGIN' gives pytest more
// options, read as if written; -o pythonpath=DIR loads modules from DIR.
func pytestIniEffects(key, val string, hasVal bool, args []string, k *int, dyn func(int) bool, b *effectBuilder) {
	if key != "o" && !(len(key) >= 4 && strings.HasPrefix("override-ini", key)) {
		return
	}
	if !hasVal {
		if *k+1 >= len(args) || dyn(*k+1) {
			return
		}
		*k++
		val = args[*k]
	}
	val = unquoteSimple(val)
	ini, v, ok := strings.Cut(val, "=")
	if !ok {
		return
	}
	switch strings.TrimSpace(ini) {
	case "addopts":
		more := strings.Fields(v)
		toolOptionEffects("pytest", &pytestSig, more, func(int) bool { return false }, b)
	case "pythonpath":
		for _, d := range strings.Fields(v) {
			codeValueEffect(optDir, d, b)
		}
	}
}

// cargoProgramKeys are the last parts of cargo configuration keys whose
// value is a program cargo runs.
var cargoProgramKeys = map[string]bool{"runner": true, "linker": true, "rustc": true, "rustc-wrapper": true, "rustc-workspace-wrapper": true,
	"rustdoc": true, "credential-provider": true, "global-credential-providers": true, "browser": true, "ar": true}

// cargoConfigEffects: cargo --config KEY=VALUE sets a configuration value
// (target.X.runner = "PROG" runs PROG for cargo run and cargo test; an
// alias.NAME is a cargo command line of its own); a --config without =
// names a configuration file to read.
func cargoConfigEffects(v string, b *effectBuilder) {
	v = unquoteSimple(v)
	key, val, ok := strings.Cut(v, "=")
	if !ok {
		codeValueEffect(optFile, v, b)
		return
	}
	key = strings.TrimSpace(key)
	parts := strings.Split(key, ".")
	last := strings.ToLower(strings.Trim(parts[len(parts)-1], `"' `))
	if parts[0] == "alias" && len(parts) > 1 {
		// alias.NAME = "run --manifest-path /tmp/x/Cargo.toml" or a list
		// of words: a cargo command line, read as cargo's own options.
		words := strings.FieldsFunc(val, func(r rune) bool { return r == '[' || r == ']' || r == ',' || r == ' ' || r == '\t' })
		toolOptionEffects("cargo", toolSigMap["cargo"], words, func(int) bool { return false }, b)
		return
	}
	if parts[0] == "env" && len(parts) > 1 {
		if !programVariable(last) {
			return
		}
	} else if !cargoProgramKeys[last] {
		return
	}
	// "PROG", 'PROG', ["PROG", "ARG"], or a table { value = "PROG" }
	val = strings.TrimSpace(val)
	val = strings.Trim(val, "[]{} ")
	if i := strings.IndexAny(val, `"'`); i >= 0 {
		q := val[i]
		rest := val[i+1:]
		if j := strings.IndexByte(rest, q); j >= 0 {
			val = rest[:j]
		}
	}
	codeValueEffect(optProgram, val, b)
}

// pythonModuleEffects: python -m MODULE runs MODULE.py (or the package
// MODULE/__main__.py) from the current directory first, which is the one
// the script cd'd into (cd /tmp && python3 -m x), or a file it wrote.
func pythonModuleEffects(inv *parse.Invocation, b *effectBuilder) {
	args := inv.Args
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a == "-c" && k+1 < len(args) && !(inv.DynamicArgs != nil && (inv.DynamicArgs[k] || inv.DynamicArgs[k+1])) {
			pythonImportEffects(args[k+1], b)
			return
		}
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] || a == "-c" || !strings.HasPrefix(a, "-") || a == "-" {
			return
		}
		mod := ""
		switch {
		case a == "-m" && k+1 < len(args) && !(inv.DynamicArgs != nil && inv.DynamicArgs[k+1]):
			mod = args[k+1]
		case strings.HasPrefix(a, "-m") && len(a) > 2:
			mod = a[2:]
		case a == "-W" || a == "-X":
			k++
			continue
		default:
			continue
		}
		if mod == "" || strings.ContainsAny(mod, "/$`*?[") {
			return
		}
		p := strings.ReplaceAll(mod, ".", "/")
		if top, _, _ := strings.Cut(mod, "."); commonModules[top] && !b.created[b.resolve(p+".py")] {
			return // python3 -m venv, -m http.server: the standard library's or a known tool's
		}
		if !b.cwdKnown || b.cwd == "" {
			// in the workdir: only a file the script wrote matters
			if e := b.resolve(p + ".py"); b.created[e] {
				b.push(effect{kind: effExec, path: e, created: true})
			}
			return
		}
		b.add(effExec, p+".py")
		b.add(effExec, p+"/__main__.py")
		return
	}
}

// Round 20: python -c 'import x' looks for x in the current directory
// first. Where the script downloaded or unpacked a package there (pip
// download -d /tmp/p x && cd /tmp/p && unzip *.whl && python3 -c 'import
// x'), the import runs that package's code, as running its file would.
var pyImportRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[;\n])\s*(?:import|from)\s+([A-Za-z_]\w*)`)
})

// pythonImportEffects adds the running of each module code imports that
// is a file or package the script created in the current directory.
func pythonImportEffects(code string, b *effectBuilder) {
	if !strings.Contains(code, "import") {
		return
	}
	// In the workdir (no cd, or one not followed) only a file the script
	// wrote counts: an archive unpacked there is the project's own.
	away := b.cwdKnown && b.cwd != ""
	for _, m := range pyImportRe().FindAllStringSubmatch(code, 4) {
		if commonModules[m[1]] || stdModules[m[1]] {
			continue
		}
		for _, p := range []string{m[1] + ".py", m[1] + "/__init__.py"} {
			if e := b.resolve(p); b.created[e] || away && under(e, b.createdDirs) {
				b.push(effect{kind: effExec, path: e, created: true})
				return
			}
		}
	}
}

// stdModules are standard modules inline code imports to look around
// (import sys; print(sys.path)), not a package of the current directory.
var stdModules = map[string]bool{"sys": true, "os": true, "re": true, "io": true, "time": true, "math": true, "subprocess": true,
	"pathlib": true, "shutil": true, "glob": true, "importlib": true, "pkgutil": true, "struct": true, "hashlib": true}

// commonModules are modules of Python's standard library and well-known
// tools that python -m runs in everyday work: their name alone is not read
// as a file of the current directory.
var commonModules = map[string]bool{
	"venv": true, "pip": true, "ensurepip": true, "http": true, "json": true, "unittest": true, "doctest": true, "pdb": true, "cProfile": true, "profile": true,
	"timeit": true, "trace": true, "pydoc": true, "compileall": true, "py_compile": true, "zipfile": true, "tarfile": true, "gzip": true, "base64": true,
	"site": true, "sysconfig": true, "platform": true, "calendar": true, "webbrowser": true, "uuid": true, "sqlite3": true, "ast": true, "tokenize": true,
	"pytest": true, "build": true, "twine": true, "black": true, "ruff": true, "mypy": true, "flake8": true, "pylint": true, "isort": true, "coverage": true,
	"pipx": true, "poetry": true, "uvicorn": true, "gunicorn": true, "flask": true, "django": true, "celery": true, "jupyter": true, "notebook": true,
	"ipykernel": true, "IPython": true, "streamlit": true, "mkdocs": true, "sphinx": true, "tox": true, "nox": true, "pre_commit": true, "virtualenv": true,
}

// msbuildFileProperties are MSBuild properties that import a project file
// of targets, which may run any command.
var msbuildFileProperties = map[string]byte{
	"custombeforemicrosoftcommontargets": optFile, "customaftermicrosoftcommontargets": optFile, "custombeforemicrosoftcommonprops": optFile,
	"customaftermicrosoftcommonprops": optFile, "directorybuildpropspath": optFile, "directorybuildtargetspath": optFile,
	"forceimportbeforecpptargets": optFile, "forceimportaftercpptargets": optFile, "msbuilduserextensionspath": optDir, "msbuildextensionspath": optDir,
	"directorypackagespropspath": optFile, "nugetrestoretargets": optFile,
}

// msbuildEffects: dotnet build and msbuild run the targets of the project
// files they are given (dotnet build /tmp/x.csproj), of those their
// properties import (-p:CustomBeforeMicrosoftCommonTargets=/tmp/x.targets),
// and load the logger assemblies they are told to (-logger:X,/tmp/l.dll).
// PreBuildEvent and PostBuildEvent are shell code: commandArgCode reads them.
func msbuildEffects(inv *parse.Invocation, b *effectBuilder) {
	for k, w := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			continue
		}
		if len(w) < 2 || w[0] != '-' && w[0] != '/' {
			if strings.HasSuffix(w, "proj") || strings.HasSuffix(w, ".sln") || strings.HasSuffix(w, ".targets") || strings.HasSuffix(w, ".props") {
				b.add(effExec, w)
			}
			continue
		}
		if w[0] == '/' && strings.Count(w, "/") > 1 && !strings.Contains(w, ":") {
			// an absolute project path, not a /switch
			if strings.HasSuffix(w, "proj") || strings.HasSuffix(w, ".sln") {
				b.add(effExec, w)
			}
			continue
		}
		sw, val, ok := strings.Cut(strings.TrimLeft(w, "-/"), ":")
		if !ok {
			continue
		}
		switch strings.ToLower(sw) {
		case "p", "property":
			for _, prop := range strings.Split(val, ";") {
				n, v, ok := strings.Cut(prop, "=")
				if kind, known := msbuildFileProperties[strings.ToLower(strings.TrimSpace(n))]; ok && known {
					codeValueEffect(kind, v, b)
				}
			}
		case "logger", "l", "distributedlogger", "dl":
			if _, asm, ok := strings.Cut(val, ","); ok {
				asm, _, _ = strings.Cut(asm, ";")
				codeValueEffect(optFile, strings.TrimSpace(asm), b)
			} else if strings.HasSuffix(strings.ToLower(val), ".dll") {
				codeValueEffect(optFile, val, b)
			}
		}
	}
}

// msbuildEventCode returns the shell code of MSBuild's PreBuildEvent and
// PostBuildEvent properties given on the command line (dotnet build
// -p:PreBuildEvent=CMD): the build runs it.
func msbuildEventCode(inv *parse.Invocation) (code []string) {
	for k, w := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] || len(w) < 3 || w[0] != '-' && w[0] != '/' {
			continue
		}
		sw, val, ok := strings.Cut(strings.TrimLeft(w, "-/"), ":")
		if !ok || !strings.EqualFold(sw, "p") && !strings.EqualFold(sw, "property") {
			continue
		}
		for _, prop := range strings.Split(val, ";") {
			n, v, ok := strings.Cut(prop, "=")
			switch strings.ToLower(strings.TrimSpace(n)) {
			case "prebuildevent", "postbuildevent", "runpostbuildevent_cmd", "runcommand":
				if ok && strings.TrimSpace(v) != "" {
					code = append(code, unquoteSimple(v))
				}
			}
		}
	}
	return code
}

// configVariables name a file or directory of configuration, or of code,
// that the tool they are given reads at its start, so that the file
// decides what it runs (GIT_CONFIG_GLOBAL's core.pager, php.ini's
// auto_prepend_file, a kubeconfig's exec plugin): the value is judged as a
// program run from that path.
var configVariables = map[string]byte{
	"GIT_CONFIG_GLOBAL": optFile, "GIT_CONFIG_SYSTEM": optFile, "GIT_CONFIG": optFile, "PHPRC": optFile, "PHP_INI_SCAN_DIR": optDir,
	"NPM_CONFIG_USERCONFIG": optFile, "NPM_CONFIG_GLOBALCONFIG": optFile, "PIP_CONFIG_FILE": optFile, "AWS_CONFIG_FILE": optFile,
	"BUNDLE_GEMFILE": optFile, "GEMRC": optFile, "CONDARC": optFile, "WGETRC": optFile, "CURL_HOME": optDir,
	"CARGO_HOME": optDir, "RUSTUP_HOME": optDir, "XDG_CONFIG_HOME": optDir, "DOCKER_CONFIG": optDir, "MIX_HOME": optDir, "HEX_HOME": optDir,
	"GRADLE_USER_HOME": optDir, "IPYTHONDIR": optDir, "JUPYTER_CONFIG_DIR": optDir, "ERL_LIBS": optDir, "PYTHONUSERBASE": optDir,
	"R_PROFILE_USER": optFile, "R_PROFILE": optFile, "MYVIMRC": optFile, "TF_CLI_CONFIG_FILE": optFile, "HELM_PLUGINS": optDir,
	"NIX_CONF_DIR": optDir, "NIX_USER_CONF_FILES": optFile, "GIT_TEMPLATE_DIR": optDir, "SCREENRC": optFile, "TMUX_CONF": optFile,
	"PYTEST_PLUGINS": optProgram, "HOME": optDir, "COMPOSER": optFile, "IRBRC": optFile, "NODE_REPL_EXTERNAL_MODULE": optProgram, "JULIA_DEPOT_PATH": optDir, "GOENV": optFile, "COMPOSER_HOME": optDir, "BUNDLE_USER_HOME": optDir,
}

// configVariableKind reports whether a variable named name points a tool
// at configuration or code, and of which kind.
func configVariableKind(name string) (byte, bool) {
	u := strings.ToUpper(name)
	if k, ok := configVariables[u]; ok {
		return k, true
	}
	for _, suf := range []string{"_CONFIG_FILE", "_CONFIG_PATH", "_CONFIGFILE", "_RCFILE", "_INI_FILE", "_INIT_FILE", "_USERCONFIG", "_GLOBALCONFIG", "_SETTINGS_FILE"} {
		if strings.HasSuffix(u, suf) {
			return optFile, true
		}
	}
	for _, suf := range []string{"_CONFIG_DIR", "_CONFIG_HOME", "_INI_SCAN_DIR", "_PLUGIN_DIR", "_PLUGINS_DIR", "_PLUGIN_PATH"} {
		if strings.HasSuffix(u, suf) {
			return optDir, true
		}
	}
	return 0, false
}

// configEnvEffects adds the effects of variables given to inv (or exported
// by it) that point a tool at configuration or code: GIT_CONFIG_GLOBAL=
// /tmp/gc git pull runs what /tmp/gc says; PYTEST_ADDOPTS is more options
// for pytest.
func configEnvEffects(inv *parse.Invocation, a *argv, b *effectBuilder) {
	one := func(as string) {
		name, val, ok := strings.Cut(as, "=")
		if !ok || val == "" {
			return
		}
		none := func(int) bool { return false }
		switch strings.ToUpper(name) {
		case "PYTEST_ADDOPTS":
			toolOptionEffects("pytest", &pytestSig, strings.Fields(unquoteSimple(val)), none, b)
			return
		case "RUSTFLAGS", "RUSTDOCFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS":
			toolOptionEffects("rustc", toolSigMap["rustc"], strings.FieldsFunc(unquoteSimple(val), func(r rune) bool { return r == ' ' || r == '\x1f' }), none, b)
			return
		case "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "FFLAGS", "OBJCFLAGS", "CGO_CFLAGS", "CGO_LDFLAGS", "CGO_CXXFLAGS":
			toolOptionEffects("cc", &ccSig, strings.Fields(unquoteSimple(val)), none, b)
			return
		case "PERL5DB", "VIMINIT", "EXINIT":
			// code the interpreter or editor runs at its start: perl -d's
			// debugger, vim's Ex commands (! and system() run programs)
			if v := unquoteSimple(val); strings.Contains(v, "!") || strings.Contains(v, "system") || strings.Contains(v, "exec") || strings.Contains(v, "`") {
				b.push(effect{kind: effExec, path: name + " code", unseen: true})
			}
			return
		case "NPM_CONFIG_NODE_OPTIONS", "NPM_CONFIG_SCRIPT_SHELL":
			if strings.HasSuffix(strings.ToUpper(name), "SHELL") {
				codeValueEffect(optProgram, val, b)
			} else {
				codeValueEffect(optNode, val, b)
			}
			return
		}
		kind, ok := configVariableKind(name)
		if !ok {
			return
		}
		for _, v := range strings.Split(unquoteSimple(val), ":") {
			if v == "" || v == "/dev/null" || kind != optProgram && !strings.Contains(v, "/") && !strings.HasPrefix(v, ".") {
				continue
			}
			codeValueEffect(kind, v, b)
		}
	}
	for _, as := range inv.Env {
		one(as)
	}
	switch a.name {
	case "export", "declare", "typeset", "readonly", "local", "env":
		for k, w := range inv.Args {
			if inv.DynamicArgs == nil || !inv.DynamicArgs[k] {
				one(w)
			}
		}
	}
}

// toolCommandTools run a command line their options give: fd -x CMD,
// ansible HOST -m shell -a CMD, dotnet build -p:PreBuildEvent=CMD.
var toolCommandTools = map[string]bool{"fd": true, "fdfind": true, "ansible": true, "dotnet": true, "msbuild": true}

// toolCommandCode returns, as shell code, the commands a toolCommandTools
// tool runs.
func toolCommandCode(inv *parse.Invocation) (code []string) {
	args := inv.Args
	dyn := func(k int) bool { return inv.DynamicArgs != nil && inv.DynamicArgs[k] }
	switch commandName(inv.Name) {
	case "fd", "fdfind":
		// -x/--exec CMD... and -X/--exec-batch CMD..., up to a ; word
		for k := 0; k < len(args); k++ {
			a := args[k]
			if a != "-x" && a != "--exec" && a != "-X" && a != "--exec-batch" {
				continue
			}
			end := k + 1
			for end < len(args) && args[end] != ";" {
				end++
			}
			words := make([]string, 0, end-k-1)
			known := true
			for j := k + 1; j < end; j++ {
				if dyn(j) {
					known = false
				}
				words = append(words, args[j])
			}
			if known && len(words) > 0 {
				code = append(code, shellQuote(words))
			}
			k = end
		}
	case "ansible":
		// the command, shell and raw modules run their arguments on the
		// hosts, script runs a local script there (without -m, the
		// command module): on this machine when the hosts are localhost
		// or the connection is local. On other hosts: remoteCode.
		module, modArgs, local := ansibleAdhoc(inv)
		switch module {
		case "command", "shell", "raw", "script":
			if local && strings.TrimSpace(modArgs) != "" {
				code = append(code, modArgs)
			}
		}
	default:
		code = msbuildEventCode(inv)
	}
	return code
}

// ansibleAdhoc returns the module an ad-hoc ansible command runs (without
// -m, command; ansible.builtin. and ansible.legacy. cut), its arguments,
// and whether the hosts are this machine (localhost, a loopback address,
// a local connection).
func ansibleAdhoc(inv *parse.Invocation) (module, modArgs string, local bool) {
	args := inv.Args
	dyn := func(k int) bool { return inv.DynamicArgs != nil && inv.DynamicArgs[k] }
	module = "command"
	for k := 0; k < len(args); k++ {
		if a := args[k]; k == 0 && !dyn(k) && (a == "localhost" || strings.HasPrefix(a, "127.") || a == "::1") {
			local = true // the hosts are this machine
		} else if a == "--connection=local" || a == "-clocal" {
			local = true
		}
		if k+1 >= len(args) {
			break
		}
		switch a := args[k]; {
		case dyn(k + 1):
		case (a == "-c" || a == "--connection") && args[k+1] == "local":
			local = true
		case a == "-m" || a == "--module-name":
			module = args[k+1]
		case a == "-a" || a == "--args":
			modArgs = args[k+1]
		case strings.HasPrefix(a, "--module-name="):
			module = strings.TrimPrefix(a, "--module-name=")
		case strings.HasPrefix(a, "--args="):
			modArgs = strings.TrimPrefix(a, "--args=")
		}
	}
	module = strings.TrimPrefix(strings.TrimPrefix(module, "ansible.builtin."), "ansible.legacy.")
	return module, modArgs, local
}

// javaOptionEffects: java -XX:OnError=CMD and -XX:OnOutOfMemoryError=CMD
// run CMD; -agentpath:LIB loads a native agent.
func javaOptionEffects(inv *parse.Invocation, b *effectBuilder) {
	for k, w := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			continue
		}
		if !strings.HasPrefix(w, "-") {
			return // the main class: the rest is the program's
		}
		switch {
		case strings.HasPrefix(w, "-XX:OnError=") || strings.HasPrefix(w, "-XX:OnOutOfMemoryError="):
			_, v, _ := strings.Cut(w, "=")
			codeValueEffect(optProgram, v, b) // a command line the JVM hands to a shell
		case strings.HasPrefix(w, "-agentpath:"):
			v, _, _ := strings.Cut(strings.TrimPrefix(w, "-agentpath:"), "=")
			codeValueEffect(optFile, v, b)
		case w == "-jar" || w == "-cp" || w == "-classpath" || w == "--class-path":
			return // jvmRunEffects reads these; after -jar's archive the words are the program's
		}
	}
}

// loaderEffects: the dynamic loader run as a program (ld.so PROG) runs
// PROG, and loads what --preload and --audit name.
func loaderEffects(inv *parse.Invocation, b *effectBuilder) {
	args := inv.Args
	for k := 0; k < len(args); k++ {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			return
		}
		switch w := args[k]; {
		case w == "--preload" || w == "--audit":
			if k+1 < len(args) {
				k++
				codeValueEffect(optFile, args[k], b)
			}
		case w == "--library-path" || w == "--argv0" || w == "--inhibit-rpath":
			k++
		case strings.HasPrefix(w, "-"):
		default:
			b.add(effExec, w)
			return
		}
	}
}

// projectRunners are build tools and task runners that run the project
// files of the directory they work in (a Makefile, build.rs, package.json's
// scripts, conftest.py, a Rakefile), with the subcommands that do (none
// listed: any).
var projectRunners = map[string][]string{
	"make": nil, "gmake": nil, "cargo": {"build", "b", "run", "r", "test", "t", "check", "c", "bench", "install"}, "npm": {"install", "i", "ci", "run", "run-script", "test", "t", "start", "rebuild", "exec"},
	"pnpm": {"install", "i", "run", "test", "start", "exec"}, "yarn": nil, "bun": {"install", "i", "run", "test"}, "go": {"run", "test", "generate"},
	"gradle": nil, "gradlew": nil, "mvn": nil, "mvnw": nil, "ant": nil, "sbt": nil, "rake": nil, "bundle": {"exec"}, "composer": {"install", "update", "run", "run-script", "test"},
	"pytest": nil, "tox": nil, "nox": nil, "just": nil, "task": nil, "mix": {"compile", "test", "run", "deps.compile"}, "dotnet": {"build", "run", "test"},
	"swift": {"build", "run", "test"}, "cmake": nil, "meson": {"setup"}, "ninja": nil, "scons": nil, "waf": nil, "invoke": nil, "poetry": {"install", "run"},
}

// projectRunEffects: a build tool run after a cd out of the workdir (cd
// /tmp/x && make) runs the project files of that directory: their
// directory is taken as run.
func projectRunEffects(a *argv, b *effectBuilder) {
	if !b.cwdKnown || b.cwd == "" || b.cwd[0] != '/' && b.cwd[0] != '~' || under(b.cwd, []string{freshTempPath}) {
		return // in the workdir, or in a directory mktemp just made for the script
	}
	subs, ok := projectRunners[a.name]
	if !ok || subs != nil && !slices.Contains(subs, a.subcommand) {
		return
	}
	b.add(effExec, "*")
}
