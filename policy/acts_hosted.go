package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 12: acts on hosted platforms, remote hosts and production. Every
// resource a hosted platform's CLI manages lives outside the machine (an
// app, an add-on, a database, a webhook, a workflow, an account's
// settings), so one of its verbs that creates, changes or deletes acts
// outside whatever the noun before it is: heroku addons:create, fly
// postgres create, railway down, auth0 apps update, gh workflow disable.
// A tool told to work on another host (DOCKER_HOST=ssh://..., nixos-rebuild
// --target-host) or on production (RAILS_ENV=production, a database URL
// on another host) acts there the same way. Reading (list, logs, status,
// describe), local emulators and dev servers, and work on this machine
// stay allowed.

// hostedCLIs are the command-line clients of hosted platforms (PaaS,
// cloud, SaaS, code hosts, secret managers): what they manage is remote.
var hostedCLIs = map[string]bool{
	"heroku": true, "fly": true, "flyctl": true, "railway": true, "render": true, "vercel": true, "netlify": true, "eas": true, "modal": true,
	"supabase": true, "pscale": true, "doppler": true, "infisical": true, "stripe": true, "auth0": true, "okta": true, "gh": true, "glab": true,
	"tea": true, "hub": true, "firebase": true, "wrangler": true, "aws": true, "gcloud": true, "az": true, "doctl": true, "hcloud": true,
	"linode-cli": true, "vultr-cli": true, "scw": true, "oci": true, "ibmcloud": true, "exo": true, "civo": true, "neonctl": true, "turso": true,
	"upstash": true, "koyeb": true, "northflank": true, "porter": true, "qovery": true, "dokku": true, "cf": true, "eb": true, "copilot": true,
	"appcenter": true, "twilio": true, "vault": true, "op": true, "bw": true, "hf": true, "huggingface-cli": true, "replicate": true,
	"cloudflared": true, "sanity": true, "shopify": true, "algolia": true, "contentful": true, "databricks": true, "snow": true, "confluent": true,
	"colmena": true, "sam": true, "eksctl": true, "linear": true, "jira": true, "pd": true, "datadog-ci": true, "kamal": true, "mongocli": true,
	// Round 14: object stores' own CLIs (b2 rm --recursive b2://bucket/x)
	"b2": true,
	// Round 16: Azure's developer CLI (azd up provisions and deploys),
	// Docker Hub's (hub-tool tag rm)
	"azd": true, "hub-tool": true,
}

// hostedOwnLocal: words of one hosted CLI that work on this machine
// though other CLIs' same words do not (azd env set writes .azure/ENV/.env,
// azd restore installs the project's dependencies).
var hostedOwnLocal = map[string]map[string]bool{"azd": {"env": true, "restore": true}}

// hostedUp: the hosted CLIs whose up provisions or deploys (railway up,
// azd up); to others up starts a local stack or is a noun.
var hostedUp = map[string]bool{"railway": true, "colmena": true, "azd": true}

// localResets: the hosted CLIs whose reset works on a stack this machine
// runs (supabase db reset; its --linked and --db-url forms are rule
// supabase-remote-data-destroy's); to every other one a reset is of what
// it manages elsewhere (neonctl branches reset, gcloud compute instances
// reset). Round 16.
var localResets = map[string]bool{"supabase": true}

// remoteRunners run a program on the platform's machines, not here
// (heroku run rails db:migrate, modal run train.py, dokku run app cmd).
var remoteRunners = map[string]map[string]bool{
	"heroku": {"run": true, "run:detached": true, "run:inside": true, "pg:psql": true, "ps:exec": true},
	"fly":    {"ssh": true, "console": true}, "flyctl": {"ssh": true, "console": true}, "railway": {"ssh": true, "connect": true}, "render": {"ssh": true},
	"modal": {"run": true, "serve": true, "shell": true},
	"dokku": {"run": true, "enter": true, "run:detached": true},
	"kamal": {"app": true},
}

// hostedChangeVerbs create, change or delete what a hosted platform
// manages. start, stop, release, trigger and new are left out: local
// stacks use them (supabase start, stripe trigger, supabase migration new);
// reset is a change but to localResets.
var hostedChangeVerbs = map[string]bool{
	"create": true, "update": true, "delete": true, "destroy": true, "remove": true, "rm": true, "disable": true, "enable": true, "set": true,
	"unset": true, "add": true, "attach": true, "detach": true, "down": true, "restart": true, "suspend": true, "resume": true, "promote": true,
	"rollback": true, "redeploy": true, "submit": true, "invalidate": true, "rotate": true, "revoke": true, "grant": true, "transfer": true,
	"rename": true, "edit": true, "apply": true, "put": true, "patch": true, "modify": true, "terminate": true, "purge": true, "allocate": true,
	"archive": true, "unarchive": true, "lock": true, "unlock": true, "pause": true, "unpause": true, "move": true, "assign": true, "invite": true,
	"approve": true, "merge": true, "close": true, "reopen": true, "register": true, "deregister": true, "associate": true, "disassociate": true,
	"replace": true, "restore": true, "reboot": true, "scale": true, "resize": true, "provision": true, "launch": true, "write": true,
	"insert": true, "upsert": true, "publish": true, "deploy": true, "up": true, "maintenance": true, "on": true, "off": true,
	// Round 13: data loaded into or wiped from a hosted store
	// (firebase firestore:import, gcloud sql import, bq-like loads)
	"import": true, "load": true, "truncate": true, "flush": true, "reindex": true, "overwrite": true, "upload": true, "execute": true,
	"reset": true,
}

// hostedLocalWords are verbs and groups of hosted CLIs that work on this
// machine or only look: the CLI's own settings and extensions, local
// emulators and dev servers, checking out and cloning. One ends the
// reading of a command's verbs (gh pr checkout add-login: the branch's name
// is not a verb).
var hostedLocalWords = map[string]bool{
	"config": true, "configure": true, "alias": true, "extension": true, "extensions": true, "ext": true, "completion": true, "completions": true,
	"auth": true, "account": true, "components": true, "emulators": true, "git": true, "local": true, "plugins": true, "plugin": true, "dev": true,
	"init": true, "link": true, "unlink": true, "login": true, "logout": true, "whoami": true, "open": true, "browse": true, "checkout": true,
	"clone": true, "pull": true, "fetch": true, "build": true, "test": true, "start": true, "stop": true, "serve": true, "listen": true, "gen": true,
	"proxy": true, "connect": true, "ssh": true, "console": true, "exec": true, "env": true, "setup": true, "trigger": true, "sso": true,
	"set-default": true, "diff": true, "checks": true, "run": true, "migration": true, "db": true, "functions": true, "secrets": true,
}

// hostedActs returns actRemoteChange when a hosted platform's CLI is told
// to create, change or delete something there, or to run a program on its
// machines.
func hostedActs(a *argv, words [4]string) act {
	name := a.name
	if !hostedCLIs[name] || a.hasFlagWord("--local", "--help", "-h", "--dry-run") {
		return 0
	}
	n := 0
	for n < len(words) && words[n] != "" {
		n++
	}
	if n == 0 {
		return 0
	}
	if remoteRunners[name][words[0]] || a.hasFlagWord("--auto-submit", "--submit", "--prod", "--production") {
		return actRemoteChange // eas build --auto-submit
	}
	if n == 1 && (words[0] == "update" || words[0] == "upgrade") {
		return 0 // heroku update, az upgrade: the CLI updates itself
	}
	if (name == "gh" || name == "glab" || name == "tea" || name == "hub") && n > 1 && (words[0] == "pr" || words[0] == "mr" || words[0] == "pull-request") && words[1] == "create" {
		return reviewRequested(a)
	}
	if name == "gh" && n > 1 && words[0] == "repo" && words[1] == "sync" && a.hasFlagWord("--force") {
		return actRemoteChange // gh repo sync owner/fork --force: a force push to the fork's branch
	}
	for _, w := range words[:n] {
		if readVerbs[w] {
			return 0 // gh repo deploy-key list
		}
	}
	for k := 0; k < n; k++ {
		w := words[k]
		parts := verbParts(w)
		if hostedLocalWords[w] && !(w == "db" || w == "functions" || w == "secrets" || w == "migration" || w == "env") || readVerbs[w] || readPrefix(parts[0]) || hostedOwnLocal[name][w] {
			return 0
		}
		if len(parts) > 1 && strings.Contains(w, "-") && !strings.Contains(w, ":") {
			if (parts[0] == "batch" || parts[0] == "bulk") && len(parts) > 2 {
				parts = parts[1:] // batch-write-item: the verb after the modifier
			}
			// create-invalidation, put-bucket-policy: the verb comes first
			if hostedChangeVerbs[parts[0]] {
				return actRemoteChange
			}
			if k > 0 && hostedChangeVerbs[parts[len(parts)-1]] && !readPrefix(parts[0]) {
				return actRemoteChange // a group's noun-verb: gh project item-add, field-delete
			}
			continue
		}
		for _, p := range parts {
			if readVerbs[p] || hostedLocalWords[p] && p != "db" && p != "env" {
				return 0 // emulators:start, pg:info
			}
		}
		if hostedChangeVerbs[parts[len(parts)-1]] && !(len(parts) == 1 && (w == "on" || w == "off" || w == "up" && !hostedUp[name] || w == "reset" && localResets[name])) {
			return actRemoteChange // addons:create, apps update, railway down
		}
	}
	return 0
}

// reviewRequested: opening a pull request notifies people when it asks
// for reviewers or assignees or is ready for review; a draft nobody is
// asked to look at, or one finished in the browser, only offers a branch.
func reviewRequested(a *argv) act {
	if a.hasFlagWord("--reviewer", "--assignee", "--add-reviewer") || a.hasShort('r') || a.hasShort('a') {
		return actSend
	}
	if a.hasFlagWord("--draft", "-d", "--web", "-w") {
		return 0
	}
	return actSend
}

// remoteHostActs returns actRemoteChange when a tool that works on this
// machine by default is pointed at another host and told to change
// something there: a container engine given a remote daemon
// (DOCKER_HOST=ssh://..., docker -H tcp://..., podman --remote) or a
// system builder given a target host (nixos-rebuild --target-host).
func remoteHostActs(inv *parse.Invocation, a *argv, env []string) act {
	targets := false
	for _, w := range inv.Args {
		targets = targets || strings.HasPrefix(w, "--target") || strings.HasPrefix(w, "--remote-host") || strings.HasPrefix(w, "--deploy-host")
	}
	var targetWords []serverWord
	if targets {
		targetWords = serverWords(inv, func(opt string) bool {
			return opt == "--target-host" || opt == "--remote-host" || opt == "--deploy-host" || opt == "--targetHost"
		})
	}
	for _, w := range targetWords {
		switch w.opt {
		case "--target-host", "--remote-host", "--deploy-host", "--targetHost":
			if w.dyn || !localAddress(w.value) {
				if len(a.positionals) == 0 || !readVerbs[a.positionals[0]] && a.positionals[0] != "build" && a.positionals[0] != "dry-build" {
					return actRemoteChange
				}
			}
		}
	}
	switch a.name {
	case "docker", "podman", "nerdctl", "docker-compose", "podman-compose":
	default:
		return 0
	}
	remote := false
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		if (k == "DOCKER_HOST" || k == "CONTAINER_HOST") && !localDaemon(v) || k == "DOCKER_CONTEXT" && !localContext(v) {
			remote = true
		}
	}
	var operands []string
	for _, w := range serverWords(inv, func(opt string) bool {
		return opt == "-H" || opt == "--host" || opt == "--context" || opt == "--url" || opt == "--connection" || opt == "-c"
	}) {
		switch {
		case w.opt == "":
			operands = append(operands, w.value)
		case len(operands) > 0:
			// an option of the subcommand
		case w.opt == "-H" || w.opt == "--host" || w.opt == "--url":
			remote = remote || w.dyn || !localDaemon(w.value)
		case w.opt == "--context" || w.opt == "--connection" || w.opt == "-c":
			remote = remote || w.dyn || !localContext(w.value)
		case w.opt == "--remote" || w.opt == "-r":
			remote = remote || a.name == "podman"
		}
	}
	if !remote {
		return 0
	}
	for _, p := range operands {
		switch p {
		case "compose", "container", "image", "service", "stack", "volume", "network", "system", "buildx":
			continue
		case "ps", "images", "logs", "inspect", "version", "info", "stats", "top", "events", "history", "port", "ls", "config", "search", "df", "list":
			return 0
		}
		return actRemoteChange
	}
	return 0
}

// localDaemon reports whether a container engine's address is this
// machine's daemon: a unix socket, or TCP to a loopback address.
func localDaemon(v string) bool {
	if strings.HasPrefix(v, "unix://") || strings.HasPrefix(v, "npipe://") {
		return !strings.ContainsAny(v, "$`")
	}
	return localAddress(v)
}

// localContext: the contexts the container engines and their desktop
// apps make for the daemon on this machine.
func localContext(c string) bool {
	switch c {
	case "default", "desktop-linux", "colima", "rancher-desktop", "orbstack", "podman-machine-default", "podman-machine-default-root":
		return true
	}
	return false
}

// scriptEnv returns the variables invocation i runs with that the script
// sets: its own assignments, and those exported by earlier commands.
func (ctx *scriptCtx) scriptEnv(i int) []string {
	if ctx.exports == nil {
		ctx.exports = ctx.exportsOf()
	}
	env := ctx.invs[i].Env
	for _, e := range *ctx.exports {
		if e.at >= i {
			break
		}
		env = append(env[:len(env):len(env)], e.kv)
	}
	return env
}

// scriptExport is a NAME=VALUE the script sets for the commands after
// invocation at.
type scriptExport struct {
	at int
	kv string
}

// exportsOf lists, in the script's order, what scriptEnv adds: the
// variables export, declare and typeset set, and docker context use (later
// docker commands go to that context).
func (ctx *scriptCtx) exportsOf() *[]scriptExport {
	var out []scriptExport
	for j := range ctx.invs {
		if inv := &ctx.invs[j]; commandName(inv.Name) == "docker" && len(inv.Args) == 3 && inv.Args[0] == "context" && inv.Args[1] == "use" {
			out = append(out, scriptExport{j, "DOCKER_CONTEXT=" + inv.Args[2]})
		}
		if n := ctx.invs[j].Name; n == "export" || n == "declare" || n == "typeset" {
			for _, w := range ctx.invs[j].Args {
				if strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
					out = append(out, scriptExport{j, w})
				}
			}
		}
	}
	return &out
}

// remoteActs returns the acts of invocation i on hosted platforms, remote
// hosts, production and credential stores (this file, acts_production.go);
// actsMatch adds them to actsOf's.
func (ctx *scriptCtx) remoteActs(i int, a *argv) act {
	inv := &ctx.invs[i]
	if inv.Dynamic || wordTools[a.name] && a.name != "git" || a.hasFlagWord("--dry-run", "--dryrun", "--help", "--what-if", "--noop") {
		return 0
	}
	env := ctx.scriptEnv(i)
	acts := productionActs(inv, a, env) | remoteHostActs(inv, a, env) | grpcActs(inv, a) | redisActs(inv, a) | remoteDataActs(inv, a)
	if a.name == "git" {
		return acts
	}
	words := leadingWords(inv, a)
	name := a.name
	if isInterpreter(name) && a.hasShort('m') && words[0] != "" {
		// python3 -m keyring set ...: the module is the command
		name = words[0]
		copy(words[:], words[1:])
		words[3] = ""
	}
	return acts | hostedActs(a, words) | credentialStoreActs(inv, a, name, words)
}

// credentialStores keep passwords and tokens, each with the verbs that put
// one in (keyring set, secret-tool store, security add-generic-password).
var credentialStores = map[string]map[string]bool{
	"keyring": {"set": true}, "secret-tool": {"store": true}, "security": {"add-generic-password": true, "add-internet-password": true},
	"gopass": {"insert": true, "set": true, "generate": true, "edit": true}, "pass": {"insert": true, "generate": true, "edit": true},
	"aws-vault": {"add": true}, "lpass": {"add": true, "edit": true}, "nuget": {"setapikey": true},
	"kwallet-query": {"-w": true, "--write-password": true}, "vault": {"put": true, "write": true, "login": true},
}

// credentialNouns, after a secretVerb in a dashed verb, name a
// credential (kubectl config set-credentials).
var credentialNouns = map[string]bool{"credentials": true, "credential": true, "password": true, "passwords": true}

// storeVerbs, among a command's leading words, add or change a setting,
// a source or a remote: given a token or password, the tool keeps it.
var storeVerbs = map[string]bool{
	"add": true, "set": true, "update": true, "config": true, "configure": true, "register": true, "put": true, "insert": true, "store": true,
	"save": true, "write": true, "create": true, "edit": true, "import": true, "setapikey": true, "sources": true, "source": true,
}

// credentialOptions pass a password or a token to a command.
func credentialOption(l string) bool {
	for _, s := range []string{"password", "passwd", "token", "api-key", "apikey", "secret", "client-key"} {
		if strings.Contains(l, s) && !strings.HasSuffix(l, "-stdin") && !strings.HasSuffix(l, "-file") {
			return true
		}
	}
	return false
}

// credentialStoreActs returns actStoreCredentials when a command puts a
// credential into its own store: a credential store's put verb, a key
// into an ssh account (ssh-copy-id), a configuration key that is a token
// (composer config github-oauth.x), or a store verb given a secret
// variable or a password option (dotnet nuget add source -p "$PAT"
// --store-password-in-clear-text, kubectl config set-credentials
// --token=$T).
func credentialStoreActs(inv *parse.Invocation, a *argv, name string, words [4]string) act {
	if name == "ssh-copy-id" || strings.HasPrefix(name, "docker-credential-") && words[0] == "store" {
		return actStoreCredentials
	}
	if verbs := credentialStores[name]; verbs != nil {
		for _, w := range words {
			if verbs[w] {
				return actStoreCredentials
			}
		}
		for _, w := range a.dashWords {
			if verbs[w] {
				return actStoreCredentials
			}
		}
	}
	store := false
	for k, w := range words {
		if w == "" {
			break
		}
		if readVerbs[w] || w == "get" || w == "unset" || w == "remove" || w == "delete" {
			return 0
		}
		if storeVerbs[w] || k > 0 && pairInParts(verbParts(w), secretVerbs, credentialNouns) {
			store = true // kubectl config set-credentials, given a token
		}
	}
	if !store {
		return 0
	}
	for _, l := range a.longs {
		if credentialOption(l) {
			return actStoreCredentials
		}
	}
	for _, p := range a.positionals {
		if moreCredentialKey(p) {
			return actStoreCredentials
		}
	}
	for _, w := range inv.Args {
		if len(secretVarRefs(w)) > 0 || strings.Contains(w, "://") && userinfoPassword(w) {
			return actStoreCredentials
		}
	}
	return 0
}

// moreCredentialKey: configuration keys that hold a token (composer's
// github-oauth.github.com, gitlab-token.x, bearer.x; the keys credentialKey
// knows).
func moreCredentialKey(w string) bool {
	for _, k := range []string{"github-oauth", "gitlab-oauth", "gitlab-token", "bitbucket-oauth", "bearer.", "http-basic"} {
		if strings.HasPrefix(w, k) {
			return true
		}
	}
	return credentialKey(w)
}

// userinfoPassword reports whether a URL carries a password or token in
// its user part (https://u:TOKEN@host/...).
func userinfoPassword(w string) bool {
	_, rest, _ := strings.Cut(w, "://")
	hostPart, _, _ := strings.Cut(rest, "/")
	user, _, ok := strings.Cut(hostPart, "@")
	return ok && strings.Contains(user, ":") || ok && strings.ContainsAny(user, "$")
}
