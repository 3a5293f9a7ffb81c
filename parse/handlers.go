package parse

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// handlerFor returns what to do with a command of this base name, or nil.
func handlerFor(base string) func(*cmdCtx) {
	if h, ok := handlers()[base]; ok {
		return h
	}
	if sh := shellName(base); sh != "" {
		return shellHandler
	}
	if in := interpName(base); in != "" {
		return interpHandler
	}
	return nil
}

var (
	handlersOnce sync.Once
	handlerMap   map[string]func(*cmdCtx)
)

// handlers maps base names to their handler. It is built on first use, not
// when the program starts.
func handlers() map[string]func(*cmdCtx) {
	handlersOnce.Do(initHandlers)
	return handlerMap
}

func initHandlers() {
	handlerMap = map[string]func(*cmdCtx){
		"eval":      evalHandler,
		"trap":      trapHandler,
		"alias":     aliasHandler,
		"mapfile":   mapfileHandler,
		"readarray": mapfileHandler,
		"env":       envHandler,
		"command":   commandHandler,
		"builtin":   func(c *cmdCtx) { c.wrapped(1, "builtin", nil, c.stdin) },
		"exec":      simpleWrapper(optSpec{arg: "a", flags: "cl"}),
		"sudo": func(c *cmdCtx) {
			spec := optSpec{arg: "ughpCDrtUTR", flags: "AbEHiKklnPSsVve",
				long: []string{"user", "group", "host", "prompt", "close-from", "chdir", "role", "type", "other-user", "command-timeout", "chroot"},
				longFlags: []string{"askpass", "background", "bell", "preserve-env", "set-home", "login", "remove-timestamp", "reset-timestamp",
					"list", "non-interactive", "preserve-groups", "stdin", "shell", "validate", "version", "help", "edit"}}
			k := spec.scan(c.argv)
			if k < 0 {
				c.unknown(1, "sudo")
				return
			}
			for _, w := range c.argv[1:k] {
				if w.text == "-e" || w.text == "--edit" || w.text == "-l" || w.text == "--list" || w.text == "-v" || w.text == "-K" || w.text == "-k" && k == len(c.argv) {
					return
				}
			}
			env, k := envAssigns(c.argv, k)
			c.wrapped(k, "sudo", env, c.stdin)
		},
		"doas":  simpleWrapper(optSpec{arg: "uC", flags: "nsL"}),
		"nice":  niceHandler,
		"nohup": simpleWrapper(optSpec{}),
		"timeout": simpleWrapper(optSpec{arg: "sk", flags: "v", long: []string{"signal", "kill-after"},
			longFlags: []string{"preserve-status", "foreground", "verbose"}, positional: 1}),
		"time": simpleWrapper(optSpec{arg: "fo", flags: "pavq", long: []string{"format", "output"},
			longFlags: []string{"append", "verbose", "portability", "quiet"}}),
		"stdbuf":      simpleWrapper(optSpec{arg: "ioe", long: []string{"input", "output", "error"}}),
		"setsid":      simpleWrapper(optSpec{flags: "cfw", longFlags: []string{"ctty", "fork", "wait"}}),
		"ionice":      pidModeWrapper(optSpec{arg: "cnpPu", flags: "tp", long: []string{"class", "classdata", "pid", "pgid", "uid"}, longFlags: []string{"ignore"}}, "p", "P", "u"),
		"chrt":        pidModeWrapper(optSpec{arg: "TPD", flags: "bdfiorRamv", positional: 1, long: []string{"sched-runtime", "sched-period", "sched-deadline"}, anyLong: true}, "p"),
		"taskset":     pidModeWrapper(optSpec{flags: "acp", positional: 1, longFlags: []string{"all-tasks", "cpu-list"}}, "p"),
		"chroot":      simpleWrapper(optSpec{long: []string{"userspec", "groups"}, longFlags: []string{"skip-chdir"}, positional: 1}),
		"unshare":     simpleWrapper(optSpec{arg: "SGRw", flags: "mUuipnCTfrc", anyLong: true}),
		"nsenter":     simpleWrapper(optSpec{arg: "tSGwWe", flags: "amuinpUCTrF", anyLong: true}),
		"firejail":    simpleWrapper(optSpec{anyLong: true}),
		"bwrap":       bwrapHandler,
		"prlimit":     simpleWrapper(optSpec{arg: "po", flags: "", anyLong: true}),
		"runuser":     suHandler,
		"su":          suHandler,
		"setpriv":     simpleWrapper(optSpec{flags: "d", anyLong: true}),
		"systemd-run": simpleWrapper(optSpec{arg: "pEMu", flags: "rGdtPSq", anyLong: true, long: []string{"unit", "property", "description", "slice", "uid", "gid", "nice", "working-directory", "setenv", "service-type", "machine", "host", "on-calendar", "on-active"}}),
		"strace": simpleWrapper(optSpec{arg: "abeEIOopPsSuUX", flags: "cCdDfFhiknNqrtTvVwxyYZz", anyLong: true,
			long: []string{"output", "trace", "signal", "status", "string-limit", "attach", "user", "env", "trace-path"}}),
		"ltrace":           simpleWrapper(optSpec{arg: "aAeEloOpnsuDFX", flags: "bcCfhiLrStTVw", anyLong: true, long: []string{"output"}}),
		"valgrind":         simpleWrapper(optSpec{flags: "hvqd", anyLong: true}),
		"torsocks":         simpleWrapper(optSpec{arg: "uapPdi", flags: "qh6", anyLong: true}),
		"proxychains":      simpleWrapper(optSpec{arg: "f", flags: "q"}),
		"proxychains4":     simpleWrapper(optSpec{arg: "f", flags: "q"}),
		"caffeinate":       simpleWrapper(optSpec{arg: "tw", flags: "disum"}),
		"rlwrap":           simpleWrapper(optSpec{arg: "bCDefgHlOopPqsSwz", flags: "AcinNrRtUWam", anyLong: true}),
		"dbus-run-session": simpleWrapper(optSpec{long: []string{"config-file", "dbus-daemon"}}),
		"pkexec":           simpleWrapper(optSpec{long: []string{"user"}, longFlags: []string{"disable-internal-agent", "keep-cwd"}}),
		"catchsegv":        simpleWrapper(optSpec{}),
		"faketime":         simpleWrapper(optSpec{arg: "m", flags: "f", positional: 1}),
		"xargs":            xargsHandler,
		"parallel":         parallelHandler,
		"watch":            watchHandler,
		"flock":            flockHandler,
		"script":           scriptHandler,
		"busybox":          func(c *cmdCtx) { c.wrapped(1, "busybox", nil, c.stdin) },
		"toybox":           func(c *cmdCtx) { c.wrapped(1, "toybox", nil, c.stdin) },
		"tmux":             tmuxHandler,
		// screen -dmS NAME CMD, dtach -n SOCKET CMD, abduco -n NAME CMD:
		// a detached terminal runs CMD (screen -X sends keys instead, and
		// -r/-x/-ls attach or list).
		"screen": screenHandler,
		"dtach":  simpleWrapper(optSpec{arg: "aAcner", flags: "Ez"}),
		"abduco": simpleWrapper(optSpec{arg: "e", flags: "cnAafpr", positional: 1}),
		"find":   findHandler,
		"shopt":  shoptHandler,
		// podman unshare CMD and buildah unshare CMD run CMD as root of the
		// rootless user namespace, with the user's files writable.
		"podman":  unshareHandler,
		"buildah": unshareHandler,
	}
}

var bwrapLong = []string{"args", "argv0", "userns", "userns2", "pidns", "uid", "gid", "hostname", "chdir", "unsetenv",
	"lock-file", "sync-fd", "remount-ro", "exec-label", "file-label", "proc", "dev", "tmpfs", "mqueue", "dir",
	"seccomp", "add-seccomp-fd", "block-fd", "userns-block-fd", "info-fd", "json-status-fd", "cap-add", "cap-drop",
	"perms", "size", "chmod"}

var bwrapFlags = []string{"help", "version", "unshare-all", "share-net", "unshare-user", "unshare-user-try", "unshare-ipc",
	"unshare-pid", "unshare-net", "unshare-uts", "unshare-cgroup", "unshare-cgroup-try", "clearenv", "new-session",
	"die-with-parent", "as-pid-1", "disable-userns", "assert-userns-disabled"}

// bwrap's options with two arguments.
var bwrapTwo = []string{"bind", "bind-try", "dev-bind", "dev-bind-try", "ro-bind", "ro-bind-try", "symlink",
	"setenv", "file", "bind-data", "ro-bind-data", "bind-fd", "ro-bind-fd", "overlay-src"}

func bwrapHandler(c *cmdCtx) {
	// Two-argument options do not fit optSpec; skip them first.
	i := 1
	for i < len(c.argv) {
		w := c.argv[i]
		if w.dyn {
			c.unknown(i, "bwrap")
			return
		}
		name := strings.TrimPrefix(w.text, "--")
		switch {
		case w.text == "--":
			c.wrapped(i+1, "bwrap", nil, c.stdin)
			return
		case !strings.HasPrefix(w.text, "--"):
			c.wrapped(i, "bwrap", nil, c.stdin)
			return
		case contains(bwrapTwo, name):
			i += 3
		case contains(bwrapLong, name):
			i += 2
		case contains(bwrapFlags, name):
			i++
		default:
			c.unknown(i, "bwrap")
			return
		}
	}
}

// unshareHandler: the unshare subcommand runs the command after it (and
// after its options); the other subcommands are the tool's own.
func unshareHandler(c *cmdCtx) {
	if len(c.argv) < 3 || c.argv[1].dyn || c.argv[1].text != "unshare" {
		return
	}
	k := 2
	for k < len(c.argv) && !c.argv[k].dyn && strings.HasPrefix(c.argv[k].text, "-") {
		k++
	}
	if k < len(c.argv) {
		c.wrapped(k, c.base+" unshare", nil, c.stdin)
	}
}

// simpleWrapper runs the command after the options described by spec.
func simpleWrapper(spec optSpec) func(*cmdCtx) {
	return func(c *cmdCtx) {
		k := spec.scan(c.argv)
		if k < 0 {
			c.unknown(1, c.base)
			return
		}
		c.wrapped(k, c.base, nil, c.stdin)
	}
}

// pidModeWrapper is simpleWrapper for commands that act on existing processes
// instead of running one when one of the options in pidOpts is given.
func pidModeWrapper(spec optSpec, pidOpts ...string) func(*cmdCtx) {
	return func(c *cmdCtx) {
		k := spec.scan(c.argv)
		if k < 0 {
			c.unknown(1, c.base)
			return
		}
		for _, w := range c.argv[1:k] {
			if strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") {
				for _, p := range pidOpts {
					if strings.Contains(w.text[1:], p) {
						return
					}
				}
			}
			if w.text == "--pid" || w.text == "--pgid" || w.text == "--uid" {
				return
			}
		}
		c.wrapped(k, c.base, nil, c.stdin)
	}
}

func niceHandler(c *cmdCtx) {
	// nice -N cmd is the old form of nice -n N.
	argv := c.argv
	k := 1
	if k < len(argv) && !argv[k].dyn && len(argv[k].text) > 1 && argv[k].text[0] == '-' && isDigits(strings.TrimPrefix(argv[k].text[1:], "-")) {
		k++
		sub := append([]word{argv[0]}, argv[k:]...)
		spec := optSpec{arg: "n", long: []string{"adjustment"}}
		j := spec.scan(sub)
		if j < 0 {
			c.unknown(1, "nice")
			return
		}
		c.wrapped(j+k-1, "nice", nil, c.stdin)
		return
	}
	simpleWrapper(optSpec{arg: "n", long: []string{"adjustment"}})(c)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func commandHandler(c *cmdCtx) {
	k := 1
	for k < len(c.argv) {
		w := c.argv[k]
		if w.dyn {
			c.unknown(k, "command")
			return
		}
		if w.text == "--" {
			k++
			break
		}
		if len(w.text) < 2 || w.text[0] != '-' {
			break
		}
		for _, ch := range w.text[1:] {
			switch ch {
			case 'v', 'V':
				return // only describes the command
			case 'p':
			default:
				return // invalid option: bash runs nothing
			}
		}
		k++
	}
	c.wrapped(k, "command", nil, c.stdin)
}

func envHandler(c *cmdCtx) {
	argv := c.argv
	var env []string
	i := 1
	for i < len(argv) {
		w := argv[i]
		if w.dyn && !quotedAssign(w) {
			if i+1 < len(argv) && !argv[i+1].dyn && envFileWord(w) {
				env = append(env, w.text) // unknown assignments from a project file
				i++
				continue
			}
			c.unknown(i, "env")
			return
		}
		t := w.text
		var split string
		hasSplit := false
		switch {
		case t == "--":
			i++
			e, k := envAssigns(argv, i)
			env = append(env, e...)
			c.wrapped(k, "env", env, c.stdin)
			return
		case t == "-":
			i++
			continue
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t[2:], "=")
			switch name {
			case "ignore-environment", "null", "debug", "list-signal-handling", "block-signal", "default-signal", "ignore-signal":
				i++
			case "unset", "chdir", "argv0":
				if hasVal {
					i++
				} else {
					i += 2
				}
			case "split-string":
				if hasVal {
					split, hasSplit = val, true
					i++
				} else if i+1 < len(argv) {
					if argv[i+1].dyn {
						c.unknown(i+1, "env -S")
						return
					}
					split, hasSplit = argv[i+1].text, true
					i += 2
				} else {
					return
				}
			default:
				c.unknown(i, "env")
				return
			}
		case len(t) > 1 && t[0] == '-':
			next := i + 1
		letters:
			for j := 1; j < len(t); j++ {
				switch t[j] {
				case 'i', '0', 'v':
				case 'u', 'C', 'P', 'a':
					if j == len(t)-1 {
						next++
					}
					break letters
				case 'S':
					if j < len(t)-1 {
						split = t[j+1:]
					} else if next < len(argv) {
						if argv[next].dyn {
							c.unknown(next, "env -S")
							return
						}
						split = argv[next].text
						next++
					}
					hasSplit = true
					break letters
				default:
					c.unknown(i, "env")
					return
				}
			}
			i = next
		default:
			e, k := envAssigns(argv, i)
			env = append(env, e...)
			if k+1 < len(argv) && !argv[k+1].dyn && envFileWord(argv[k]) {
				env = append(env, argv[k].text)
				i = k + 1
				continue
			}
			c.wrapped(k, "env", env, c.stdin)
			return
		}
		if hasSplit {
			words, ok := splitEnvS(split, argv[i-1].pos)
			if !ok {
				c.unknown(i-1, "env -S")
				return
			}
			// The split words take the place of the -S option and are
			// processed as options and operands in turn.
			rest := append(append([]word{argv[0]}, words...), argv[i:]...)
			c.argv = rest
			argv = rest
			i = 1
		}
	}
}

// splitEnvS splits the argument of env -S as env does. It reports false for
// what it does not model: ${VAR} expansion and unknown escapes.
func splitEnvS(s string, p Pos) ([]word, bool) {
	var out []word
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			out = append(out, word{text: cur.String(), pos: p})
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r':
			flush()
		case ch == '#' && !inWord:
			return out, true
		case ch == '$':
			return nil, false
		case ch == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			body := s[i+1 : i+1+j]
			if strings.ContainsRune(body, '\\') {
				return nil, false
			}
			cur.WriteString(body)
			i += j + 1
		case ch == '"':
			inWord = true
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, false
			}
			body := s[i+1 : i+1+j]
			if strings.ContainsAny(body, "\\$") {
				return nil, false
			}
			cur.WriteString(body)
			i += j + 1
		case ch == '\\':
			if i+1 == len(s) {
				return nil, false
			}
			i++
			switch s[i] {
			case 'c':
				flush()
				return out, true
			case '_':
				if !inWord {
					flush()
					continue
				}
				cur.WriteByte(' ')
			case 'n':
				cur.WriteByte('\n')
			case 't':
				cur.WriteByte('\t')
			case '#', '$', '\\', '\'', '"':
				cur.WriteByte(s[i])
			default:
				return nil, false
			}
			inWord = true
		default:
			inWord = true
			cur.WriteByte(ch)
		}
	}
	flush()
	return out, true
}

func suHandler(c *cmdCtx) {
	// su and runuser pass -c to the target user's shell; other operands
	// after the user are handed to that shell as arguments.
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		if w.dyn {
			c.unknown(i, c.base)
			return
		}
		t := w.text
		switch {
		case t == "-c" || t == "--command" || t == "--session-command":
			if i+1 < len(c.argv) {
				c.inv().InlineCode = &InlineCode{Interpreter: "sh", Code: c.argv[i+1].text, Dynamic: c.argv[i+1].dyn}
				c.code(c.argv[i+1], c.base+" -c")
			}
			return
		case strings.HasPrefix(t, "--command=") || strings.HasPrefix(t, "--session-command="):
			_, v, _ := strings.Cut(t, "=")
			cw := word{text: v, pos: w.pos}
			c.inv().InlineCode = &InlineCode{Interpreter: "sh", Code: v}
			c.code(cw, c.base+" -c")
			return
		case len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.Contains(t, "c"):
			j := strings.IndexByte(t, 'c')
			if strings.ContainsAny(t[1:j], "gGsuw") {
				continue
			}
			var cw word
			if j < len(t)-1 {
				cw = word{text: t[j+1:], pos: w.pos}
			} else if i+1 < len(c.argv) {
				cw = c.argv[i+1]
			} else {
				return
			}
			c.inv().InlineCode = &InlineCode{Interpreter: "sh", Code: cw.text, Dynamic: cw.dyn}
			c.code(cw, c.base+" -c")
			return
		}
	}
}

// script (util-linux) runs the command of -c/--command in a shell. Short
// options combine (-qc CMD, -qcCMD); these take a value.
const scriptValueShort = "IOBTmoE"

var scriptValueLong = []string{"log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit", "echo"}

func scriptHandler(c *cmdCtx) {
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		if w.dyn {
			c.unknown(i, "script")
			return
		}
		t := w.text
		var cw word
		found := false
		switch {
		case t == "--":
			return // the rest is the typescript file
		case t == "--command":
			if i+1 >= len(c.argv) {
				return
			}
			cw, found = c.argv[i+1], true
		case strings.HasPrefix(t, "--command="):
			cw, found = word{text: strings.TrimPrefix(t, "--command="), pos: w.pos}, true
		case strings.HasPrefix(t, "--"):
			if contains(scriptValueLong, t[2:]) {
				i++
			}
		case len(t) > 1 && t[0] == '-':
		letters:
			for j := 1; j < len(t); j++ {
				switch {
				case t[j] == 'c' && j+1 < len(t):
					cw, found = word{text: t[j+1:], pos: w.pos}, true
					break letters
				case t[j] == 'c':
					if i+1 >= len(c.argv) {
						return
					}
					cw, found = c.argv[i+1], true
					break letters
				case strings.IndexByte(scriptValueShort, t[j]) >= 0:
					if j+1 == len(t) {
						i++
					}
					break letters
				}
			}
		}
		if found {
			c.inv().InlineCode = &InlineCode{Interpreter: "sh", Code: cw.text, Dynamic: cw.dyn}
			c.code(cw, "script -c")
			return
		}
	}
}

func flockHandler(c *cmdCtx) {
	spec := optSpec{arg: "Ewc", flags: "sxunoF", long: []string{"conflict-exit-code", "timeout", "wait", "command"},
		longFlags: []string{"shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose"}}
	// -c may come before or after the lock file.
	for i := 1; i < len(c.argv); i++ {
		t := c.argv[i].text
		if (t == "-c" || t == "--command") && i+1 < len(c.argv) {
			cw := c.argv[i+1]
			c.inv().InlineCode = &InlineCode{Interpreter: "sh", Code: cw.text, Dynamic: cw.dyn}
			c.code(cw, "flock -c")
			return
		}
	}
	spec.positional = 1
	k := spec.scan(c.argv)
	if k < 0 {
		c.unknown(1, "flock")
		return
	}
	c.wrapped(k, "flock", nil, c.stdin)
}

func watchHandler(c *cmdCtx) {
	spec := optSpec{arg: "nq", flags: "bcCeftwgpx", long: []string{"interval", "differences", "equexit", "shotsdir"},
		longFlags: []string{"beep", "color", "no-color", "errexit", "chgexit", "no-title", "no-wrap", "exec", "precise", "no-linewrap", "help", "version"}}
	k := spec.scan(c.argv)
	if k < 0 {
		c.unknown(1, "watch")
		return
	}
	for _, w := range c.argv[1:k] {
		if w.text == "-x" || w.text == "--exec" || (strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "x")) {
			c.wrapped(k, "watch", nil, nil)
			return
		}
	}
	// Without -x, watch joins its operands with spaces and runs sh -c.
	joinAsCode(c, k, "watch")
}

// tmuxCode are tmux's commands whose operands are a shell command, which
// tmux runs with sh -c, and the options each takes with a value.
var tmuxCode = map[string]optSpec{
	"new-session": {arg: "cefFnstxy", flags: "AdDEPX"}, "new": {arg: "cefFnstxy", flags: "AdDEPX"},
	"new-window": {arg: "cefFnt", flags: "abdkPS"}, "neww": {arg: "cefFnt", flags: "abdkPS"},
	"split-window": {arg: "ceFlt", flags: "bdfhIvPZ"}, "splitw": {arg: "ceFlt", flags: "bdfhIvPZ"},
	"respawn-pane": {arg: "cet", flags: "k"}, "respawnp": {arg: "cet", flags: "k"},
	"respawn-window": {arg: "cet", flags: "k"}, "respawnw": {arg: "cet", flags: "k"},
	"run-shell": {arg: "dt", flags: "bCE"}, "run": {arg: "dt", flags: "bCE"},
}

// tmuxHandler parses the shell command tmux runs: tmux -c CMD, and the
// operands of new-session, new-window, split-window, respawn-* and
// run-shell (tmux new -d -s dev 'npm run dev' runs npm run dev).
func tmuxHandler(c *cmdCtx) {
	global := optSpec{arg: "cfLST", flags: "2CDhlNuvV"}
	k := global.scan(c.argv)
	if k < 0 {
		c.unknown(1, "tmux")
		return
	}
	for i := 1; i+1 < k; i++ {
		if c.argv[i].text == "-c" {
			c.code(c.argv[i+1], "tmux")
		}
	}
	if k >= len(c.argv) {
		return
	}
	spec, ok := tmuxCode[c.argv[k].text]
	if !ok {
		return
	}
	j := spec.scan(c.argv[k:])
	if j < 0 {
		c.unknown(k, "tmux")
		return
	}
	joinAsCode(c, k+j, "tmux")
}

// joinAsCode parses argv[k:] joined with spaces as shell code.
func joinAsCode(c *cmdCtx, k int, via string) {
	if k >= len(c.argv) {
		return
	}
	texts := make([]string, 0, len(c.argv)-k)
	dyn := false
	for _, w := range c.argv[k:] {
		texts = append(texts, w.text)
		dyn = dyn || w.dyn
	}
	cw := word{text: strings.Join(texts, " "), dyn: dyn, pos: c.argv[k].pos}
	c.inv().InlineCode = &InlineCode{Interpreter: "sh", Code: cw.text, Dynamic: dyn}
	c.code(cw, via)
}

func xargsHandler(c *cmdCtx) {
	spec := optSpec{arg: "adEIiLlnPs", flags: "0oprtx", long: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args",
		"max-procs", "max-chars", "process-slot-var"},
		longFlags: []string{"null", "open-tty", "interactive", "no-run-if-empty", "verbose", "exit", "show-limits", "help", "version"}}
	k := spec.scan(c.argv)
	if k < 0 {
		c.unknown(1, "xargs")
		return
	}
	repl := ""
	for i := 1; i < k; i++ {
		t := c.argv[i].text
		switch {
		case t == "-I" && i+1 < k:
			repl = c.argv[i+1].text
		case strings.HasPrefix(t, "-I"):
			repl = t[2:]
		case t == "-i" || t == "--replace":
			repl = "{}"
		case strings.HasPrefix(t, "-i"):
			repl = t[2:]
		case strings.HasPrefix(t, "--replace="):
			repl = strings.TrimPrefix(t, "--replace=")
		}
	}
	if k >= len(c.argv) {
		// xargs runs echo with the input as arguments.
		return
	}
	c.withPlaceholder(repl, func() { c.wrapped(k, "xargs", nil, nil) })
}

// withPlaceholder marks words containing p as dynamic in what fn reports
// (xargs -I, find -exec {}, parallel {}).
func (c *cmdCtx) withPlaceholder(p string, fn func()) {
	if p == "" {
		fn()
		return
	}
	start := len(c.a.out)
	saved := c.f.placeholder
	g := *c.f
	g.placeholder = p
	c.f = &g
	// Re-resolve words of the wrapped command: mark those containing p.
	for i := range c.argv {
		if strings.Contains(c.argv[i].text, p) && !c.argv[i].dyn {
			c.argv[i].dyn = true
		}
	}
	fn()
	_ = start
	g.placeholder = saved
}

func parallelHandler(c *cmdCtx) {
	// GNU parallel: options, then a command template, then ::: arguments.
	// Without -q it runs the template through a shell; replacement strings
	// {}, {.}, {= perl =} ... are filled in from the arguments.
	i := 1
	for i < len(c.argv) {
		w := c.argv[i]
		if w.dyn {
			c.unknown(i, "parallel")
			return
		}
		t := w.text
		if t == ":::" || t == "::::" || t == ":::+" || t == "::::+" {
			break
		}
		if !strings.HasPrefix(t, "-") {
			break
		}
		if t == "--" {
			i++
			break
		}
		if parallelArgOpt(strings.TrimLeft(strings.SplitN(t, "=", 2)[0], "-")) && !strings.Contains(t, "=") {
			i += 2
			continue
		}
		if len(t) > 2 && t[1] != '-' && strings.ContainsAny(t[1:2], "jSIaCdXEnNLlsP") {
			i++
			continue
		}
		i++
	}
	end := i
	for end < len(c.argv) && !strings.HasPrefix(c.argv[end].text, ":::") {
		end++
	}
	if i >= end {
		// The commands themselves come from the input.
		c.unknown(min(i, len(c.argv)-1), "parallel")
		return
	}
	sub := *c
	sub.argv = c.argv[:end]
	copied := false
	if templ := c.argv[i:end]; !anyWordHas(templ, "{") {
		// Without a replacement string parallel appends each argument of
		// ::: to the command: judge it with them (rm -rf ::: ~/a ~/b runs
		// rm -rf ~/a and rm -rf ~/b); arguments read from files (::::) and
		// the files of a pattern are not known here.
		sub.argv = append([]word(nil), sub.argv...)
		copied = true
		for j := end; j < len(c.argv); j++ {
			switch t := c.argv[j].text; {
			case t == ":::" || t == ":::+":
			case strings.HasPrefix(t, "::::"):
				j = len(c.argv)
			case strings.ContainsAny(t, "*?["):
				// a file-name pattern the outer shell expands: its files
				// are not known here
			default:
				sub.argv = append(sub.argv, c.argv[j])
			}
		}
	}
	for j := i; j < end; j++ {
		t := sub.argv[j].text
		if !strings.Contains(t, "{") {
			continue
		}
		if !copied {
			sub.argv = append([]word(nil), sub.argv...)
			copied = true
		}
		// parallel fills each replacement string with one argument, quoted
		// for the shell: a value known only at run time where it stands, as
		// "$v" is; a perl expression {= ... =} leaves the word unknown.
		if t, ok := parallelReplace(t); ok {
			sub.argv[j].text = t
		} else {
			sub.argv[j].dyn = true
		}
	}
	joinAsCode(&sub, i, "parallel")
}

// parallelReplace writes parallel's replacement strings ({}, {.}, {/},
// {//}, {/.}, {#}, {%}, {N}) in t as a quoted variable, or reports false
// for a perl expression ({= ... =}).
func parallelReplace(t string) (string, bool) {
	if strings.Contains(t, "{=") {
		return t, false
	}
	var out strings.Builder
	for {
		k := strings.IndexByte(t, '{')
		if k < 0 {
			out.WriteString(t)
			return out.String(), true
		}
		e := strings.IndexByte(t[k:], '}')
		if e < 0 {
			out.WriteString(t)
			return out.String(), true
		}
		inner := t[k+1 : k+e]
		out.WriteString(t[:k])
		if inner == "" || inner == "." || inner == "/" || inner == "//" || inner == "/." || inner == "#" || inner == "%" || strings.Trim(inner, "0123456789./") == "" {
			out.WriteString(`"${PARALLEL_ARG}"`)
		} else {
			out.WriteString(t[k : k+e+1])
		}
		t = t[k+e+1:]
	}
}

// parallelArgOpt reports whether a GNU parallel option takes its value in the next word.
func parallelArgOpt(name string) bool {
	switch name {
	case "j", "jobs", "S", "sshlogin", "I", "a", "arg-file", "C", "colsep", "d", "delimiter", "E", "n", "max-args", "N", "L",
		"max-lines", "s", "max-chars", "P", "joblog", "results", "tmpdir", "workdir",
		"timeout", "retries", "delay", "memfree", "load", "tag-string", "env":
		return true
	}
	return false
}

func findHandler(c *cmdCtx) {
	root := findRoot(c.argv)
	for i := 1; i < len(c.argv); i++ {
		t := c.argv[i].text
		if c.argv[i].dyn {
			continue
		}
		switch t {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		end := i + 1
		for end < len(c.argv) && !(c.argv[end].text == ";" || c.argv[end].text == "+") {
			end++
		}
		sub := *c
		sub.argv = append([]word{c.argv[i]}, c.argv[i+1:end]...)
		for j := range sub.argv {
			if strings.Contains(sub.argv[j].text, "{}") {
				if j >= 2 && root != "" && strings.HasPrefix(sub.argv[j].text, "{}") && !sub.argv[j].dyn {
					// A file found under the one static root: a path inside it.
					sub.argv[j].text = root + "/" + sub.argv[j].text
					continue
				}
				sub.argv[j].dyn = true
			}
		}
		sub.wrapped(1, "find "+t, nil, nil)
		i = end
	}
}

// shellSetup are tools whose output is meant for eval: they print the
// variables (and functions) that set them up in the current shell, and
// eval "$(ssh-agent -s)" is how they are used. Their own invocation, in
// the $(...), is judged like any other.
var shellSetup = map[string]bool{"ssh-agent": true, "brew": true, "pyenv": true, "rbenv": true, "nodenv": true, "goenv": true,
	"jenv": true, "opam": true, "fnm": true, "zoxide": true, "starship": true, "mise": true, "keychain": true, "gpg-agent": true, "dircolors": true,
	"direnv": true, "go": true, "minikube": true, "docker-machine": true, "conda": true, "luarocks": true}

// setupVerbs: the subcommands that print a shellSetup tool's setup code;
// its other subcommands print anything (mise exec -- echo CMD, ssh-agent
// CMD run a command whose output eval would run). A tool not here takes
// options only; keychain and dircolors take files (keys, a colors file).
var setupVerbs = map[string][]string{
	"brew": {"shellenv"}, "pyenv": {"init", "virtualenv-init"}, "rbenv": {"init"}, "nodenv": {"init"}, "goenv": {"init"}, "jenv": {"init"},
	"opam": {"env", "config"}, "fnm": {"env"}, "zoxide": {"init"}, "starship": {"init"}, "mise": {"activate", "env", "hook-env"},
	"direnv": {"export", "hook"}, "keychain": nil, "dircolors": nil,
	// Round 21: go env prints GOPATH='...' lines quoted for sh; minikube
	// docker-env and docker-machine env the export lines of a local
	// engine; conda shell.bash hook and luarocks path their setup
	"go": {"env"}, "minikube": {"docker-env", "podman-env"}, "docker-machine": {"env"}, "conda": {"shell.bash", "shell.zsh", "shell.posix"},
	"luarocks": {"path"},
}

// setupOutput reports whether w is "$(TOOL ARG...)" with a shellSetup tool
// and plain static arguments (ssh-agent -s, pyenv init -, opam env), its
// first word that is not an option one of the tool's setupVerbs, or the
// lines grep keeps of that (linesKept).
func setupOutput(w word) bool {
	t := strings.TrimSuffix(strings.TrimPrefix(w.text, `"`), `"`)
	inner, ok := strings.CutPrefix(t, "$(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return false
	}
	inner = strings.TrimSuffix(inner, ")")
	if first, filter, piped := strings.Cut(inner, "|"); piped {
		if !linesKept(filter) {
			return false
		}
		inner = first
	}
	f := strings.Fields(inner)
	if len(f) > 0 {
		f[0] = installedTool(f[0])
	}
	if completionOutput(f) {
		return true // Round 13 (completion.go)
	}
	if len(f) == 0 || !shellSetup[f[0]] {
		return false
	}
	for _, a := range f[1:] {
		if strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.=") != "" {
			return false
		}
	}
	verbs, anyWords := setupVerbs[f[0]]
	for _, a := range f[1:] {
		if !strings.HasPrefix(a, "-") {
			return anyWords && (verbs == nil || slices.Contains(verbs, a))
		}
	}
	return true
}

// toolDirs are where a package manager installs the setup tools, owned by
// root or by Homebrew, not by the work: eval "$(/home/linuxbrew/.linuxbrew/
// bin/brew shellenv)" is how Homebrew's installer says to set it up.
var toolDirs = []string{"/usr/bin/", "/bin/", "/usr/local/bin/", "/opt/homebrew/bin/", "/home/linuxbrew/.linuxbrew/bin/"}

// installedTool returns a program's name for a path in one of toolDirs
// (/opt/homebrew/bin/brew is brew), and any other word as it is.
func installedTool(w string) string {
	for _, d := range toolDirs {
		if rest, ok := strings.CutPrefix(w, d); ok && rest != "" && !strings.ContainsAny(rest, "/$`*?[") {
			return rest
		}
	}
	return w
}

func evalHandler(c *cmdCtx) {
	if len(c.argv) < 2 {
		return
	}
	if len(c.argv) == 2 && setupOutput(c.argv[1]) {
		// Round 13: unless the script defines a function (or an alias) of
		// the tool's name, whose output is then the script's own
		tool := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(c.argv[1].text, `"`), "$("))[0]
		if !c.a.funcs[tool] && !c.a.funcs["grep"] {
			g := append(append([]string(nil), c.f.via...), c.via...)
			c.a.setupEvals = append(c.a.setupEvals, setupEval{tool: tool, w: c.argv[1], via: appendVia(g, "eval"),
				background: c.inv().Background, endless: c.inv().EndlessLoop})
			return
		}
	}
	texts := make([]string, 0, len(c.argv)-1)
	dyn := false
	for _, w := range c.argv[1:] {
		texts = append(texts, w.text)
		dyn = dyn || w.dyn
	}
	cw := word{text: strings.Join(texts, " "), dyn: dyn, pos: c.argv[1].pos}
	if dyn {
		cw.text = strings.Join(texts, " ")
	}
	c.code(cw, "eval")
}

func trapHandler(c *cmdCtx) {
	args := c.argv[1:]
	if len(args) > 0 && args[0].text == "--" {
		args = args[1:]
	}
	if len(args) < 2 || strings.HasPrefix(args[0].text, "-") && !args[0].dyn {
		return
	}
	c.code(args[0], "trap")
}

func mapfileHandler(c *cmdCtx) {
	for i := 1; i+1 < len(c.argv); i++ {
		if c.argv[i].text == "-C" {
			c.code(c.argv[i+1], c.base+" -C")
			return
		}
	}
}

func aliasHandler(c *cmdCtx) {
	for _, w := range c.argv[1:] {
		if !w.dyn && !strings.Contains(w.text, "=") {
			continue // alias -p, alias ll: prints
		}
		name, value, _ := strings.Cut(w.text, "=")
		if w.dyn || !plainAlias(name, value) {
			c.failAt(w, "alias definitions are not supported: bash may expand aliases this analysis does not see")
			return
		}
		// Round 13: an alias of plain words (alias ll='ls -la') runs
		// what a function of them would: ll src is ls -la src.
		c.code(word{text: name + "() { " + value + ` "$@"; }`, pos: w.pos}, "alias")
	}
}

// plainAlias: an alias whose name is a plain word and not a reserved one
// (bash expands an alias in a reserved word's place: alias fi=... changes
// how an if reads), and whose value is plain words, with no quoting,
// expansion, operator, comment, pattern or trailing blank (which would
// expand the next word as an alias too): its expansion is then the same
// as a call of a function of those words. So shopt -s expand_aliases,
// which makes bash expand the script's aliases, changes nothing the
// analysis does not see.
func plainAlias(name, value string) bool {
	if name == "" || value == "" || value[len(value)-1] == ' ' || value[0] == ' ' || reservedWords[name] {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	for _, r := range value {
		if !(r == ' ' || r == '_' || r == '-' || r == '.' || r == '/' || r == ':' || r == '=' || r == ',' || r == '+' || r == '@' || r == '%' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	if strings.Contains(value, "  ") {
		return false
	}
	// Not a program that runs code or other commands (sh -c, python -c,
	// eval, sudo, xargs), nor a builtin that changes the shell's state
	// (cd, export, source): a call of it reads more than its words.
	first, _, _ := strings.Cut(value, " ")
	switch first {
	case ".", "source", "cd", "pushd", "popd", "trap", "alias", "unalias", "set", "shopt", "declare", "typeset", "local", "export", "readonly",
		"enable", "hash", "let", "unset", "read", "mapfile", "readarray", "printf", "getopts", "shift", "return", "exit", "umask", "ulimit", "fc", "history":
		return false
	}
	return !strings.Contains(first, "=") && handlerFor(path.Base(first)) == nil
}

// reservedWords are bash's reserved words made of letters.
var reservedWords = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "fi": true, "case": true, "esac": true, "for": true,
	"select": true, "while": true, "until": true, "do": true, "done": true, "in": true, "function": true, "time": true, "coproc": true}

func shoptHandler(c *cmdCtx) {
	set := false
	for _, w := range c.argv[1:] {
		switch {
		case w.dyn:
			c.failAt(w, "shopt with a dynamic argument is not supported: it may change how bash reads the rest of the script")
			return
		case strings.HasPrefix(w.text, "-") && strings.Contains(w.text, "s"):
			set = true
		case set && w.text == "extglob":
			c.failAt(w, "shopt -s "+w.text+" is not supported: it changes how bash reads the rest of the script")
			return
		}
	}
}

func (c *cmdCtx) failAt(w word, msg string) {
	if c.a.err == nil {
		c.a.err = &Error{Pos: w.pos, Msg: msg}
	}
}

// findRoot returns the one directory find searches when it is a static
// relative path that stays inside the working directory (., src, ./build)
// and find does not follow symbolic links; otherwise "". The files find
// passes to -exec are then paths inside it.
func findRoot(argv []word) string {
	i := 1
	for i < len(argv) && !argv[i].dyn && (argv[i].text == "-P" || argv[i].text == "-H" || argv[i].text == "-O3" || argv[i].text == "-O2" || argv[i].text == "-O1") {
		i++
	}
	if i >= len(argv) || argv[i].dyn {
		return ""
	}
	r := argv[i].text
	if r == "" || strings.HasPrefix(r, "-") || strings.HasPrefix(r, "/") || strings.HasPrefix(r, "~") || r == "(" || r == "!" {
		return ""
	}
	for _, seg := range strings.Split(r, "/") {
		if seg == ".." {
			return ""
		}
	}
	if i+1 < len(argv) && !argv[i+1].dyn && !strings.HasPrefix(argv[i+1].text, "-") && argv[i+1].text != "(" && argv[i+1].text != "!" {
		return "" // more than one root
	}
	for _, w := range argv[i+1:] {
		if w.dyn || w.text == "-L" || w.text == "-follow" {
			return ""
		}
		if w.text == "-exec" || w.text == "-execdir" || w.text == "-ok" || w.text == "-okdir" {
			break
		}
	}
	return strings.TrimSuffix(r, "/")
}

// screenHandler: screen runs the command after its options in a new
// window, unless it is told to attach, list, or send a command to a
// session (-r, -x, -ls, -X ...), which run nothing of their own.
func screenHandler(c *cmdCtx) {
	for _, w := range c.argv[1:] {
		switch w.text {
		case "-r", "-R", "-RR", "-x", "-X", "-Q", "-ls", "-list", "-wipe", "-v", "-version", "--version", "-h", "--help":
			return
		}
	}
	simpleWrapper(optSpec{arg: "SceThptp", flags: "dmDRrLaAfiOqUxlwv"})(c)
}

// anyWordHas reports whether one of ws holds sub.
func anyWordHas(ws []word, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w.text, sub) {
			return true
		}
	}
	return false
}
