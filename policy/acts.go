package policy

import (
	"path"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Acts: what an invocation does beyond the machine's files, which the
// sandbox cannot take back once the network is on or a device is attached:
// publishing, flashing a device, installing for the whole user, destroying
// machines and remote stores. They are read from the verbs a command is
// given (its subcommand and the one after a group word or a task runner:
// cabal upload, dart pub publish, npm run deploy, bazel run
// //x:push_image), the same in every ecosystem, so that a tool nobody wrote
// a rule for is judged by what it is told to do. Rules match them with
// acts = ["publish", ...].

// act is one thing an invocation does outside.
type act uint16

const (
	// actPublish: publishes, deploys, uploads or releases to a registry or
	// host, or changes who owns a published package or what it points at.
	actPublish act = 1 << iota
	// actFlash: writes firmware to, or erases, a device attached to the
	// machine.
	actFlash
	// actInstallGlobal: installs a program, a toolchain or a plugin for the
	// whole user or system.
	actInstallGlobal
	// actDestroy: deletes a machine, a virtual machine or container, a
	// remote store or its data.
	actDestroy
	// actStoreCredentials: logs in, or puts a token or password into a
	// tool's credential store (gh auth login --with-token, cargo login, gem
	// signin, poetry config pypi-token.x, git credential approve): what the
	// user's tools act as from then on, outside the sandbox.
	actStoreCredentials
	// actSend: sends a message, a mail, a post or an issue to people in the
	// user's name (acts_outside.go).
	actSend
	// actScale: changes how many machines or replicas a service runs on, or
	// how big they are.
	actScale
	// actSpend: creates something billed by the hour or the call (a
	// machine, a GPU pod, an endpoint, a training job), registers a domain,
	// or moves money.
	actSpend
	// actAccount: changes what an account lets in: its firewall, its
	// enabled services, its members.
	actAccount
	// actAPIWrite: an HTTP request that writes (POST, PUT, PATCH, DELETE,
	// a body) with a credential to a host elsewhere, from an HTTP client
	// (acts_api.go; inline code that sends requests is denied as a whole): whatever the service, it acts in the
	// user's name.
	actAPIWrite
	// actRemoteChange: creates, changes or deletes something a hosted
	// platform manages, or works on another host (acts_hosted.go).
	actRemoteChange
	// actProduction: changes production's data or runs code against it
	// (acts_production.go).
	actProduction
)

// actNames are the names rules use for acts.
var actNames = [...]struct {
	a    act
	name string
}{{actPublish, "publish"}, {actFlash, "flash"}, {actInstallGlobal, "install-global"}, {actDestroy, "destroy"}, {actStoreCredentials, "store-credentials"},
	{actSend, "send"}, {actScale, "scale"}, {actSpend, "spend"}, {actAccount, "account"},
	{actAPIWrite, "api-write"}, {actRemoteChange, "remote-change"}, {actProduction, "production"}}

// loginVerbs log in or store a credential wherever they stand among the
// leading words but the first, or as the first word given (uv auth login,
// heroku login; not pytest -k login).
var loginVerbs = map[string]bool{
	"login": true, "signin": true, "sign-in": true, "adduser": true, "add-user": true, "auth:login": true, "login:ci": true,
	"activate-service-account": true, "add-token": true, "set-token": true,
}

// authChangeVerbs after an auth group change which account or token a
// tool acts with, or what the token may do (doctl auth init, gh auth
// refresh -s delete_repo, gh auth switch, gcloud auth configure-docker).
var authChangeVerbs = map[string]bool{
	"init": true, "refresh": true, "switch": true, "setup-git": true, "configure-docker": true, "add": true, "set": true, "use": true,
	"import": true, "token-set": true, "set-token": true,
}

// storeWords after keyStores put a key, a token or a secret into a
// tool's store (llm keys set openai, gh secret set X, wrangler secret put).
var (
	storeWords = map[string]bool{"set": true, "add": true, "put": true, "import": true}
	keyStores  = map[string]bool{"keys": true, "key": true, "token": true, "tokens": true, "secret": true, "secrets": true, "credentials": true, "credential": true}
)

// credentialKey reports whether a configuration key (or key=value) given to
// a config command is a credential: npm's //host/:_authToken and _auth,
// yarn's npmAuthToken, poetry's http-basic.x and pypi-token.x.
func credentialKey(w string) bool {
	for _, k := range []string{":_authToken", ":_auth", ":_password", "npmAuthToken", "npmAuthIdent", "http-basic.", "pypi-token.", "_authToken", "aws_secret_access_key", "aws_session_token", "token.", ".token", "password"} {
		if strings.Contains(w, k) {
			return true
		}
	}
	return false
}

// publishVerbs publish wherever they stand among the leading words.
var publishVerbs = map[string]bool{
	"publish": true, "unpublish": true, "upload": true, "deploy": true, "gh-deploy": true, "push": true,
	"yank": true, "retire": true, "owner": true, "dist-tag": true, "deprecate": true, "deliver": true,
}

// destroyVerbs delete what the command manages (a machine, a bucket, a
// key range); rm and remove are left out, since package managers use them
// for a project's own dependencies, and so are drop and reset, which
// development databases are rebuilt with (mix ecto.reset, rails db:drop;
// the drop-data rules judge production ones).
var destroyVerbs = map[string]bool{
	"delete": true, "destroy": true, "del": true, "undefine": true, "unregistervm": true, "purge": true, "teardown": true, "nuke": true, "rb": true,
}

// flashVerbs write to or erase a device; they mean nothing else.
var flashVerbs = map[string]bool{
	"flash": true, "write_flash": true, "erase_flash": true, "write-flash": true, "erase-flash": true, "flashing": true, "erase_region": true, "reflash": true,
}

// installVerbs install something: for the whole user when a toolchain
// manager is given a name (ghcup install ghc, juliaup add release, asdf
// plugin add erlang), after global (composer global require x), or with
// --global (mise use --global node@22).
var installVerbs = map[string]bool{"install": true, "i": true, "add": true, "require": true, "use": true, "link": true, "upgrade": true}

// globalShort: tools whose -g means global, not debug or a generator.
var globalShort = map[string]bool{"npm": true, "pnpm": true, "yarn": true, "bun": true, "mise": true, "rtx": true, "deno": true, "volta": true}

// readVerbs only look: a word after one is an operand, not a verb
// (kubectl get deploy, gh release list, pip cache purge).
var readVerbs = map[string]bool{
	"get": true, "describe": true, "logs": true, "log": true, "list": true, "ls": true, "show": true, "view": true, "info": true, "status": true,
	"help": true, "explain": true, "search": true, "inspect": true, "top": true, "diff": true, "history": true, "cat": true, "watch": true,
	"version": true, "plan": true, "template": true, "lint": true, "check": true, "cache": true, "download": true, "why": true, "outdated": true,
	"audit": true, "preview": true, "stash": true, "docs": true, "doc": true, "completion": true, "validate": true, "verify": true,
}

// taskRunners run a script or a task named by the word after them (npm
// run deploy, bundle exec fastlane deliver, terragrunt run-all destroy).
var taskRunners = map[string]bool{"run": true, "exec": true, "x": true, "dlx": true, "run-script": true, "run-all": true}

// buildTools: release is a build configuration to them (make release),
// not a publication; mix and rebar3 release assemble a release in _build.
var buildTools = map[string]bool{"make": true, "gmake": true, "cmake": true, "ninja": true, "meson": true, "xcodebuild": true, "msbuild": true, "zig": true, "swift": true, "go": true, "mix": true, "rebar3": true}

// vcsTools: push sends commits, which the built-in policy leaves to the
// user but for force pushes and the like (git-push-* rules).
var vcsTools = map[string]bool{"git": true, "hg": true, "jj": true, "sl": true, "fossil": true, "bzr": true, "darcs": true, "yadm": true, "quilt": true, "stg": true, "guilt": true, "pass": true}

// wordTools print, test or look up their operands, or are the shell's
// own: a verb among their words is text.
var wordTools = map[string]bool{
	"echo": true, "printf": true, "print": true, "test": true, "[": true, "[[": true, "cd": true, "pushd": true, "popd": true, "export": true, "local": true,
	"declare": true, "typeset": true, "readonly": true, "set": true, "unset": true, "read": true, "alias": true, "type": true, "which": true, "command": true,
	"hash": true, "man": true, "info": true, "help": true, "tldr": true, "apropos": true, "whatis": true, "whereis": true, "ls": true, "tree": true, "mkdir": true,
	"stat": true, "basename": true, "dirname": true, "realpath": true, "readlink": true, "logger": true, "notify-send": true, "figlet": true, "cowsay": true,
	"trap": true, "return": true, "exit": true, "shift": true, "let": true, "getopts": true, "compgen": true, "complete": true, "git": true,
}

// toolManagers install toolchains, runtimes, plugins or applications into
// the user's home or the system: an install with a name is for the whole
// user (ghcup install ghc, juliaup add release, flatpak install app).
var toolManagers = map[string]bool{
	"ghcup": true, "juliaup": true, "asdf": true, "mise": true, "rtx": true, "pyenv": true, "rbenv": true, "nodenv": true, "goenv": true, "nvm": true,
	"fnm": true, "sdk": true, "proto": true, "flatpak": true, "snap": true, "scoop": true, "winget": true, "choco": true, "port": true, "pkgx": true, "elan": true,
	"opam": true, "coursier": true, "cs": true, "krew": true, "tfenv": true, "tgenv": true, "jenv": true, "swiftly": true, "aqua": true, "ubi": true, "eget": true,
	// the system's package managers install for every user (apk add x,
	// apt-get install x as root), and the App Store's for the whole user
	"apk": true, "apt": true, "apt-get": true, "aptitude": true, "dnf": true, "yum": true, "microdnf": true, "zypper": true, "pkg": true,
	"pkgin": true, "pkg_add": true, "mas": true, "tdnf": true, "eopkg": true, "slackpkg": true, "urpmi": true,
}

// systemInstallOptions: options that install for the whole system, by
// tool (xcode-select --install, softwareupdate -i -a), and the package
// managers whose -S or -U installs (pacman -S x, yay -Syu).
var systemInstallOptions = map[string][]string{
	"xcode-select": {"--install"}, "softwareupdate": {"-i", "--install", "-ia", "-ai"},
	"cpanm": {"--sudo", "-S"}, // Round 20: cpanm --sudo installs into the system's Perl
}
var pacmanLike = map[string]bool{"pacman": true, "yay": true, "paru": true, "pikaur": true, "trizen": true}

// deviceTools talk to boards and phones attached to the machine; their
// deviceWords write to or erase one (st-flash write, dfu-util -D, avrdude
// -U flash:w:x.hex, pio run -t upload, openocd -c "program x.elf").
var deviceTools = map[string]bool{
	"avrdude": true, "esptool": true, "esptool.py": true, "espefuse": true, "espefuse.py": true, "st-flash": true, "dfu-util": true, "dfu-programmer": true,
	"pio": true, "platformio": true, "arduino-cli": true, "west": true, "fastboot": true, "openocd": true, "nrfjprog": true, "nrfutil": true, "picotool": true,
	"probe-rs": true, "pyocd": true, "teensy_loader_cli": true, "bossac": true, "stm32flash": true, "flashrom": true, "minipro": true, "idf.py": true,
	"heimdall": true, "uuu": true, "particle": true, "tinygo": true, "mpremote": true, "ampy": true, "esphome": true, "blhost": true, "mcumgr": true, "JLinkExe": true,
}

var deviceWords = map[string]bool{
	"write": true, "erase": true, "upload": true, "program": true, "load": true, "burn": true, "format": true, "wipe": true, "unlock": true,
	"download": true, "eraseall": true, "-D": true, "--download": true, "-w": true, "--write": true, "-E": true, "--erase": true, "--program": true, "--eraseall": true,
	"--chiperase": true, "--chip-erase": true, "oem": true, "boot": true,
}

// publishesByDefault: tools whose plain run publishes (surge DIR DOMAIN,
// gh-pages -d dist), and the subcommands of others that do (ko build pushes
// the image it builds, argocd app sync deploys).
var publishesByDefault = map[string]bool{"surge": true, "gh-pages": true, "np": true, "cpan-upload": true, "semantic-release": true, "release-it": true, "lerna-release": true}

// toolPublishOptions: options that make a tool publish what it builds or
// commits (ghp-import -p pushes the gh-pages branch, nix copy --to sends
// store paths to a binary cache, docker buildx build --push, gradle
// bootBuildImage --publishImage).
var toolPublishOptions = map[string][]string{
	"ghp-import": {"-p", "--push"}, "nix": {"--to"}, "docker": {"--push"}, "podman": {"--push"}, "buildah": {"--push"}, "nerdctl": {"--push"},
	"depot": {"--push"}, "gradle": {"--publishImage"}, "gradlew": {"--publishImage"},
}

// jvmBuildTools name tasks in camelCase: a task whose later part is a
// publishing verb publishes (appengineDeploy, appDistributionUploadRelease),
// and jib builds and pushes an image (not jibDockerBuild, jib:buildTar).
var jvmBuildTools = map[string]bool{"gradle": true, "gradlew": true, "mvn": true, "mvnw": true, "sbt": true, "mill": true, "lein": true, "amper": true}

// runnerNames run the package their first operand names (npx gh-pages).
var runnerNames = map[string]bool{"npx": true, "bunx": true, "pnpx": true, "uvx": true, "pipx": true}

// toolPublishVerbs: subcommands that publish for one tool though the word
// does not say so (ko build pushes the image it builds unless --local,
// argocd app sync deploys).
var toolPublishVerbs = map[string]map[string]bool{
	"ko":     {"build": true, "apply": true, "resolve": true, "create": true},
	"argocd": {"sync": true},
	// fastlane's lanes that, by the tool's conventions, hand a build to
	// testers or a store
	"fastlane":   {"beta": true, "appstore": true, "app_store": true, "testflight": true, "pilot": true, "supply": true, "playstore": true, "play_store": true, "distribute": true, "internal": true, "alpha": true},
	"zappa":      {"update": true, "rollback": true, "schedule": true, "certify": true},
	"sentry-cli": {"finalize": true, "new": true, "set-commits": true, "deploys": true, "upload-sourcemaps": true},
	"skaffold":   {"run": true, "apply": true},
	"steamcmd":   {"+run_app_build": true, "+run_app_build_http": true, "+workshop_build_item": true},
	// Round 13: experiment trackers and dataset hosts that upload runs,
	// artifacts and datasets (wandb sync, neptune sync, kaggle datasets
	// version, dvc push is push)
	"wandb":   {"sync": true, "put": true},
	"neptune": {"sync": true}, "comet": {"upload": true}, "kaggle": {"version": true, "submit": true}, "clearml-data": {"upload": true, "close": true},
	"b2": {"upload-file": true, "upload_file": true, "upload": true}, "mlflow": {"log-artifact": true, "log-artifacts": true}, "huggingface-cli": {"upload": true}, "gdrive": {"upload": true, "update": true, "import": true, "sync": true},
}

// toolDestroyVerbs: rm for the tools whose rm deletes a machine or a
// model rather than a project's dependency (ollama rm, lxc rm).
var toolDestroyVerbs = map[string]bool{"ollama": true, "lxc": true, "incus": true, "limactl": true, "multipass": true, "podman-machine": true}

// actsOf returns what invocation inv (read into a) does outside.
func actsOf(inv *parse.Invocation, a *argv) act {
	if inv.Dynamic {
		return 0
	}
	if a.name == "git" && len(a.positionals) > 1 && (a.positionals[0] == "credential" && a.positionals[1] == "approve" || strings.HasPrefix(a.positionals[0], "credential-") && contains(a.positionals[1:], "store")) ||
		strings.HasPrefix(a.name, "git-credential-") && len(a.positionals) > 0 && a.positionals[0] == "store" {
		return actStoreCredentials // git credential approve: a password into every helper
	}
	if a.name == "git" && setsCredentialHelper(a) {
		return actStoreCredentials // git config --global credential.helper store
	}
	if wordTools[a.name] || fileTool(a.name) {
		return 0
	}
	acts := actsFromWords(inv, a)
	if acts != 0 && (dryRun(a) || a.hasFlagWord("--help") || localRelease(a)) {
		return 0
	}
	return acts
}

// actsFromWords is actsOf before dry runs and help are taken out.
func actsFromWords(inv *parse.Invocation, a *argv) act {
	var acts act
	name := a.name
	if publishesByDefault[name] || nameHasVerb(name) || scriptNamedVerb(name) {
		acts |= actPublish
	}
	if deviceTools[name] {
		for _, w := range a.words {
			if deviceWords[w] || flashVerbs[w] || strings.Contains(w, ":w:") || strings.HasPrefix(w, "program ") {
				acts |= actFlash
				break
			}
		}
	}
	if isInterpreter(name) && !a.hasShort('m') {
		// python deploy.py: its operand is a program, not a verb
		// (bash -n deploy.sh only reads it)
		if len(a.positionals) > 0 && scriptNamedVerb(commandName(a.positionals[0])) && !(a.hasShort('n') && strings.HasSuffix(name, "sh")) {
			acts |= actPublish
		}
		return acts
	}
	words := leadingWords(inv, a)
	global := containsLong(a.longs, "global") || globalShort[name] && a.hasShort('g') || globalByConfig(inv, a)
	acts |= outsideActsOf(inv, a, words) | optionActs(a)
	for k, w := range words {
		if w == "" {
			break
		}
		if k > 0 && readVerbs[words[k-1]] {
			break
		}
		if k+1 < len(words) && readVerbs[words[k+1]] {
			continue // npm owner ls, gh release list
		}
		if (k == 0 && runnerNames[name] || k == 1 && taskRunners[words[0]]) && (publishesByDefault[w] || nameHasVerb(w)) {
			acts |= actPublish // npx gh-pages, bundle exec semantic-release
		}
		if toolPublishVerbs[name][w] && !a.hasFlagWord("--local", "-L", "--push=false") {
			acts |= actPublish
		}
		if jvmBuildTools[name] && jvmTaskPublishes(w) {
			acts |= actPublish
		}
		if (w == "archive.install" || w == "escript.install") && name == "mix" {
			acts |= actInstallGlobal // mix archive.install hex phx_new
		}
		if loginVerbs[w] && !vcsTools[name] && (k > 0 || inv.Args[0] == w) || k > 0 && words[k-1] == "auth" && authChangeVerbs[w] || storeWords[w] && k > 0 && keyStores[words[k-1]] || k > 0 && (words[k-1] == "config" || words[k-1] == "set") && credentialKey(w) {
			acts |= actStoreCredentials
		}
		switch {
		case publishVerbs[w] && !(w == "push" && vcsTools[name]) && !(w == "publish" && name == "dotnet"):
			// dotnet publish writes a build to a folder; with a publish
			// profile it deploys, which rule dotnet-publish-deploys asks about
			acts |= actPublish
		case (w == "release" || w == "releases") && !buildTools[name] && (k == 0 || taskRunners[words[k-1]] || k == 2 && taskRunners[words[0]]):
			acts |= actPublish // gh release create, cargo release, npm run release
		case destroyVerbs[w], w == "rm" && k == 0 && toolDestroyVerbs[name]:
			acts |= actDestroy
		case flashVerbs[w]:
			acts |= actFlash
		case installVerbs[w] && toolManagers[name] && (w == "install" || w == "i" || w == "add") && len(a.positionals) > k+1,
			(w == "global" || w == "default") && toolManagers[name] && len(a.positionals) > k+1,
			installVerbs[w] && (global || k > 0 && words[k-1] == "global"):
			acts |= actInstallGlobal
		}
		if k == 0 && (makeLike[name] && targetHasVerb(w) || name == "npm" && npmPublishAbbrev(w)) {
			acts |= actPublish // make docker-push, just deploy-prod, npm pub
		}
		if k == 1 && name == "go" && words[0] == "run" && strings.HasPrefix(w, ".") && scriptNamedVerb(path.Base(w)) {
			acts |= actPublish // go run ./tools/deploy, as ./deploy.sh
		}
		for _, t := range taskVerbs(w) {
			if publishVerbs[t] || t == "release" {
				acts |= actPublish
			}
		}
		if t := taskVerbs(w)[1]; strings.Contains(w, ".") && !strings.Contains(w, ":") && (destroyVerbs[t] || t == "cancel") {
			acts |= actDestroy // openai api files.delete, fine_tunes.delete
		}
	}
	return acts
}

// setsCredentialHelper reports whether git config is told to set a
// credential helper that keeps passwords (git config --global
// credential.helper osxkeychain, git config set credential.https://x.helper
// store): where git keeps every password it is given from then on. The
// cache helper, which holds them in memory for a while, and an empty
// value, which clears the list, keep none. Round 16.
func setsCredentialHelper(a *argv) bool {
	p := a.positionals
	if len(p) < 3 || p[0] != "config" || a.hasFlagWord("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--unset", "--unset-all", "--remove-section") {
		return false
	}
	for j, w := range p[1 : len(p)-1] {
		k := strings.ToLower(w)
		if k == "credential.helper" || strings.HasPrefix(k, "credential.") && strings.HasSuffix(k, ".helper") {
			v := strings.TrimSpace(p[j+2])
			return v != "" && v != "cache" && !strings.HasPrefix(v, "cache ")
		}
	}
	return false
}

// optionActs returns the acts an invocation's options say it does:
// publishing (toolPublishOptions; nix copy only with --to) and installing
// for the whole system (systemInstallOptions, pacman -S).
func optionActs(a *argv) act {
	var acts act
	if opts := toolPublishOptions[a.name]; opts != nil && a.hasFlagWord(opts...) && (a.name != "nix" || a.subcommand == "copy") {
		acts |= actPublish
	}
	if opts := systemInstallOptions[a.name]; opts != nil && a.hasFlagWord(opts...) {
		acts |= actInstallGlobal
	}
	if pacmanLike[a.name] {
		for _, d := range a.dashWords {
			// -S, -Sy, -Syu, -U install; -Ss, -Si, -Sc, -Sg, -Sl only look
			if len(d) > 2 && d[1] == '-' {
				continue
			}
			if (strings.HasPrefix(d, "-S") && !strings.ContainsAny(d[2:], "sicgl")) || strings.HasPrefix(d, "-U") {
				acts |= actInstallGlobal
			}
		}
	}
	return acts
}

// globalByConfig reports whether a package manager's configuration given
// on the command line or in its environment makes an install global
// (npm_config_global=true npm i x, npm install --location=global x).
func globalByConfig(inv *parse.Invocation, a *argv) bool {
	if !globalShort[a.name] {
		return false
	}
	for _, e := range inv.Env {
		k, v, _ := strings.Cut(e, "=")
		switch strings.ToLower(k) {
		case "npm_config_global":
			if v != "" && v != "false" && v != "0" {
				return true
			}
		case "npm_config_location":
			if v == "global" {
				return true
			}
		}
	}
	return a.hasFlagWord("--location=global") || contains(a.values, "global") && containsLong(a.longs, "location")
}

// jvmTaskPublishes reports whether a JVM build tool's task publishes:
// jib (jib:build) pushes an image, and a camelCase task with a publishing
// verb after its first part does (appengineDeploy), unless it publishes
// locally (publishToMavenLocal).
func jvmTaskPublishes(w string) bool {
	if w == "jib:build" || strings.HasSuffix(w, "jib:build") {
		return true // mvn compile jib:build
	}
	if jreleaserTask(w) {
		return true // ./gradlew jreleaserFullRelease, mvn jreleaser:deploy
	}
	w = w[strings.LastIndexByte(w, ':')+1:]
	if w == "jib" {
		return true // ./gradlew jib, ./gradlew :api:jib
	}
	if strings.Contains(w, "Local") || strings.Contains(w, "local") {
		return false
	}
	for i := 1; i < len(w); i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			continue
		}
		for _, v := range [...]string{"Deploy", "Publish", "Upload"} {
			if strings.HasPrefix(w[i:], v) {
				return true
			}
		}
	}
	return false
}

// jreleaserTask reports whether a build tool's task is JReleaser's that
// releases, deploys, uploads or announces (jreleaserFullRelease,
// jreleaser:full-release); its config, assemble and checksum tasks stay
// local. Round 14.
func jreleaserTask(w string) bool {
	l := strings.ToLower(w[strings.LastIndexByte(w, ':')+1:])
	if strings.HasSuffix(strings.ToLower(w), "jreleaser:"+l) {
		l = "jreleaser" + strings.ReplaceAll(l, "-", "")
	}
	rest, ok := strings.CutPrefix(l, "jreleaser")
	if !ok {
		return false
	}
	switch rest {
	case "fullrelease", "release", "deploy", "upload", "publish", "announce":
		return true
	}
	return false
}

// makeLike run the targets or tasks they are given, whose names say what
// they do.
var makeLike = map[string]bool{"make": true, "gmake": true, "bmake": true, "remake": true, "just": true, "task": true, "go-task": true, "mage": true, "invoke": true, "inv": true, "rake": true}

// targetHasVerb reports whether a target's name joins a publishing verb
// to other words (docker-push, push_image, deploy-prod), unless the word
// after the verb makes it a noun (deploy-check).
func targetHasVerb(w string) bool {
	parts := strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) < 2 || targetNamesThisMachine(parts) {
		return false
	}
	for i, p := range parts {
		switch p {
		case "push", "publish", "deploy", "upload":
			if i+1 < len(parts) && aboutWords[parts[i+1]] {
				continue
			}
			return true
		}
	}
	return false
}

// Round 21: a target named for this machine (deploy-local, push-kind,
// deploy_minikube) installs into what the machine runs, as the local
// servers of local_target.go are; a name that also says where else
// (deploy-local-prod) keeps the verb's meaning.
var thisMachineWords = map[string]bool{"local": true, "localhost": true, "kind": true, "minikube": true, "k3d": true}
var elsewhereWords = map[string]bool{"prod": true, "production": true, "staging": true, "stage": true, "remote": true, "live": true, "cloud": true,
	"release": true, "public": true, "all": true}

// targetNamesThisMachine reports whether some part of a target's name
// says this machine and none says another.
func targetNamesThisMachine(parts []string) bool {
	local := false
	for _, p := range parts {
		p = strings.ToLower(p)
		if elsewhereWords[p] {
			return false
		}
		local = local || thisMachineWords[p]
	}
	return local
}

// npmPublishAbbrev: npm runs a command from any unique prefix of its name
// (npm pub, npm publi, npm unpub).
func npmPublishAbbrev(w string) bool {
	return len(w) >= 3 && strings.HasPrefix("publish", w) || len(w) >= 4 && strings.HasPrefix("unpublish", w)
}

// scriptNamedVerb reports whether a script's name (deploy.sh, publish.py,
// release) says it publishes.
func scriptNamedVerb(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	switch name {
	case "deploy", "publish", "release", "upload":
		return true
	}
	return false
}

// leadingWords returns the command's first operand and the operands right
// after it (no option between), at most four: the verb, and the verb after
// a group word (dart pub publish), a task runner (npm run deploy) or a
// runner and a stage (bundle exec cap production deploy).
func leadingWords(inv *parse.Invocation, a *argv) (w [4]string) {
	if len(a.positionals) == 0 {
		return w
	}
	args := inv.Args
	i := 0
	for i < len(args) && (len(args[i]) > 1 && args[i][0] == '-') {
		if placeOption(a.name, args[i]) {
			i++ // make -C docs publish: docs is where, publish the verb
		}
		i++
	}
	for k := 0; k < len(w) && i < len(args); k, i = k+1, i+1 {
		s := args[i]
		if s == "" || s[0] == '-' || inv.DynamicArgs != nil && inv.DynamicArgs[i] {
			break
		}
		w[k] = s
	}
	return w
}

// aboutWords, after a publishing verb in a name, make it a noun: the name
// is of something that reads, checks or writes notes about a release.
var aboutWords = map[string]bool{
	"notes": true, "note": true, "info": true, "status": true, "check": true, "checks": true, "lint": true, "plan": true, "preview": true,
	"list": true, "log": true, "logs": true, "dry": true, "dryrun": true, "draft": true, "test": true, "tests": true, "diff": true, "changelog": true,
}

// placeLong are long options that say where a task runner or build tool
// works or which file lists its tasks, and take the next word (make
// --directory docs, npm --prefix x, just --justfile x); placeShort are
// the short ones, for the tools that give them that meaning.
var placeLong = map[string]bool{
	"--directory": true, "--dir": true, "--file": true, "--makefile": true, "--justfile": true, "--rakefile": true, "--taskfile": true, "--prefix": true,
	"--cwd": true, "--working-directory": true, "--project-dir": true, "--manifest-path": true, "--chdir": true, "--workdir": true, "--build-file": true,
}

var placeShort = map[string]string{
	"make": "Cf", "gmake": "Cf", "bmake": "Cf", "remake": "Cf", "rake": "CfI", "just": "fd", "task": "dt", "go-task": "dt", "mage": "dw", "invoke": "cr", "inv": "cr",
	"npm": "C", "pnpm": "C", "yarn": "C", "bun": "C", "gradle": "pb", "gradlew": "pb", "mvn": "f", "mvnw": "f", "ant": "f", "sbt": "", "cake": "", "grunt": "", "gulp": "f",
	"earthly": "", "dagger": "", "nx": "", "turbo": "", "lerna": "", "doit": "fd", "pdm": "p", "poetry": "CP", "hatch": "", "nox": "f", "tox": "c", "fab": "r",
}

// placeOption reports whether option word w of command name takes the
// next word as a place (a directory or a task file), not as a verb.
func placeOption(name, w string) bool {
	if placeLong[w] {
		return true
	}
	if len(w) >= 5 && strings.HasPrefix(w, "--") && !strings.Contains(w, "=") {
		for l := range placeLong {
			if strings.HasPrefix(l, w) {
				return true // make --direc docs: getopt_long's abbreviations
			}
		}
	}
	return len(w) == 2 && w[0] == '-' && strings.IndexByte(placeShort[name], w[1]) >= 0
}

// nameHasVerb reports whether a command's name says it publishes
// (cpan-upload, semantic-release): one of its dash-separated parts is a
// publishing verb.
func nameHasVerb(name string) bool {
	if !strings.Contains(name, "-") {
		return false
	}
	parts := strings.Split(name, "-")
	for i, p := range parts {
		switch p {
		case "publish", "upload", "deploy", "release":
			// release-notes.sh, deploy-check: the verb names what the
			// rest is about
			if i+1 < len(parts) && aboutWords[strings.TrimSuffix(parts[i+1], path.Ext(parts[i+1]))] {
				continue
			}
			return true
		}
	}
	return false
}

// taskVerbs returns the verbs a build tool's task or target label may
// start with (//deploy:push_image, :lib:publishSigned, +publishSigned,
// hex.publish, deploy:prod): the last part of a label, and the
// first of one with colons, each lower-cased up to its first capital, digit or separator. A
// task that publishes locally (publishToMavenLocal) has none.
func taskVerbs(w string) [2]string {
	var out [2]string
	if !(strings.HasPrefix(w, "//") || strings.HasPrefix(w, "+") || strings.ContainsAny(w, ":.")) || strings.Contains(w, "Local") || strings.Contains(w, "local") {
		return out
	}
	if strings.Contains(w, "/") && !strings.HasPrefix(w, "//") {
		return out // a path or an image (./x:/y, registry/x:tag)
	}
	lead := func(s string) string {
		end := 0
		for end < len(s) && s[end] >= 'a' && s[end] <= 'z' {
			end++
		}
		return s[:end]
	}
	if strings.Contains(w, ":") && !strings.HasPrefix(w, "//") {
		// deploy:prod; not a dotted file name's first part (its name), nor
		// a Bazel label's package (//deploy:all)
		out[0] = lead(strings.TrimLeft(w, ":+"))
	}
	out[1] = lead(w[strings.LastIndexAny(w, ":.+/")+1:])
	return out
}

// hasFlagWord reports whether one of the words is an argument as written.
func (a *argv) hasFlagWord(words ...string) bool {
	for _, w := range a.words {
		for _, f := range words {
			if w == f || len(w) > len(f) && w[len(f)] == '=' && strings.HasPrefix(f, "--") && strings.HasPrefix(w, f) {
				return true
			}
		}
	}
	return false
}

// actsAt returns the acts of invocation i, derived once per invocation.
func (ctx *scriptCtx) actsAt(i int, a *argv) act {
	if !a.actsKnown {
		a.acts, a.actsKnown = actsOf(&ctx.invs[i], a)|ctx.remoteActs(i, a), true
	}
	return a.acts
}

// actsMatch reports whether invocation i does one of the acts globs name.
func (ctx *scriptCtx) actsMatch(i int, a *argv, g []glob) bool {
	acts := ctx.actsAt(i, a)
	if acts == 0 {
		return false
	}
	for _, n := range actNames {
		if acts&n.a != 0 && anyGlob(g, n.name, places{}) {
			return true
		}
	}
	return false
}

// fileTool reports whether the signatures table says the command works on
// files named by its operands (cat, cp, grep, tar): a verb among them is a
// file's name. Interpreters, and tools with only options in the table
// (make, kubectl), are not.
func fileTool(name string) bool {
	sig := signatureOf(name)
	return sig != nil && !isInterpreter(name) && (sig.reads != none || sig.writes != none || sig.deletes != none || sig.execs != none)
}
