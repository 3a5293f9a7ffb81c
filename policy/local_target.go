package policy

import (
	"slices"
	"strings"

	"github.com/stockade/stockade/parse"
)

// A command that acts on a server (an HTTP client, a database client, a
// cluster tool, an image registry) harms the world outside only when the
// server is outside. targetLocal tells the ones that provably work on this
// machine from the rest, so that rules about the world outside (drop-data,
// destroy-world-outside, publish, secrets-uploaded ...) can leave a local
// test database, a kind cluster or a registry on localhost:5000 alone.
// Whatever it cannot read makes it false: a server in a variable, a config
// file or environment that may redirect the connection, an option it does
// not know where a server could hide.

// targetLocal reports whether invocation i names the server it acts on and
// every server it names is on this machine.
func (ctx *scriptCtx) targetLocal(i int, a *argv) bool {
	inv := &ctx.invs[i]
	if ctx.redirectsServers(inv) {
		return false
	}
	switch a.name {
	case "curl", "curlie", "wget", "wget2", "http", "https", "xh", "xhs":
		return httpTargetLocal(inv, a.name)
	case "psql", "pg_dump", "pg_restore", "dropdb", "createdb", "dropuser", "createuser", "mysql", "mariadb", "mysqladmin", "mariadb-admin",
		"redis-cli", "valkey-cli", "mongosh", "mongo", "clickhouse-client":
		return databaseTargetLocal(inv, a.name)
	case "kubectl", "helm", "oc":
		return clusterTargetLocal(inv)
	case "docker", "podman", "nerdctl":
		return registryTargetLocal(inv, a)
	case "swaks":
		return swaksTargetLocal(inv) // Round 13 (local_work.go)
	case "nmap", "masscan", "rustscan":
		return scanTargetLocal(inv) // Round 17 (scan_target.go)
	case "exec", "echo", "printf", "cat":
		return devNetLocal(inv) // Round 17 (scan_target.go)
	case "kind", "minikube":
		return localClusterTool(inv)
	}
	if localEmulators[a.name] {
		return localEmulatorTarget(ctx, inv) // Round 13 (local_work.go)
	}
	return false
}

// serverEnv are variables that choose the server a client talks to, or a
// proxy or config file that may, and the commands that point a context's
// name elsewhere: named anywhere in the script, a local server's name is no
// longer the whole story.
var serverEnv = []string{"KUBECONFIG", "DOCKER_HOST", "DOCKER_CONTEXT", "CONTAINER_HOST", "PGHOST", "PGSERVICE", "PGSERVICEFILE", "MYSQL_HOST",
	"REDISCLI_", "_PROXY", "_proxy", "CURL_HOME", "CURLOPT", "WGETRC", "HELM_KUBE", "HOSTALIASES", "RES_OPTIONS", "LOCALDOMAIN",
	// kubectl config set-context kind-dev --cluster=prod points a local name elsewhere
	"set-context", "set-cluster", "rename-context", "kubeconfig"}

func (ctx *scriptCtx) redirectsServers(inv *parse.Invocation) bool {
	for _, e := range inv.Env {
		if namesServerEnv(e) {
			return true
		}
	}
	if ctx.serverEnvSet == 0 {
		ctx.serverEnvSet = 1
		if ctx.scriptSetsServerEnv() {
			ctx.serverEnvSet = 2
		}
	}
	return ctx.serverEnvSet == 2
}

func namesServerEnv(s string) bool {
	for _, v := range serverEnv {
		if strings.Contains(s, v) {
			return true
		}
	}
	return false
}

// scriptSetsServerEnv reports whether the script names one of serverEnv
// anywhere (export, an assignment, env, a sourced file's name aside).
func (ctx *scriptCtx) scriptSetsServerEnv() bool {
	if ctx.text != nil {
		return namesServerEnv(*ctx.text)
	}
	for j := range ctx.invs {
		for _, e := range ctx.invs[j].Env {
			if namesServerEnv(e) {
				return true
			}
		}
		if n := ctx.invs[j].Name; n == "export" || n == "declare" || n == "typeset" || n == "readonly" || n == "local" {
			for _, w := range ctx.invs[j].Args {
				if namesServerEnv(w) {
					return true
				}
			}
		}
	}
	return false
}

// localAddress reports whether a host[:port] or URL is this machine by
// address: localhost, a loopback address, or an httpie-style :PORT.
func localAddress(w string) bool {
	if strings.ContainsAny(w, "$`\"' \\") {
		return false
	}
	_, rest, scheme := strings.Cut(w, "://")
	if scheme {
		w = rest
	} else if strings.HasPrefix(w, ":") {
		return true // httpie: :3000/api is localhost:3000/api
	}
	hostPort, _, _ := strings.Cut(w, "/")
	hostPort, _, _ = strings.Cut(hostPort, "?")
	hostPort, _, _ = strings.Cut(hostPort, "#")
	if strings.ContainsRune(hostPort, '@') {
		// user@host: read no further than a person would, but for one
		// user name in a URL (postgresql://postgres@localhost/app_test),
		// which every client ends where the host begins
		user, host, _ := strings.Cut(hostPort, "@")
		if !scheme || user == "" || strings.ContainsRune(host, '@') {
			return false
		}
		hostPort = host
	}
	host := hostPort
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return false
		}
		host = host[:end+1]
	} else if h, port, ok := strings.Cut(host, ":"); ok {
		if strings.Trim(port, "0123456789") != "" {
			return false
		}
		host = h
	}
	return loopbackHost(host)
}

// loopbackHost reports whether a host name or address, without a port, is
// this machine: localhost, ::1 or 127.x.y.z. It is the one definition the
// acts (acts_outside.go, acts_api.go) and targetLocal share. Names that
// only a resolver maps here (x.localhost) and 0.0.0.0 are not in it: what
// they reach depends on more than the command.
func loopbackHost(host string) bool {
	host = strings.ToLower(host)
	if host == "localhost" || host == "[::1]" || host == "::1" {
		return true
	}
	if rest, ok := strings.CutPrefix(host, "127."); ok {
		return rest != "" && strings.Trim(rest, "0123456789.") == "" && strings.Count(rest, ".") == 2 && !strings.Contains(rest, "..") && !strings.HasSuffix(rest, ".")
	}
	return false
}

// serverWord is an argument read for the server it may name: an operand,
// or the value of an option.
type serverWord struct {
	opt   string // the option the word is the value of; "" for an operand
	value string
	dyn   bool
}

// serverWords splits an argument list into option values and operands:
// takesValue says which options (as written, without =) take the next word.
func serverWords(inv *parse.Invocation, takesValue func(opt string) bool) []serverWord {
	var out []serverWord
	dyn := func(j int) bool { return inv.DynamicArgs != nil && j < len(inv.DynamicArgs) && inv.DynamicArgs[j] }
	optsDone := false
	for j := 0; j < len(inv.Args); j++ {
		w := inv.Args[j]
		switch {
		case optsDone || len(w) < 2 || w[0] != '-':
			out = append(out, serverWord{value: w, dyn: dyn(j)})
		case w == "--":
			optsDone = true
		case strings.Contains(w, "="):
			opt, val, _ := strings.Cut(w, "=")
			out = append(out, serverWord{opt: opt, value: val, dyn: dyn(j)})
		case takesValue(w) && j+1 < len(inv.Args):
			out = append(out, serverWord{opt: w, value: inv.Args[j+1], dyn: dyn(j + 1)})
			j++
		case w[1] != '-' && len(w) > 2 && takesValue(w[:2]):
			out = append(out, serverWord{opt: w[:2], value: w[2:], dyn: dyn(j)})
		default:
			out = append(out, serverWord{opt: w, dyn: dyn(j)})
		}
	}
	return out
}

// httpRoutes are HTTP clients' options that send a request elsewhere than
// its URL (a proxy, a name resolved to another address, a config file);
// httpCarries take a value that names no server (a header, data, a file).
var httpRoutes = map[string]bool{"-x": true, "--proxy": true, "--preproxy": true, "--resolve": true, "--connect-to": true, "-K": true, "--config": true,
	"--doh-url": true, "--dns-servers": true, "-e": true, "--execute": true, "-i": true, "--input-file": true, "-B": true, "--base": true, "--next": true, "-:": true}
var httpCarries = map[string]bool{"-H": true, "--header": true, "-d": true, "--data": true, "--data-raw": true, "--data-binary": true, "--data-urlencode": true,
	"--json": true, "-F": true, "--form": true, "-o": true, "--output": true, "-O": true, "--output-document": true, "-u": true, "--user": true,
	"-X": true, "--request": true, "-A": true, "--user-agent": true, "-b": true, "--cookie": true, "-c": true, "--cookie-jar": true,
	"-w": true, "--write-out": true, "-m": true, "--max-time": true, "--connect-timeout": true, "--retry": true, "-T": true, "--upload-file": true,
	"--post-data": true, "--post-file": true, "--method": true, "--body-data": true, "-P": true, "--directory-prefix": true, "-t": true, "--tries": true,
	"--timeout": true,
	// Round 22: the envelope's sender names no server; its recipients are
	// where a local mail server may relay to (mailRecipientLocal)
	"--mail-from": true, "--mail-auth": true, "--mail-rcpt": true}

// httpTargetLocal: every operand of an HTTP client is a URL on this
// machine, and no option routes the request elsewhere (a proxy, a name
// resolved to another address, a config file).
func httpTargetLocal(inv *parse.Invocation, name string) bool {
	urls := 0
	for _, w := range serverWords(inv, func(opt string) bool { return httpCarries[opt] || httpRoutes[opt] }) {
		if httpRoutes[w.opt] {
			return false
		}
		if w.opt == "--mail-rcpt" && (w.dyn || !mailRecipientLocal(w.value)) {
			return false
		}
		if w.opt != "" {
			if strings.Contains(w.value, "://") && !(w.opt == "-H" || w.opt == "--header") {
				if w.dyn || !localAddress(w.value) {
					return false
				}
			}
			continue
		}
		if (name == "http" || name == "https" || name == "xh" || name == "xhs") && urls > 0 {
			continue // httpie's request items after the URL: name=value, header:value
		}
		if urls == 0 && isHTTPMethod(w.value) && name != "curl" && name != "curlie" && name != "wget" && name != "wget2" {
			continue
		}
		if w.dyn || !localAddress(w.value) {
			return false
		}
		urls++
	}
	return urls > 0
}

func isHTTPMethod(w string) bool {
	switch w {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
		return true
	}
	return false
}

// databaseTargetLocal: a database client names its server (-h, --host, a
// URL, host= in a connection string) and every server it names is on this
// machine. A client that names none connects to whatever its environment
// says, which the analysis cannot see.
func databaseTargetLocal(inv *parse.Invocation, name string) bool {
	hostOpt := map[string]bool{"-h": true, "--host": true, "-u": name == "redis-cli" || name == "valkey-cli", "--uri": true, "--url": true,
		"-d": true, "--dbname": true}
	valued := map[string]bool{"-p": true, "--port": true, "-U": true, "--username": true, "-n": true, "-a": true, "-c": true, "--command": true,
		"-f": true, "--file": true, "-e": true, "--execute": true, "--eval": true, "-D": true, "--database": true}
	hosts := 0
	for _, w := range serverWords(inv, func(opt string) bool { return hostOpt[opt] || valued[opt] }) {
		switch {
		case w.opt == "-S" || w.opt == "--socket" || w.opt == "--ssh" || w.opt == "--sshHost":
			return false
		case hostOpt[w.opt] && (w.opt == "-d" || w.opt == "--dbname"):
			// a database name, or a connection string that names a host
			if w.dyn {
				return false
			}
			if strings.Contains(w.value, "://") {
				if !localAddress(w.value) || strings.Contains(w.value, "?") {
					return false
				}
				hosts++
			} else if strings.Contains(w.value, "=") {
				return false
			}
		case hostOpt[w.opt]:
			if w.dyn || !localAddress(w.value) || strings.Contains(w.value, "?") {
				return false
			}
			hosts++
		case w.opt == "" && strings.Contains(w.value, "://"):
			// ?host= in a libpq URL names the server the URL's host does not
			if w.dyn || !localAddress(w.value) || strings.Contains(w.value, "?") {
				return false
			}
			hosts++
		case w.opt == "" && strings.Contains(w.value, "host="):
			return false // a libpq connection string: read no further
		}
	}
	return hosts > 0 || (name == "redis-cli" || name == "valkey-cli") && redisDefaultServer(inv)
}

// redisLocalOpts are redis-cli's options that name no server (a database
// number, a port, credentials, output modes), with whether they take a
// value. Round 21: redis-cli given no -h, -u or socket talks to the
// server on this machine (127.0.0.1:6379, its compiled-in default; no
// environment variable but REDISCLI_*, which redirectsServers sees,
// changes that), as -h localhost does.
var redisLocalOpts = map[string]bool{"-n": true, "-p": true, "-a": true, "--user": true, "--pass": true, "--askpass": false,
	"--no-auth-warning": false, "--raw": false, "--no-raw": false, "-c": false, "-e": false, "-2": false, "-3": false, "-x": false,
	"--verbose": false, "--quoted-input": false}

// redisDefaultServer reports whether redis-cli's words name no server at
// all, so that it talks to the default one on this machine: every option
// is one of redisLocalOpts (not --cluster, whose commands name servers),
// and no word but a value of one is known only at run time.
func redisDefaultServer(inv *parse.Invocation) bool {
	for j := 0; j < len(inv.Args); j++ {
		w := inv.Args[j]
		if inv.DynamicArgs != nil && j < len(inv.DynamicArgs) && inv.DynamicArgs[j] {
			return false // an option may hide in it
		}
		if len(w) < 2 || w[0] != '-' {
			continue
		}
		takes, ok := redisLocalOpts[w]
		if !ok {
			return false
		}
		if takes {
			j++ // its value: -n "$DB" names no server
		}
	}
	return true
}

// localClusterContext: the names local cluster tools give the contexts
// they write (kind create cluster, k3d, minikube, Docker Desktop ...).
func localClusterContext(c string) bool {
	for _, p := range []string{"kind-", "k3d-"} {
		if rest, ok := strings.CutPrefix(c, p); ok && rest != "" {
			return true
		}
	}
	switch c {
	case "minikube", "docker-desktop", "docker-for-desktop", "rancher-desktop", "orbstack", "colima", "microk8s":
		return true
	}
	return false
}

// clusterContextOpts name a kubeconfig context; clusterServerOpts choose
// the server some other way.
var clusterContextOpts = map[string]bool{"--context": true, "--kube-context": true}
var clusterServerOpts = map[string]bool{"--kubeconfig": true, "--server": true, "-s": true, "--token": true, "--kube-apiserver": true, "--kube-token": true,
	"--cluster": true, "--kube-ca-file": true, "--certificate-authority": true, "--tls-server-name": true}

// clusterTargetLocal: a cluster tool is given a context, every context it
// is given is one a local cluster tool made, and nothing else chooses the
// server (a kubeconfig, a server address, a token).
func clusterTargetLocal(inv *parse.Invocation) bool {
	contexts := 0
	for _, w := range serverWords(inv, func(opt string) bool { return clusterContextOpts[opt] || clusterServerOpts[opt] }) {
		if clusterServerOpts[w.opt] {
			return false
		}
		if clusterContextOpts[w.opt] {
			if w.dyn || !localClusterContext(w.value) {
				return false
			}
			contexts++
		}
	}
	return contexts > 0
}

// registryTargetLocal: a push whose every image names a registry on this
// machine (localhost:5000/app), by a daemon the command does not move
// elsewhere (-H, --host, --context, --url).
func registryTargetLocal(inv *parse.Invocation, a *argv) bool {
	push := -1
	for k, p := range a.positionals {
		if p == "push" {
			push = k
			break
		}
	}
	if push < 0 || push+1 >= len(a.positionals) {
		return false
	}
	for _, w := range a.words {
		if w == "-H" || strings.HasPrefix(w, "--host") || strings.HasPrefix(w, "--context") || strings.HasPrefix(w, "--url") || strings.HasPrefix(w, "--connection") ||
			strings.HasPrefix(w, "-c") || strings.HasPrefix(w, "--remote") {
			return false
		}
	}
	if a.dynamicArg {
		return false
	}
	for _, ref := range a.positionals[push+1:] {
		registry, _, ok := strings.Cut(ref, "/")
		if !ok || !localAddress(registry) {
			return false
		}
	}
	return true
}

// namesListedInWorkdir reports whether invocation i gets its operands from
// xargs (or parallel) fed only by commands that list paths inside the
// workdir, filtered: find from relative start paths, git ls-files, then
// grep, sort, uniq, head or tail. Its own words must all be options, so
// that every path it is given is one the listing printed; rules then judge
// the listing (which files) as they judge find -delete. Under xargs -I R,
// an operand that is R alone is one such path (xargs -I{} sh -n {}).
func (ctx *scriptCtx) namesListedInWorkdir(i int, a *argv) bool {
	inv := &ctx.invs[i]
	if !inv.PipedInto || len(inv.Via) == 0 || (inv.Via[len(inv.Via)-1] != "xargs" && inv.Via[len(inv.Via)-1] != "parallel") {
		return false
	}
	own := len(a.positionals) > 0 || a.dynamicArg
	level := pipelineLevel(inv.Via)
	listed := false
	for j := i - 1; j >= 0; j-- {
		up := &ctx.invs[j]
		if len(up.Via) < len(level) || !sameVia(up.Via[:len(level)], level) {
			return false
		}
		if len(pipelineLevel(up.Via)) > len(level) {
			continue
		}
		if up.Dynamic || ctx.arg(j).dynamicArg || len(up.Redirects) > 0 {
			return false
		}
		ua := ctx.arg(j)
		switch ua.name {
		case "xargs", "parallel":
			// names from stdin only: not from a file (-a); as a template
			// (-I) only where an operand is the name alone
			if up.Name != ua.name && up.Name != "/usr/bin/"+ua.name || ua.hasShort('a') ||
				containsLong(ua.longs, "arg-file") || ua.name == "parallel" && len(ua.words) > 0 && ua.words[len(ua.words)-1] == ":::" {
				return false
			}
			templ := ua.hasShort('I') || ua.hasShort('i') || containsLong(ua.longs, "replace")
			if templ && (ua.name != "xargs" || !operandsAreName(inv, a, xargsReplace(up.Args))) || !templ && own {
				return false
			}
			own = false
		case "find":
			if ua.hasFlagWord("-L", "-H", "-follow") {
				return false // symbolic links followed out of the workdir
			}
			if ua.hasFlagWord("-o", "-or") {
				return false // find . -name '*.pyc' -o -name '*.py' prints both: the scratch pattern is one branch
			}
			for _, w := range up.Args {
				if w == "" || strings.HasPrefix(w, "-") || w == "(" || w == "!" {
					break
				}
				if !workdirPattern(w) && w != "." {
					return false
				}
			}
			listed = true
		case "git":
			if len(up.Args) == 0 || up.Args[0] != "ls-files" {
				return false // git -C DIR, --git-dir, --work-tree: another tree
			}
			for _, p := range ua.positionals {
				if !workdirPattern(p) && p != "." {
					return false
				}
			}
			listed = true
		case "grep", "egrep", "fgrep", "rg":
			if ua.hasShort('o') || ua.hasShort('r') || ua.hasShort('R') || containsLong(ua.longs, "only-matching") || containsLong(ua.longs, "replace") || ua.name == "rg" {
				return false
			}
		case "sort", "uniq", "head", "tail":
		default:
			return false
		}
		if len(up.Via) == len(level) && !up.PipedInto {
			return listed && !own
		}
	}
	return false
}

// xargsReplace returns the string xargs -I (-i, --replace) replaces with
// each name it reads, from xargs's own options; "" if there is none.
func xargsReplace(args []string) string {
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "-I" && i+1 < len(args):
			return args[i+1]
		case w == "-i" || w == "--replace":
			return "{}"
		case strings.HasPrefix(w, "-I") || strings.HasPrefix(w, "-i"):
			return w[2:]
		case strings.HasPrefix(w, "--replace="):
			return w[len("--replace="):]
		case len(w) < 2 || w[0] != '-':
			return "" // the command
		case len(w) == 2 && strings.IndexByte("adEeLlnPs", w[1]) >= 0:
			i++ // the option's value
		}
	}
	return ""
}

// operandsAreName reports whether every operand of the command xargs runs,
// and every word of it known only at run time, is repl alone: the name
// xargs read, not a part of a longer word or of code.
func operandsAreName(inv *parse.Invocation, a *argv, repl string) bool {
	if repl == "" {
		return false
	}
	for _, p := range a.positionals {
		if p != repl {
			return false
		}
	}
	for k, d := range inv.DynamicArgs {
		if d && inv.Args[k] != repl {
			return false
		}
	}
	return true
}

// pidFromPort reports whether kill stops the processes a lookup of one
// local TCP or UDP port returns: $(lsof -t -i:3000), $(lsof -ti tcp:8080
// -sTCP:LISTEN), $(fuser 3000/tcp). That is a server the work talks to,
// usually one it started; SIGKILL to a database's or broker's port (a
// database loses what it had not written), a name match (pgrep -f java),
// every process with a socket (lsof -t -i) or a literal pid is something
// else.
func pidFromPort(inv *parse.Invocation) bool {
	lookups := 0
	sigkill, service := false, false
	for j, w := range inv.Args {
		dyn := inv.DynamicArgs != nil && j < len(inv.DynamicArgs) && inv.DynamicArgs[j]
		signal := strings.HasPrefix(w, "-") || j > 0 && (inv.Args[j-1] == "-s" || inv.Args[j-1] == "-n")
		switch strings.ToUpper(strings.TrimLeft(w, "-")) {
		case "9", "KILL", "SIGKILL":
			if !signal {
				return false // pid 9
			}
			// Round 13: no clean shutdown: a database loses what it had
			// not written; a dev server's port (3000) has nothing to lose
			sigkill = true
			continue
		}
		if !dyn {
			if strings.HasPrefix(w, "-") && j+1 < len(inv.Args) || strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") {
				continue // a signal: -9, -TERM, -s TERM
			}
			if strings.Trim(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ12") == "" && j > 0 && inv.Args[j-1] == "-s" {
				continue
			}
			return false
		}
		inner, ok := strings.CutPrefix(strings.Trim(w, `"`), "$(")
		var f []string
		for _, x := range strings.Fields(strings.TrimSuffix(inner, ")")) {
			if x != "2>/dev/null" {
				f = append(f, x)
			}
		}
		if !ok || !strings.HasSuffix(inner, ")") || !portLookup(f) {
			return false
		}
		service = service || killsServicePort(f)
		lookups++
	}
	return lookups > 0 && !(sigkill && service)
}

// portLookup reports whether a command's words look up the pids that use
// one port: lsof -t -i:PORT (options -n, -P, -sTCP:LISTEN besides) or
// fuser PORT/tcp.
func portLookup(f []string) bool {
	if len(f) < 2 {
		return false
	}
	port := func(s string) bool {
		s = strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(s), "tcp"), "udp")
		p, ok := strings.CutPrefix(s, ":")
		return ok && p != "" && strings.Trim(p, "0123456789") == ""
	}
	switch f[0] {
	case "fuser":
		for _, w := range f[1:] {
			if w == "-n" || w == "tcp" || w == "udp" {
				continue
			}
			p, proto, ok := strings.Cut(w, "/")
			if !ok || (proto != "tcp" && proto != "udp") || p == "" || strings.Trim(p, "0123456789") != "" {
				return false
			}
		}
		return true
	case "lsof":
		terse, ports := false, 0
		for k := 1; k < len(f); k++ {
			w := f[k]
			switch {
			case w == "-sTCP:LISTEN" || w == "-n" || w == "-P" || w == "-nP" || w == "-Pn":
			case w == "-s" && k+1 < len(f) && f[k+1] == "TCP:LISTEN":
				k++
			case strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--"):
				letters, rest, _ := strings.Cut(w[1:], ":")
				if rest != "" || strings.Contains(w, ":") {
					// -i:3000, -ti:3000, -tiTCP:3000
					idx := strings.IndexByte(w, 'i')
					if idx < 0 || !port(w[idx+1:]) {
						return false
					}
					letters = w[1:idx]
					ports++
				} else if strings.HasSuffix(letters, "i") && k+1 < len(f) && port(f[k+1]) {
					letters = strings.TrimSuffix(letters, "i")
					k++
					ports++
				} else if strings.HasSuffix(letters, "i") {
					return false // -i alone: every process with a socket
				}
				if strings.Trim(letters, "tnP") != "" {
					return false
				}
				if strings.Contains(letters, "t") {
					terse = true
				}
			default:
				return false
			}
		}
		return terse && ports == 1
	}
	return false
}

// workStashed reports whether the command right before invocation i, in
// the same directory, is a git stash that saved every uncommitted change:
// git reset --hard or git checkout -- . then throws away nothing the stash
// does not hold. A partial stash (-p, --staged, a pathspec), another
// repository (git -C, --git-dir, --work-tree) or a command in between
// makes it false.
func (ctx *scriptCtx) workStashed(i int) bool {
	gitHere := func(inv *parse.Invocation) bool {
		return commandName(inv.Name) == "git" && !inv.Dynamic && len(inv.Args) > 0 && !strings.HasPrefix(inv.Args[0], "-") &&
			!slices.ContainsFunc(inv.Args, func(w string) bool { return strings.HasPrefix(w, "--git-dir") || strings.HasPrefix(w, "--work-tree") })
	}
	if !gitHere(&ctx.invs[i]) {
		return false
	}
	via := ctx.invs[i].Via
	for j := i - 1; j >= 0; j-- {
		inv := &ctx.invs[j]
		switch commandName(inv.Name) {
		case "cd", "pushd", "popd":
			return false
		}
		if !sameVia(inv.Via, via) {
			continue // inside a substitution of the stash or of the reset
		}
		if inv.Dynamic || !gitHere(inv) || inv.Args[0] != "stash" {
			return false // the stash must come right before
		}
		rest := inv.Args[1:]
		if len(rest) > 0 && (rest[0] == "push" || rest[0] == "save") {
			rest = rest[1:]
		} else if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			return false // list, show, pop, apply, drop ...
		}
		for k := 0; k < len(rest); k++ {
			switch w := rest[k]; {
			case w == "-m" || w == "--message":
				k++
			case strings.HasPrefix(w, "--message=") || strings.HasPrefix(w, "-m"):
			case w == "-u" || w == "--include-untracked" || w == "-a" || w == "--all" || w == "-k" || w == "--keep-index" || w == "-q" || w == "--quiet":
			default:
				return false // -p, --staged, a pathspec: part of the work stays out
			}
		}
		return true
	}
	return false
}

// localClusterTool reports whether kind or minikube works on this machine
// only (Round 18): their clusters are containers or a VM of the host's own
// (kind delete cluster --name dev, minikube delete), the same ones a kind-*
// or minikube context names. A container engine pointed elsewhere
// (DOCKER_HOST, in serverEnv) or minikube's ssh driver, which builds its
// cluster on another host, is not.
func localClusterTool(inv *parse.Invocation) bool {
	for _, w := range inv.Args {
		if strings.Contains(w, "ssh") {
			return false // --driver=ssh, --ssh-ip-address, minikube ssh ...
		}
	}
	for _, e := range inv.Env {
		if strings.HasPrefix(e, "MINIKUBE_") || strings.HasPrefix(e, "KIND_") {
			return false // another home or provider
		}
	}
	return true
}
