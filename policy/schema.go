package policy

// The schema of a policy file: the Go types a file decodes into, which say
// every table and key it may hold. Loading and checking them is load.go and
// layers.go; compiling and matching rules is rule.go.

// Verdict is the outcome for a script.
type Verdict string

const (
	Allow Verdict = "allow"
	Ask   Verdict = "ask"
	Deny  Verdict = "deny"
)

// Policy is a loaded policy file.
type Policy struct {
	Version int `toml:"version" json:"version"`
	// Extends is "" or "built-in": the file is merged over the built-in
	// policy; "none": the built-in rules are left out (see layers.go).
	Extends string `toml:"extends" json:"extends,omitempty"`
	// Default is the verdict for an invocation no rule matches: allow, ask or deny.
	Default Verdict `toml:"default" json:"default"`
	Sandbox Sandbox `toml:"sandbox" json:"sandbox"`
	Network Network `toml:"network" json:"network"`
	Env     Env     `toml:"env" json:"env"`
	Rules   []*Rule `toml:"rule" json:"rules"`
	Source  string  `toml:"-" json:"source"` // file path, or "default"

	// The index (Policy.index, Policy.candidates): byName numbers the names
	// that command lists give literally; the rules that list name number
	// id are nameRules[nameStart[id]:nameStart[id+1]].
	byName    map[string]int32
	nameStart []int32
	nameRules []int
	nameGlobs []nameGlobs // rules with globs on the base name, and which globs
	// pathNamed are the rules whose command key has a path pattern, with
	// their globs on the base name: tried for a command word with a /.
	pathNamed []nameGlobs
	anyName   []int // rules without command key, and no gate
	// gated[k] are the rules without command key whose gate is bit k
	// (gates.go); gates[i] is the gate of rule i.
	gated    [gateCount][]int
	gates    []gate
	homeDir  string // expands ~ and $HOME in arguments; "" leaves them literal
	workDir  string // the workdir, as normPath writes it (InWorkdir); "" when not known
	examples bool   // examples were verified at load
	// overrides is set when some rule overrides another by name; judge then
	// collects every match instead of keeping the strictest as it goes.
	overrides bool
	denyRead  []string // Sandbox.DenyRead in the form of effect paths; see readsDenied
	// Layers lists where the merged policy came from, in merge order.
	Layers []LayerInfo `toml:"-" json:"layers,omitempty"`
}

// Rule is one [[rule]] of a policy file: a matcher, and what to decide when it
// matches. Every key the matcher sets must hold (AND); within a list key any
// element may hold (OR), except flags, where every entry must be present.
type Rule struct {
	Name     string  `toml:"name" json:"name"`
	Decision Verdict `toml:"decision" json:"decision"`
	Reason   string  `toml:"reason" json:"reason"`
	// Override names a rule of an earlier layer that this rule takes the
	// place of, for the invocations this rule matches: the only way an allow
	// beats a stricter rule.
	Override string `toml:"override" json:"override,omitempty"`
	// Origin says which layer (and file) the rule comes from.
	Origin string `toml:"-" json:"origin,omitempty"`
	// AllowHosts grants hosts, in the forms of [network] allow, to the
	// commands the rule matches and to nothing else: with network =
	// "allowlist", a call whose every command is granted a host reaches it
	// through the proxy (grants.go). Never in a workdir layer.
	AllowHosts []string `toml:"allow_hosts" json:"allow_hosts,omitempty"`
	Matcher
	// Examples are scripts this rule must match and the policy must give
	// Decision; NotExamples are scripts this rule must not match. Load fails
	// otherwise.
	Examples    []string `toml:"examples" json:"examples,omitempty"`
	NotExamples []string `toml:"not_examples" json:"not_examples,omitempty"`
}

// Matcher says which invocations a rule applies to. The zero Matcher is not
// valid: a rule must set at least one key.
type Matcher struct {
	// Command: globs on the command's base name ("rm", "mkfs*", "python3*").
	// A pattern with a / is matched against the command word as written, when
	// that has a / too: a file run by its path ("./*", "/tmp/**"; ** crosses
	// directories). Empty: any command.
	Command []string `toml:"command" json:"command,omitempty"`
	// Subcommand: globs on the first operand ("push" of git push), found
	// after the options, skipping the values of options known to take one.
	Subcommand []string `toml:"subcommand" json:"subcommand,omitempty"`
	// Flags: every entry must be present. An entry lists alternatives with
	// "|": a single letter is a short option, alone or combined (-r, -rf,
	// -fr); a longer name is a long option (--force, --force=x, and any
	// abbreviation --forc); a name written with its dash ("-delete") is that
	// exact word or word=value, as in find and dd.
	Flags []string `toml:"flags" json:"flags,omitempty"`
	// NotFlags: the rule does not match if any of these is present. An
	// abbreviation that could stand for a Flags entry counts for it, not here.
	NotFlags []string `toml:"not_flags" json:"not_flags,omitempty"`
	// Args: globs, one of which some argument must match. "*" stays within a
	// path segment, "**" crosses them. Patterns starting with /, ~, $HOME or .
	// are paths: the argument is cleaned (/usr/../ is /) and ~, $HOME and the
	// home directory are one. The value of --opt=value is tried too.
	Args []string `toml:"args" json:"args,omitempty"`
	// LastArg: globs, one of which the last operand must match (the target of
	// cp, mv, ln, install, rsync), with the same path handling as Args.
	LastArg []string `toml:"last_arg" json:"last_arg,omitempty"`
	// NotArgs: the rule does not match if any argument matches one of these globs.
	NotArgs []string `toml:"not_args" json:"not_args,omitempty"`
	// ArgsRegex: regular expressions (RE2), one of which some argument must match.
	ArgsRegex []string `toml:"args_regex" json:"args_regex,omitempty"`
	// Writes and Reads: globs on the paths the command writes and reads:
	// the targets of output (>, >>, &>, >|, <>) and input (<) redirections,
	// and the effects the analysis derives from its operands and options
	// (tee FILE, cp SRC DST, curl -o FILE, sed -i FILE ...), resolved
	// against the script's cd's; with the same path handling as Args.
	Writes []string `toml:"writes" json:"writes,omitempty"`
	Reads  []string `toml:"reads" json:"reads,omitempty"`
	// Deletes and Executes: globs on the paths the command removes and runs,
	// as the effects analysis derives them (effects.go): operands by the
	// command's signature, resolved against the script's cd's.
	Deletes  []string `toml:"deletes" json:"deletes,omitempty"`
	Executes []string `toml:"executes" json:"executes,omitempty"`
	// ReadsDenied: the command reads (or runs) a path on the policy's
	// deny_read list or inside one, whatever the command.
	ReadsDenied *bool `toml:"reads_denied" json:"reads_denied,omitempty"`
	// ExecutesCreated: the command runs a file an earlier command of the
	// script wrote or downloaded.
	ExecutesCreated *bool `toml:"executes_created" json:"executes_created,omitempty"`
	// ExecutesMadeHere: the command runs a file an earlier command of the
	// script built from its sources (go build -o, cc -o) or wrote with
	// text the script shows (a quoted here-document), nothing downloaded.
	ExecutesMadeHere *bool `toml:"executes_made_here" json:"executes_made_here,omitempty"`
	// ProgramUnseen: the command runs a program the analysis cannot read:
	// a shell or interpreter reading it from a redirection, /dev/stdin, a
	// process substitution or a dynamic here-string, or an option that
	// names a program (tar -I, rsync -e, man -P, sort --compress-program).
	ProgramUnseen *bool `toml:"program_unseen" json:"program_unseen,omitempty"`
	// CredentialOwnService: an HTTP client sends the secret variables it
	// is given only to the service their names say ($OPENAI_API_KEY to
	// api.openai.com): using an API key, not carrying it elsewhere.
	CredentialOwnService *bool `toml:"credential_own_service" json:"credential_own_service,omitempty"`
	// SecretIndirect: an argument reads a variable named at run time
	// (${!n}) or through a nameref (declare -n r=...) that the script
	// points at a secret-named variable (n=OPENAI_API_KEY).
	SecretIndirect *bool `toml:"secret_indirect" json:"secret_indirect,omitempty"`
	// SecretVariable: an argument expands a secret-named variable
	// ($GITHUB_TOKEN, ${DB_PASSWORD}), by the scrubber's definition of one
	// (secretname.go), other than as the whole address an HTTP client
	// sends to or as the credential of a request that writes through an API.
	SecretVariable *bool `toml:"secret_variable" json:"secret_variable,omitempty"`
	// IntoCredentialStore: the command's output is piped into one that
	// logs in with it, stores it or sets it as a service's secret.
	IntoCredentialStore *bool `toml:"into_credential_store" json:"into_credential_store,omitempty"`
	// SecretName: an operand is the name of a secret-named variable
	// (printenv GITHUB_TOKEN), by the same test as SecretVariable.
	SecretName *bool `toml:"secret_name" json:"secret_name,omitempty"`
	// PrintsSecretEnv: interpreter code prints a secret-named environment
	// variable, or walks the environment and prints what it picks by secret
	// names (secret_code.go).
	PrintsSecretEnv *bool `toml:"prints_secret_env" json:"prints_secret_env,omitempty"`
	// SecretTerms: an argument names secrets by a word the scrubber takes
	// for one (token, PASSWORD, KEY) or a credential family (STRIPE, AWS);
	// not grep -v's, which name what it drops (grep_invert.go).
	SecretTerms *bool `toml:"secret_terms" json:"secret_terms,omitempty"`
	// UnsetVarRoot: an argument is a variable the script never sets
	// followed by "/" and a pattern or a system directory ("$DIR/"*): the
	// root's when the variable is empty (unset_var_root.go).
	UnsetVarRoot *bool `toml:"unset_var_root" json:"unset_var_root,omitempty"`
	// TargetLocal: the command names the server it acts on and every server
	// it names is on this machine (local_target.go): a loopback URL or host,
	// a local cluster's context (kind-*, minikube), a registry on
	// localhost. Rules about the world outside set it false.
	TargetLocal *bool `toml:"target_local" json:"target_local,omitempty"`
	// DryRun: the tool is asked only to show what it would do, by an
	// option of its own (dry_run.go): rsync -n, aws --dryrun, pulumi
	// --preview-only. Rules about acts that change things set it false.
	DryRun *bool `toml:"dry_run" json:"dry_run,omitempty"`
	// KnownPackage: a package runner (npx, pnpm dlx, bunx, uvx) runs only
	// widely used packages, by exact name or owned scope (known_package.go);
	// or an installer (pip, npm, yarn...) fetches packages only from the
	// github.com repositories of owners whose repositories are widely used
	// packages' sources (git+https://github.com/psf/black,
	// github:sindresorhus/slugify) (known_source.go).
	KnownPackage *bool `toml:"known_package" json:"known_package,omitempty"`
	// DevDatabase: the command acts on a database its name says is for
	// development or test (app_test, dev.db), on this machine: a file in
	// the workdir, or a local or default server (dev_database.go).
	DevDatabase *bool `toml:"dev_database" json:"dev_database,omitempty"`
	// NamesListedInWorkdir: the command's operands come from xargs fed
	// only by a listing of the workdir (find from a relative path, git
	// ls-files), filtered (grep, sort, head), and it has no operand of its
	// own (local_target.go).
	NamesListedInWorkdir *bool `toml:"names_listed_in_workdir" json:"names_listed_in_workdir,omitempty"`
	// WritesStyleSettings: the command writes, through > or tee, a JSON
	// text the script shows whose every key is an editor style setting
	// (editor.*, files.*, a language block of them), none naming a
	// program (style_settings.go).
	WritesStyleSettings *bool `toml:"writes_style_settings" json:"writes_style_settings,omitempty"`
	// PidFromPort: every pid the command is given is the answer of a
	// lookup of the process using one port ($(lsof -t -i:3000)).
	PidFromPort *bool `toml:"pid_from_port" json:"pid_from_port,omitempty"`
	// PidFromCommandLine: every pid the command is given is the answer of
	// pgrep -f for a pattern naming one command line of the work's own
	// ($(pgrep -f 'vite --port 5173')).
	PidFromCommandLine *bool `toml:"pid_from_command_line" json:"pid_from_command_line,omitempty"`
	// WorkStashed: the command right before it is a git stash of every
	// uncommitted change, in the same repository (git stash && git reset
	// --hard).
	WorkStashed *bool `toml:"work_stashed" json:"work_stashed,omitempty"`
	// EnvironmentShown: the command prints the whole environment (env,
	// printenv, export -p, declare -x, set) to its output, which no later
	// stage of its pipeline narrows to some names (environment_shown.go).
	EnvironmentShown *bool `toml:"environment_shown" json:"environment_shown,omitempty"`
	// SearchesText: the command searches text for a pattern it is given
	// (grep, rg, ag, ack, git grep): its words are text it looks for,
	// never code it runs or hands on (searches_text.go).
	SearchesText *bool `toml:"searches_text" json:"searches_text,omitempty"`
	// CommandAssembled: the command word is put together at run time from
	// pieces: the script's arguments spliced in (c$@at), or, in a word
	// that is not a path, a slice or edit of a value (${s:1:2}) or
	// letters glued to a variable (c${x}at) (assembled_command.go).
	CommandAssembled *bool `toml:"command_assembled" json:"command_assembled,omitempty"`
	// GrowsItself: the command writes an operand it is given twice to a
	// file through its output, and a later command moves or copies that
	// file back over the operand (cat f f > g && mv g f) (exhaustion.go);
	// or, round 22, it is a shell variable's assignment whose value names
	// the variable twice (x=$x$x, doubles_variable.go).
	GrowsItself *bool `toml:"grows_itself" json:"grows_itself,omitempty"`
	// FillsDisk: the command copies an endless device (/dev/zero,
	// /dev/urandom) to a file or a pipe, 100 GB or more or without bound
	// (dd, head -c, cat, yes > f) (disk_fill.go).
	FillsDisk *bool `toml:"fills_disk" json:"fills_disk,omitempty"`
	// SpinsOnly: the command is in a loop that never ends, and every
	// command in the script's endless loops does nothing (:, true,
	// continue) (exhaustion.go).
	SpinsOnly *bool `toml:"spins_only" json:"spins_only,omitempty"`
	// CleanPathsInWorkdir: git clean is limited to pathspecs that name
	// parts of the workdir (git clean -fdx build/), not the whole tree.
	CleanPathsInWorkdir *bool `toml:"clean_paths_in_workdir" json:"clean_paths_in_workdir,omitempty"`
	// AddressForProgram: every network address a package tool is given is
	// an argument of the program or project script it runs (npx autocannon
	// http://localhost:3000), not a package to fetch.
	AddressForProgram *bool `toml:"address_for_program" json:"address_for_program,omitempty"`
	// CopiesWorkdirFile: cp, ln or install puts in place, in the workdir,
	// only files of the workdir no earlier command of the script wrote
	// (ln -sf ../../scripts/dev.sh node_modules/.bin/dev) (workdir_link.go).
	CopiesWorkdirFile *bool `toml:"copies_workdir_file" json:"copies_workdir_file,omitempty"`
	// InCloneMadeHere: git runs in a clone an earlier git clone of the
	// script made (clone_made_here.go).
	InCloneMadeHere *bool `toml:"in_clone_made_here" json:"in_clone_made_here,omitempty"`
	// ForeignPackageSource: the text the command writes (its arguments, a
	// here-document) sets where packages come from (a registry, an index,
	// a gem source, a Cargo [patch] from a repository, a go.mod replace by
	// another module) to an address other than the ecosystem's default
	// registry (package_source.go).
	ForeignPackageSource *bool `toml:"foreign_package_source" json:"foreign_package_source,omitempty"`
	// TypoPackage: an installer (pip, npm, gem, cargo...) is told to install
	// a package named one edit (a letter changed, added, dropped or two
	// swapped) from a widely used package of its ecosystem, and not itself
	// a widely used one: reqeusts, lodahs (typo_package.go).
	TypoPackage *bool `toml:"typo_package" json:"typo_package,omitempty"`
	// Acts: globs on what the command does outside the machine's files, as
	// the analysis reads it from the verbs it is given (acts.go): "publish"
	// (publishes, deploys, uploads, releases), "flash" (writes to or erases
	// an attached device), "install-global" (installs for the whole user),
	// "destroy" (deletes machines, remote stores or their data),
	// "store-credentials" (logs in or stores a token in a tool's store),
	// "send" (sends messages, mails, posts, issues), "scale" (changes how
	// many machines or replicas run), "spend" (creates something billed,
	// moves money), "account" (changes what an account lets in).
	Acts []string `toml:"acts" json:"acts,omitempty"`
	// Script: the whole script, word for word (white space around it
	// aside); one of these must be it. The advice printed for an ask uses it,
	// so that the rule allows exactly the command that was asked about.
	Script []string `toml:"script" json:"script,omitempty"`
	// Code: regular expressions on inline interpreter code (python -c, node -e,
	// perl -e, bash -c ...), one of which must match.
	Code []string `toml:"code" json:"code,omitempty"`
	// Stdin: regular expressions on the text a here-document or a
	// here-string gives the command on its standard input (psql <<SQL),
	// one of which must match.
	Stdin []string `toml:"stdin" json:"stdin,omitempty"`
	// Dynamic: the command word is known only at run time ($cmd, $(...)).
	Dynamic *bool `toml:"dynamic" json:"dynamic,omitempty"`
	// PipedInto: standard input comes from an earlier command of a pipeline.
	PipedInto *bool `toml:"piped_into" json:"piped_into,omitempty"`
	// DynamicArgs: some argument is known only at run time ($x, $(...)).
	DynamicArgs *bool `toml:"dynamic_args" json:"dynamic_args,omitempty"`
	// DynamicArgsOutside: some argument is known only at run time and may
	// name a path outside the workdir: a file-name pattern relative to it
	// (build/*, *.egg-info) names only paths inside, so it does not count.
	DynamicArgsOutside *bool `toml:"dynamic_args_outside" json:"dynamic_args_outside,omitempty"`
	// Background: the command runs asynchronously (cmd &).
	Background *bool `toml:"background" json:"background,omitempty"`
	// EndlessLoop: the invocation is in the body of a loop that never ends
	// (while true, until false, for ((;;))).
	EndlessLoop *bool `toml:"endless_loop" json:"endless_loop,omitempty"`
	// Recursive: the command calls a shell function it is inside of, directly
	// or through other functions that call each other.
	Recursive *bool `toml:"recursive" json:"recursive,omitempty"`
	// Env: regular expressions on NAME=VALUE assignments given to the command
	// alone (FOO=1 cmd, env FOO=1 cmd), one of which must match.
	Env []string `toml:"env" json:"env,omitempty"`
	// NotEnv: the rule does not match if a NAME=VALUE given to the command
	// alone matches one of these regular expressions (RAILS_ENV=test: the
	// command is told which database it works on).
	NotEnv []string `toml:"not_env" json:"not_env,omitempty"`
	// Via: globs on where the invocation sits ("<(...)", "$(...)", "eval", "sudo").
	// A command a remote shell tool runs on another machine (ssh HOST CMD,
	// docker exec C CMD) sits in "remote:TOOL" (remote:ssh), and only
	// rules whose via names remote code ("remote:*") judge it (remote_code.go).
	Via []string `toml:"via" json:"via,omitempty"`
	// Upstream: an earlier command of the same pipeline matches this matcher
	// (curl ... | sh).
	Upstream *Matcher `toml:"upstream" json:"upstream,omitempty"`
	// Inside: the invocation is the output of a $(...) or <(...) substitution
	// handed to a command that matches this matcher (bash <(curl ...)).
	Inside *Matcher `toml:"inside" json:"inside,omitempty"`
	// After: an earlier command of the same script matches this matcher
	// (curl -o x ...; ./x): two ordinary steps that together run a download.
	After *Matcher `toml:"after" json:"after,omitempty"`

	c *compiledCell // see compile and compiled
}

// Sandbox is the [sandbox] table of a policy file: what the kernel must
// enforce. The words filesystem, network, unix_sockets and enforce may take,
// and what each means when no layer sets it, are SandboxChoices.
type Sandbox struct {
	Filesystem    string   `toml:"filesystem" json:"filesystem"`
	WritableRoots []string `toml:"writable_roots" json:"writable_roots"` // beyond the workdir and TMPDIR
	ReadableRoots []string `toml:"readable_roots" json:"readable_roots"` // empty: everything is readable
	DenyRead      []string `toml:"deny_read" json:"deny_read"`           // never readable, even where reads are broad
	Network       string   `toml:"network" json:"network"`
	UnixSockets   string   `toml:"unix_sockets" json:"unix_sockets"`
	Enforce       string   `toml:"enforce" json:"enforce"`
	MaxProcesses  int      `toml:"max_processes" json:"max_processes"` // 0: DefaultMaxProcesses where the host can, not required; never negative
	// Protected paths are read-only to commands even inside a writable root,
	// besides the built-in ones (.git/hooks, .git/config, .git/info/attributes, the
	// policy file in use); relative paths are taken from the workdir.
	Protected []string `toml:"protected" json:"protected"`
}

// The words of the [sandbox] keys that take one of a few.
const (
	FilesystemReadOnly       = "read-only"       // nothing writable but a private TMPDIR
	FilesystemWorkspaceWrite = "workspace-write" // the workdir too, and writable_roots
	FilesystemOff            = "off"             // no confinement of the file system
	NetworkOff               = "off"             // no TCP, UDP, DNS or raw sockets
	NetworkAllowlist         = "allowlist"       // only [network] allow, through stockade's proxy
	NetworkOn                = "on"              // anywhere
	UnixSocketsDeny          = "deny"            // no new AF_UNIX sockets (socketpair works)
	UnixSocketsAllow         = "allow"
	EnforceStrict            = "strict"      // nothing runs where the host cannot enforce it all
	EnforceBestEffort        = "best-effort" // runs with what the host can, and says what is missing
)

// SandboxChoices are the [sandbox] keys that take one of a few words: the
// words, strictest first, and the default, what the key means when no layer
// sets it. The loader, the layers (a workdir file may only go stricter), the
// planner (package degrade), the CLI flags and doctor all read this table.
var SandboxChoices = []Choice{
	{Key: "filesystem", Values: []string{FilesystemReadOnly, FilesystemWorkspaceWrite, FilesystemOff}, Default: FilesystemWorkspaceWrite},
	{Key: "network", Values: []string{NetworkOff, NetworkAllowlist, NetworkOn}, Default: NetworkOff},
	{Key: "unix_sockets", Values: []string{UnixSocketsDeny, UnixSocketsAllow}, Default: UnixSocketsDeny},
	{Key: "enforce", Values: []string{EnforceStrict, EnforceBestEffort}, Default: EnforceStrict},
}

// DefaultMaxProcesses bounds the processes of a command whose policy leaves
// max_processes at 0: enough for a parallel build, far below what takes a
// host down.
const DefaultMaxProcesses = 1024

// Network is the [network] table: where a command may connect when the
// sandbox's network is "allowlist" (through stockade's proxy, by name).
type Network struct {
	// Allow: host names ("registry.npmjs.org"), wildcards ("*.pythonhosted.org"),
	// host:port, and IP addresses or CIDR ranges (which also let a name that
	// resolves to a private address through). See netproxy.Allowlist.
	Allow []string `toml:"allow" json:"allow"`
}

// Env is the [env] table: what environment a command sees.
type Env struct {
	Keep  []string          `toml:"keep" json:"keep"`   // names (globs) kept even if they look secret
	Scrub []string          `toml:"scrub" json:"scrub"` // names (globs) removed besides the built-in list
	Set   map[string]string `toml:"set" json:"set"`     // set for every command
}
