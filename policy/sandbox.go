package policy

// Sandbox is the [sandbox] table of a policy file: what the kernel must enforce.
type Sandbox struct {
	Filesystem    string   `toml:"filesystem" json:"filesystem"`         // read-only | workspace-write | off
	WritableRoots []string `toml:"writable_roots" json:"writable_roots"` // beyond the workdir and TMPDIR
	ReadableRoots []string `toml:"readable_roots" json:"readable_roots"` // empty: everything is readable
	DenyRead      []string `toml:"deny_read" json:"deny_read"`           // never readable, even where reads are broad
	Network       string   `toml:"network" json:"network"`               // off | on
	UnixSockets   string   `toml:"unix_sockets" json:"unix_sockets"`     // deny | allow
	Enforce       string   `toml:"enforce" json:"enforce"`               // strict | best-effort
	MaxProcesses  int      `toml:"max_processes" json:"max_processes"`   // 0: DefaultMaxProcesses where the host can, not required
}

// Network is the [network] table: where a command may connect when the
// sandbox's network is "allowlist" (through stockade's proxy, by name).
type Network struct {
	// Allow: host names ("registry.npmjs.org"), wildcards ("*.pythonhosted.org"),
	// host:port, and IP addresses or CIDR ranges (which also let a name that
	// resolves to a private address through). See netproxy.Allowlist.
	Allow []string `toml:"allow" json:"allow"`
}

// DefaultMaxProcesses bounds the processes of a command whose policy leaves
// max_processes at 0: enough for a parallel build, far below what takes a
// host down.
const DefaultMaxProcesses = 1024

// Env is the [env] table: what environment a command sees.
type Env struct {
	Keep  []string          `toml:"keep" json:"keep"`   // names (globs) kept even if they look secret
	Scrub []string          `toml:"scrub" json:"scrub"` // names (globs) removed besides the built-in list
	Set   map[string]string `toml:"set" json:"set"`     // set for every command
}
