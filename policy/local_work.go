package policy

import (
	"path"
	"slices"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 13: work on the project's own files, branches and local servers
// that only looks like destruction. Each test here reads one invocation and
// starts from its command name, so that everyday commands pay nothing.

// gitCleanPathsInWorkdir reports whether git clean is limited to pathspecs
// that name parts of the workdir (git clean -fdx -e .env build/, git clean
// -fd src/generated): it then deletes untracked files only under those
// directories, not new source files anywhere in the tree. A pathspec that
// is the whole tree (., :/, *), leaves it (/, ~, ..), uses pathspec magic
// or is known only at run time, and git -C or --work-tree pointing at
// another tree, make it false.
func gitCleanPathsInWorkdir(inv *parse.Invocation) bool {
	if commandName(inv.Name) != "git" || inv.Dynamic || inv.DynamicArgs != nil && anyTrue(inv.DynamicArgs) {
		return false
	}
	args := inv.Args
	// git -C DIR, --git-dir, --work-tree, -c before the subcommand: another
	// tree or configuration
	const k = 0
	if len(args) == 0 || args[k] != "clean" {
		return false
	}
	paths := 0
	optsDone := false
	for j := k + 1; j < len(args); j++ {
		w := args[j]
		switch {
		case !optsDone && w == "--":
			optsDone = true
		case !optsDone && (w == "-e" || w == "--exclude"):
			j++ // the pattern it keeps
		case !optsDone && strings.HasPrefix(w, "-"):
			// -f, -d, -x, -X, -q, -n, -eX, --exclude=X, --force ...
		default:
			if !workdirSubpath(w) {
				return false
			}
			paths++
		}
	}
	return paths > 0
}

// workdirSubpath: a relative path or pattern naming a part of the workdir,
// not the whole of it: build/, ./src/generated, dist.
func workdirSubpath(p string) bool {
	q := strings.TrimPrefix(p, "./")
	q = strings.TrimRight(q, "/")
	if q == "" || q == "." || strings.HasPrefix(q, "/") || strings.HasPrefix(q, "~") || strings.HasPrefix(q, ":") || strings.HasPrefix(q, "-") {
		return false
	}
	if strings.ContainsAny(q, "*?[$`\\") {
		return false // a pattern may match the whole tree
	}
	for part := range strings.SplitSeq(q, "/") {
		if part == ".." || part == "." || part == ".git" {
			return false
		}
	}
	return true
}

// swaksTargetLocal: swaks is told the server to hand the mail to
// (--server, -s) and it is on this machine: a local mail catcher (MailHog,
// Mailpit on 1025) keeps what it is given. Without --server swaks looks up
// the recipient's mail exchanger and delivers there.
func swaksTargetLocal(inv *parse.Invocation) bool {
	servers := 0
	for _, w := range serverWords(inv, func(opt string) bool { return opt == "-s" || opt == "--server" }) {
		switch {
		case w.opt == "-s" || w.opt == "--server":
			if w.dyn || !localAddress(w.value) {
				return false
			}
			servers++
		case w.opt == "--pipe" || w.opt == "--socket" || strings.HasPrefix(w.opt, "--proxy"):
			return false // another way to the mail server
		}
	}
	return servers > 0
}

// localEmulators are wrappers of cloud tools that point them at LocalStack
// on this machine (tflocal destroy, awslocal s3 rb, cdklocal destroy): the
// resources they act on are the emulator's. A variable naming another
// LocalStack host or endpoint makes them not local.
var localEmulators = map[string]bool{"tflocal": true, "awslocal": true, "cdklocal": true, "samlocal": true, "pulumilocal": true, "sls-local": true}

func localEmulatorTarget(ctx *scriptCtx, inv *parse.Invocation) bool {
	for _, e := range inv.Env {
		if strings.Contains(e, "LOCALSTACK") || strings.Contains(e, "ENDPOINT") || strings.Contains(e, "EDGE_PORT") {
			if !endpointAssignmentLocal(e) { // Round 22 (local_endpoint.go)
				return false
			}
		} else if strings.Contains(e, "AWS_") {
			return false
		}
	}
	if ctx.text != nil && (strings.Contains(*ctx.text, "LOCALSTACK_H") || strings.Contains(*ctx.text, "ENDPOINT_URL") || strings.Contains(*ctx.text, "EDGE_PORT")) &&
		!endpointNamesLocal(*ctx.text, "LOCALSTACK_H", "ENDPOINT_URL", "EDGE_PORT") {
		return false
	}
	for _, w := range inv.Args {
		if strings.Contains(w, "endpoint") {
			return false
		}
	}
	return true
}

// mongoDevDatabase: mongosh or mongo acts on one database whose name says
// development or test (mongodb://127.0.0.1:27017/app_test, mongosh
// app_test) on this machine, and the code it runs does not switch to
// another database or connection.
func mongoDevDatabase(inv *parse.Invocation) bool {
	db := ""
	for _, w := range serverWords(inv, func(opt string) bool {
		return opt == "--host" || opt == "--port" || opt == "--eval" || opt == "-u" || opt == "--username" || opt == "--authenticationDatabase" || opt == "--file" || opt == "-f"
	}) {
		switch w.opt {
		case "--host":
			if w.dyn || !localAddress(w.value) {
				return false
			}
		case "--eval":
			l := strings.ToLower(w.value)
			if w.dyn || strings.Contains(l, "getsiblingdb") || strings.Contains(l, "connect(") || strings.Contains(l, "mongo(") ||
				strings.Contains(l, "getmongo") || strings.Contains(l, "use ") || strings.Contains(l, "load(") || strings.Contains(l, "admincommand") {
				return false
			}
		case "--file", "-f", "--nodb", "--shell":
			return false
		case "":
			if w.dyn || db != "" || strings.HasSuffix(w.value, ".js") {
				return false
			}
			v := w.value
			if rest, ok := strings.CutPrefix(v, "mongodb://"); ok {
				if !localAddress(v) || strings.Contains(rest, "?") || strings.Contains(rest, ",") {
					return false
				}
				_, name, ok := strings.Cut(rest, "/")
				if !ok {
					return false
				}
				v = name
			} else if strings.Contains(v, "://") {
				return false // mongodb+srv: a cluster found through DNS
			} else if h, name, ok := strings.Cut(v, "/"); ok {
				if !localAddress(h) {
					return false
				}
				v = name
			}
			db = v
		}
	}
	return devName(strings.ToLower(db))
}

// servicePorts are the well-known ports of databases, brokers and search
// engines: SIGKILL to what listens there can lose what it had not written.
// A dev server's port (3000, 5173, 8080) holds nothing to lose.
var servicePorts = map[string]bool{"5432": true, "3306": true, "33060": true, "6379": true, "6380": true, "27017": true, "27018": true, "9042": true,
	"9200": true, "9300": true, "5984": true, "8086": true, "7687": true, "11211": true, "1433": true, "1521": true, "26257": true, "8123": true,
	"9000": true, "5672": true, "9092": true, "2181": true, "4222": true, "2379": true, "8500": true, "7474": true, "28015": true, "50000": true}

// killsServicePort: a port lookup's words (lsof -t -i:5432, fuser
// 6379/tcp) name a service's port.
func killsServicePort(f []string) bool {
	for _, w := range f {
		if i := strings.LastIndexByte(w, ':'); i >= 0 {
			w = w[i+1:]
		}
		w, _, _ = strings.Cut(w, "/")
		if servicePorts[w] {
			return true
		}
	}
	return false
}

// pidFromCommandLine reports whether every pid kill is given is the answer
// of pgrep -f for a pattern that names one command line of the work's own
// (kill $(pgrep -f 'vite --port 5173'), $(pgrep -f 'node server.js')): a
// program and an option, a port or a file of its own, as pkill -f 'vite
// --port 5173' does. A single word (pgrep -f java), two bare words ('node
// server'), a database's server, or a pid from anything else make it false.
func pidFromCommandLine(inv *parse.Invocation) bool {
	lookups := 0
	for j, w := range inv.Args {
		dyn := inv.DynamicArgs != nil && j < len(inv.DynamicArgs) && inv.DynamicArgs[j]
		if !dyn {
			if strings.HasPrefix(w, "-") {
				continue // a signal
			}
			return false
		}
		inner, ok := strings.CutPrefix(strings.Trim(w, `"`), "$(")
		if !ok || !strings.HasPrefix(strings.TrimSpace(inner), "pgrep ") || !strings.HasSuffix(inner, ")") {
			return false
		}
		s, err := parse.Parse(strings.TrimSuffix(inner, ")"))
		if err != nil || len(s.Invocations) != 1 {
			return false
		}
		p := &s.Invocations[0]
		if p.Name != "pgrep" || p.Dynamic || p.DynamicArgs != nil || len(p.Redirects) > 0 && !devNullOnly(p.Redirects) {
			return false
		}
		full, pattern := false, ""
		for k, a := range p.Args {
			switch {
			case a == "-f" || a == "--full":
				full = true
			case a == "-n" || a == "-o" || a == "--newest" || a == "--oldest" || a == "--":
			case pattern == "" && !strings.HasPrefix(a, "-") && k == len(p.Args)-1:
				pattern = a
			default:
				return false // -u, -P, -a ...: read no further than a person would
			}
		}
		if !full || !ownCommandLine(pattern) {
			return false
		}
		lookups++
	}
	return lookups > 0
}

func devNullOnly(rs []parse.Redirect) bool {
	for _, r := range rs {
		if r.Target != "/dev/null" {
			return false
		}
	}
	return true
}

// ownCommandLine: a pgrep -f or pkill -f pattern that picks out one
// command line: a program and, after it, an option, a number or a file
// or module name (vite --port 5173, node server.js, uvicorn app.main:app),
// with no regular expression wider than a word and no database server.
func ownCommandLine(p string) bool {
	f := strings.Fields(p)
	if len(f) < 2 || strings.ContainsAny(p, "*+?|()[]{}^$\\") {
		return false
	}
	// a program of the work's own, not a system's daemon or service (sshd,
	// auditd, falco), a database's server or one installed by absolute path
	prog := path.Base(f[0])
	if strings.HasPrefix(f[0], "/") || len(prog) > 2 && strings.HasSuffix(prog, "d") {
		return false
	}
	switch prog {
	case "postgres", "postmaster", "mariadbd", "redis-server", "valkey-server", "elasticsearch", "java", "stockade", "falco", "falcon-sensor",
		"wazuh-agent", "osquery", "clamav", "fail2ban-server", "systemd", "init", "kubelet", "apparmor", "auditctl", "crowdstrike", "sudo", "su":
		return false
	}
	for _, w := range f[1:] {
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "0123456789./:") {
			return true
		}
	}
	return false
}

// localRelease: goreleaser told to build the release here and publish
// nothing (--snapshot, --skip=publish, the older --skip-publish).
func localRelease(a *argv) bool {
	if a.name != "goreleaser" {
		return false
	}
	for _, w := range a.words {
		if w == "--snapshot" || w == "--skip-publish" || strings.HasPrefix(w, "--skip=") && slices.Contains(strings.Split(w[len("--skip="):], ","), "publish") {
			return true
		}
	}
	return false
}

// runSubcommands are the subcommands of package tools after which a
// program or a project's script comes, with its own arguments: npm exec
// PKG ARGS, npm run SCRIPT -- ARGS, uv run PROG ARGS.
var runSubcommands = map[string][]string{
	"npm": {"exec", "x", "run", "run-script", "rum", "urn", "test", "t", "tst", "start", "stop", "restart"}, "pnpm": {"dlx", "exec", "run", "test", "t", "start"},
	"yarn": {"dlx", "exec", "run", "test", "start", "node"}, "bun": {"x", "exec", "run", "test"}, "uv": {"run"}, "pipx": {"run"},
	"poetry": {"run"}, "pdm": {"run"}, "rye": {"run"}, "hatch": {"run"}, "pipenv": {"run"},
}

// addressLike: a word that names a package by a network address or a
// repository (https://..., git+ssh://..., git@host:x), or an option that
// names an index or repository.
func addressLike(w string) bool {
	return strings.Contains(w, "://") || strings.HasPrefix(w, "git@") || strings.HasPrefix(w, "git+") ||
		w == "--git" || strings.HasPrefix(w, "--index-url") || strings.HasPrefix(w, "--extra-index-url") || strings.HasPrefix(w, "--registry")
}

// addressForProgram reports whether every network address a package tool
// is given is an argument of the program or project script it runs (npx
// autocannon http://localhost:3000, npm run bench -- https://staging.example,
// uv run pytest --base-url http://127.0.0.1:8000), not a package to fetch:
// the program's own words come after its name. An address in the
// program's place (npx https://x/p.tgz, uv run https://x/s.py), in an
// option before it (--package, --from, --spec, --with, --registry), or
// after an option that may take a value, makes it false.
func addressForProgram(inv *parse.Invocation) bool {
	if inv.Dynamic || inv.DynamicArgs != nil && anyTrue(inv.DynamicArgs) {
		return false
	}
	name := commandName(inv.Name)
	args := inv.Args
	k := 0
	switch name {
	case "npx", "pnpx", "bunx", "uvx":
	default:
		subs, ok := runSubcommands[name]
		if !ok {
			return false
		}
		for k < len(args) && strings.HasPrefix(args[k], "-") && contains(launcherFlags, args[k]) {
			k++
		}
		if k >= len(args) || !slices.Contains(subs, args[k]) {
			return false
		}
		k++
	}
	// the program (or the script's name): the first operand after the
	// runner's own options
	for ; k < len(args); k++ {
		a := args[k]
		switch {
		case addressLike(a):
			return false // in an option or in the program's place
		case a == "--":
			continue
		case strings.HasPrefix(a, "-"):
			if contains(launcherFlags, a) || strings.Contains(a, "=") {
				continue
			}
			if contains(pkgValues, a) {
				k++
				if k < len(args) && addressLike(args[k]) {
					return false
				}
				continue
			}
			if k+1 < len(args) && !strings.HasPrefix(args[k+1], "-") {
				return false // an option that may take the next word: which is the program is not known
			}
			continue
		}
		if strings.Count(a, "/") >= 2 && !strings.HasPrefix(a, ".") && !strings.Contains(path.Base(a), ".") {
			return false // owner/repo/tool: a module path fetched and run
		}
		return k+1 < len(args) // the program; what follows is its own
	}
	return false
}
