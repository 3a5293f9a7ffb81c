package sandbox

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
)

// FSMode is how much of the filesystem a command may change.
type FSMode string

const (
	// FSReadOnly: read and execute where readable; write nowhere but the
	// private TMPDIR, /dev/null and the like.
	FSReadOnly FSMode = "read-only"
	// FSWorkspaceWrite: read-only, plus write under the workdir, the private TMPDIR
	// and any extra writable roots.
	FSWorkspaceWrite FSMode = "workspace-write"
	// FSOff: no filesystem restriction at all.
	FSOff FSMode = "off"
)

// Spec is what the sandboxed child must apply before it runs a command. It is
// decided in the parent (by degrade, from the policy and the host) and travels to the
// child over an inherited pipe as JSON; the child applies exactly this and reports
// back what it applied. A zero mechanism field means "do not apply".
type Spec struct {
	FS            FSMode   `json:"fs"`
	Workdir       string   `json:"workdir"`
	TmpDir        string   `json:"tmpdir"`         // private per-session TMPDIR
	WritableRoots []string `json:"writable_roots"` // beyond Workdir and TmpDir
	ReadableRoots []string `json:"readable_roots"` // empty: the whole filesystem is readable
	DenyRead      []string `json:"deny_read"`      // absolute paths, never readable
	// PrivateRoot holds every session's state (exec's state root): nothing in
	// it is readable or writable but SessionDir, this session's own, which is
	// readable (its TmpDir writable in workspace-write). Sessions share a
	// user; this keeps them apart.
	PrivateRoot string `json:"private_root,omitempty"`
	SessionDir  string `json:"session_dir,omitempty"`
	// Protected paths are what runs outside the sandbox later (git hooks and
	// config, the policy file): read-only to the command even inside a
	// writable root, where read-only mounts can be made. Absolute.
	Protected []string `json:"protected,omitempty"`

	// LandlockABI is the Landlock ABI version to restrict with; 0 means no Landlock.
	LandlockABI int `json:"landlock_abi"`
	// NetworkOff refuses TCP through Landlock (ABI 4+) and new inet, inet6 and
	// packet sockets through seccomp.
	NetworkOff bool `json:"network_off"`
	// NetNS joins the network namespace the parent passes at childNetNSFD (see
	// NewNetNS), which has only a loopback of its own. With NetworkOff, inet
	// and inet6 sockets are then allowed, since nothing outside is reachable,
	// and Landlock's TCP rules are not applied.
	NetNS bool `json:"netns,omitempty"`
	// UserNS: the zygote runs in a user namespace of its own (see
	// UserNSAttr), which gives a plain user the namespaces root gets: with
	// NetNS, the zygote was cloned into its network namespace and no
	// descriptor is passed. Only the zygote can have it (stockade run
	// applies the sandbox to a thread of a multithreaded process).
	UserNS bool `json:"userns,omitempty"`
	// ProxyAddr, with UserNS and NetNS, is where the zygote opens the egress
	// proxy's listener inside its network namespace and hands it to the
	// parent with its reply ("": no proxy).
	ProxyAddr string `json:"proxy_addr,omitempty"`
	// Supervised, with NetworkOff and without NetNS (network = "allowlist"
	// where the session has no network namespace of its own): TCP sockets
	// are allowed, and every connect and listen is decided by stockade's
	// connect supervisor (notify_linux.go), which connects to ProxyTo only.
	Supervised bool `json:"supervised,omitempty"`
	// ProxyPortOnly, with NetworkOff and without NetNS or Supervised
	// (network = "allowlist" where neither can hold it), is the last, partial
	// layer: TCP sockets are allowed as with Supervised, and Landlock (ABI 4
	// or later) lets them connect to the port of ProxyTo only, and bind
	// nowhere. Landlock cannot tell addresses apart: that port on any other
	// host is reachable too.
	ProxyPortOnly bool `json:"proxy_port_only,omitempty"`
	// ProxyTo is the egress proxy's address on the host's loopback that a
	// supervised command may connect to ("": none), or whose port one under
	// ProxyPortOnly may.
	ProxyTo string `json:"proxy_to,omitempty"`
	// Refused, if set, is told of each call the connect supervisor
	// refused, so that the result can say what was refused. It is called in
	// stockade, outside the sandbox; the child never sees it.
	Refused func(Refusal) `json:"-"`
	// netnsFD is the descriptor of that namespace in this process: childNetNSFD
	// in the zygote, the file given to Start for stockade run.
	netnsFD int
	// guardTID is the thread of stockade that is restricted with the command
	// and forks it (0: none). Landlock's scopes let the command signal that
	// thread, which would signal all of stockade, so the filter refuses it.
	guardTID int
	// UnixSocketsOff also refuses new AF_UNIX sockets (socketpair keeps working).
	UnixSocketsOff bool `json:"unix_sockets_off"`
	// Seccomp applies the socket filter; without it NetworkOff is Landlock TCP only.
	Seccomp bool `json:"seccomp"`
	// Scopes applies Landlock scopes (abstract unix sockets and signals, ABI 6+).
	Scopes bool `json:"scopes"`
	// DropCaps drops every capability when running as root.
	DropCaps bool `json:"drop_caps"`
	// MaxProcs bounds the number of processes (0: no bound).
	MaxProcs int `json:"max_procs"`
	// NprocLimit, where there is no pids cgroup, lets the command start at
	// most this many processes more than its user runs when it starts, with
	// RLIMIT_NPROC (which counts all of the user's processes, and does not
	// bind uid 0).
	NprocLimit int `json:"nproc_limit,omitempty"`
	// IPCNamespace gives the command a System V IPC namespace of its own
	// (it needs CAP_SYS_ADMIN: root, or UserNS). The seccomp filter refuses
	// System V IPC to a command that has none, unless SysVSupervised.
	IPCNamespace bool `json:"ipc_namespace"`
	// SysVSupervised: where the command has no IPC namespace, its System V
	// IPC goes to stockade's supervisor (sysv_linux.go), which lets it reach
	// the objects made for this sandbox only, and removes them when the
	// sandbox ends. Without it, the filter refuses System V IPC.
	SysVSupervised bool `json:"sysv_supervised,omitempty"`
	// PIDNamespace gives the command a PID namespace of its own, which dies
	// with stockade however stockade dies (it needs CAP_SYS_ADMIN: root, or
	// UserNS). Start makes one with an init of its own; StartSupervisor
	// makes the zygote the init of one, which its commands share (see
	// pidns_linux.go); Apply leaves it to them.
	PIDNamespace bool `json:"pid_namespace,omitempty"`
}

// What holds a command's System V IPC (Applied.SysVIPC).
const (
	SysVNamespace  = "namespace"  // an IPC namespace of its own
	SysVSupervised = "supervised" // the supervisor, on the host's namespace
	SysVRefused    = "refused"    // the filter refuses it
)

// Applied is what the child really put in force, checked after applying
// (for example NoNewPrivs and Seccomp read back from /proc/self/status).
type Applied struct {
	NoNewPrivs  bool `json:"no_new_privs"`
	LandlockABI int  `json:"landlock_abi"`
	Seccomp     bool `json:"seccomp"`
	Scopes      bool `json:"scopes"`
	CapsDropped bool `json:"caps_dropped"`
	MaxProcs    int  `json:"max_procs"`
	// NprocLimit is the RLIMIT_NPROC set for NprocLimit (0: none).
	NprocLimit int `json:"nproc_limit,omitempty"`
	// NetNS: the command is in the session's own network namespace, with a
	// loopback of its own and no other interface.
	NetNS bool `json:"netns,omitempty"`
	// UserNS: the zygote set the sandbox up in a user namespace of its own.
	UserNS bool `json:"userns,omitempty"`
	// ReadOnlyMounts: every mount outside the writable roots is read-only
	// for the command (root, or UserNS; see mounts_linux.go), so it cannot change
	// the mode, times or extended attributes of files there either.
	ReadOnlyMounts bool `json:"read_only_mounts,omitempty"`
	// ReadOnlyProtected are the protected paths made read-only mounts.
	ReadOnlyProtected []string `json:"read_only_protected,omitempty"`
	// ProcLimit is the cgroup that bounds the processes (MaxProcs) and holds
	// every process the command starts; the parent passes it to
	// RemoveProcLimit once the child is gone.
	ProcLimit string `json:"proc_limit,omitempty"`
	// IPCNamespace: the command has a System V IPC namespace of its own, so
	// the filter lets it use System V IPC.
	IPCNamespace bool `json:"ipc_namespace,omitempty"`
	// SysVIPC is what holds the command's System V IPC: SysVNamespace,
	// SysVSupervised or SysVRefused ("": no seccomp filter, nothing holds it).
	SysVIPC string `json:"sysv_ipc,omitempty"`
	// PIDNamespace: the command is in a PID namespace of its own, with a
	// /proc of its own; when stockade dies, the kernel kills everything in it.
	PIDNamespace bool `json:"pid_namespace,omitempty"`
	// Supervised: the command's connects go to the connect supervisor.
	Supervised bool `json:"supervised,omitempty"`
	// ProxyPortOnly: Landlock lets the command connect to the proxy's port
	// only (on any address), and seccomp lets it open TCP sockets only.
	ProxyPortOnly bool   `json:"proxy_port_only,omitempty"`
	Notes         string `json:"notes,omitempty"`
	// connects is the supervised filter's listener, in the process that
	// applied it, for the connect supervisor; nil when not supervised.
	connects *os.File
	// pidns is the init of the PID namespace, in the process that made it.
	pidns *pidNamespace
}

// GitProtected are the files of the repository in workdir that the user's own
// git runs or takes programs from: the hooks; the config (core.hooksPath,
// core.fsmonitor, core.pager, credential.helper, aliases, the filter, diff
// and merge drivers); info/attributes, the one file of .git/info that
// selects any of those drivers (the rest of .git/info, written by git gc,
// names no program). Where .git is a file (a worktree or a submodule), the
// pointer to the repository itself. The same files of every submodule's
// repository (kept under .git/modules, nested for nested submodules), which
// git runs on `git submodule update` or inside the submodule.
func GitProtected(workdir string) []string {
	git := filepath.Join(workdir, ".git")
	if fi, err := os.Lstat(git); err == nil && !fi.IsDir() {
		return []string{git}
	}
	var out []string
	var add func(dir string, depth int)
	add = func(dir string, depth int) {
		out = append(out, filepath.Join(dir, "hooks"), filepath.Join(dir, "config"), filepath.Join(dir, "info", "attributes"))
		if depth == maxSubmoduleDepth {
			return
		}
		// A submodule's name may hold slashes: its repository is the
		// directory below modules that has a HEAD.
		modules := filepath.Join(dir, "modules")
		filepath.WalkDir(modules, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() || p == modules {
				return nil
			}
			if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
				add(p, depth+1)
				return filepath.SkipDir
			}
			return nil
		})
	}
	add(git, 0)
	return out
}

// maxSubmoduleDepth bounds how deep nested submodules are followed: the
// workdir's content is the command's to shape.
const maxSubmoduleDepth = 8

// writableRoots lists the directories spec makes writable in the read-only
// and workspace-write modes: the private TMPDIR always; the workdir and the
// extra roots in workspace-write only. Empty entries are left out.
func writableRoots(spec Spec) []string {
	var roots []string
	if spec.FS == FSWorkspaceWrite {
		roots = append(roots, spec.Workdir)
	}
	roots = append(roots, spec.TmpDir)
	if spec.FS == FSWorkspaceWrite {
		roots = append(roots, spec.WritableRoots...)
	}
	return slices.DeleteFunc(roots, func(p string) bool { return p == "" })
}

// Refusal is one call of a command that the connect supervisor refused.
type Refusal struct {
	// Call is the system call: "connect", "bind" or "listen".
	Call string
	// Addr is the inet address the command named; not valid for a listen
	// (which names none), a unix socket, or an address that is neither
	// IPv4 nor IPv6.
	Addr netip.AddrPort
	// Unix is the path of the unix socket a connect named ("@name" for an
	// abstract one); "" for any other.
	Unix string
	// Pid is the calling thread, and Pgid its process group, as stockade
	// sees them: a background task's refusals are told apart by its group
	// (Pgid 0: not known).
	Pid, Pgid int
}
