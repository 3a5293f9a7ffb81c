package hostfacts

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// Landlock ABI levels stockade relies on. A feature is there when the
// effective ABI (see EffectiveABI) is at least its level.
const (
	ABIFS          = 1  // read, write, execute, make, remove; ptrace bounded by the domain
	ABIRefer       = 2  // rename and link across directories
	ABITruncate    = 3  // truncate(2), O_TRUNC
	ABITCP         = 4  // TCP bind and connect
	ABIIoctlDev    = 5  // ioctl on device files
	ABIScopes      = 6  // abstract unix sockets and signals scoped to the domain
	ABILogging     = 7  // audit logging of denials
	ABITSync       = 8  // restrict all threads at once
	ABIResolveUnix = 9  // connect/sendmsg on pathname unix sockets
	ABIUDP         = 10 // UDP bind and connect/send

	// MaxLandlockABI is the newest ABI stockade asks for: the newest that
	// github.com/landlock-lsm/go-landlock v0.11.0 knows. A newer kernel is
	// restricted at this level; its newer rights stay unhandled.
	MaxLandlockABI = 11
)

// Landlock errata: bits of landlock_create_ruleset(NULL, 0,
// LANDLOCK_CREATE_RULESET_ERRATA), Linux 6.15 and stable backports. A set bit
// means the kernel has the fix.
const (
	ErratumTCPSocket     = 1 << 0 // erratum 1 (ABI 4): TCP rights also hit MPTCP, SCTP, SMC
	ErratumSignalScope   = 1 << 1 // erratum 2 (ABI 6): signal scoping between threads of one process
	ErratumDisconnectDir = 1 << 2 // erratum 3 (ABI 1): refer widening through disconnected directories
)

// ABI is one Landlock ABI version: what it lets stockade restrict (the
// go-landlock preset the sandbox builds its ruleset from), the first mainline
// kernel that has it, what it gives a sandboxed command, and what is left open
// without it. The planner's notes and the sandbox's rulesets both come from
// this one table.
type ABI struct {
	Version int             `json:"abi"`
	Kernel  string          `json:"kernel,omitempty"`
	Config  landlock.Config `json:"-"`
	Gives   string          `json:"gives"`
	Without string          `json:"without"`
}

// ABIs holds every Landlock ABI stockade knows, indexed by version; ABIs[0]
// is no Landlock.
var ABIs = []ABI{
	{Version: 0},
	{Version: ABIFS, Kernel: "5.13", Config: landlock.V1,
		Gives:   "filesystem access control: read, write, execute, create and remove only under granted paths; ptrace only within the sandbox",
		Without: "no kernel filesystem restriction: the command can read and write whatever its user can"},
	{Version: ABIRefer, Kernel: "5.19", Config: landlock.V2,
		Gives:   "rename and link across directories under control (refer)",
		Without: "rename and link across directories are always refused, even inside writable roots (safe, but `mv a dir/` fails)"},
	{Version: ABITruncate, Kernel: "6.2", Config: landlock.V3,
		Gives:   "truncate under control",
		Without: "truncate of files outside the writable roots is not stopped before ABI 3"},
	{Version: ABITCP, Kernel: "6.7", Config: landlock.V4,
		Gives:   "TCP bind and connect rules",
		Without: "no Landlock network rules: network off relies on seccomp alone"},
	{Version: ABIIoctlDev, Kernel: "6.10", Config: landlock.V5,
		Gives:   "ioctl on device files under control",
		Without: "ioctl on device files the command can open (a terminal's TIOCSTI, for one) is not stopped before ABI 5"},
	{Version: ABIScopes, Kernel: "6.12", Config: landlock.V6,
		Gives:   "scopes: no signals to, and no abstract unix socket connections to, processes outside the sandbox",
		Without: "signals to processes of the same user outside the sandbox are not stopped before ABI 6"},
	{Version: ABILogging, Kernel: "6.15", Config: landlock.V7,
		Gives:   "audit logging of denials",
		Without: "denials are not logged by the kernel"},
	{Version: ABITSync, Config: landlock.V8,
		Gives:   "restriction of all threads at once",
		Without: "nothing for stockade: the child restricts itself before it starts threads that matter"},
	{Version: ABIResolveUnix, Config: landlock.V9,
		Gives:   "connect and sendmsg on pathname unix sockets made outside the sandbox under control",
		Without: "pathname unix sockets (docker.sock, ssh-agent) are stopped by seccomp only"},
	{Version: ABIUDP, Config: landlock.V10,
		Gives:   "UDP bind and connect/send rules",
		Without: "UDP is stopped by seccomp only"},
	{Version: 11, Config: landlock.V11,
		Gives:   "nothing stockade uses yet",
		Without: "nothing for stockade"},
}

// SignalScopeSafe reports whether Landlock's signal scope may be used on a
// kernel that reports these fixed errata: without the fix for erratum 2, the
// threads of one process in different domains cannot signal each other, which
// breaks the Go runtime's signals. go-landlock lowers such a kernel to ABI 5,
// and so does stockade.
func SignalScopeSafe(errata uint64) bool { return errata&ErratumSignalScope != 0 }

// EffectiveABI is the Landlock ABI stockade restricts with, given what the
// kernel reports: capped at MaxLandlockABI, and lowered to 5 when the kernel
// reports 6 or more without the fix for erratum 2. The note says why it
// differs from what the kernel reports; it is empty when it does not.
func EffectiveABI(kernel int, errata uint64) (int, string) {
	if kernel <= 0 {
		return 0, ""
	}
	abi, note := kernel, ""
	if abi > MaxLandlockABI {
		abi = MaxLandlockABI
		note = fmt.Sprintf("kernel has landlock abi %d; stockade restricts at %d, the newest it knows", kernel, abi)
	}
	if abi >= ABIScopes && !SignalScopeSafe(errata) {
		abi = ABIScopes - 1
		note = fmt.Sprintf("kernel has landlock abi %d without the fix for erratum 2 (signal scoping); restricted at abi %d", kernel, abi)
	}
	return abi, note
}

// Mechanism is a kernel feature other than Landlock that stockade uses, what
// it gives a sandboxed command, and what is left open when the host lacks it.
type Mechanism struct {
	Name    string `json:"name"`
	Kernel  string `json:"kernel,omitempty"` // the first mainline kernel that has it, where that is what decides
	Gives   string `json:"gives"`
	Without string `json:"without"`
}

// Names of the mechanisms in Mechanisms.
const (
	MechSeccomp      = "seccomp"
	MechIPCNamespace = "ipc namespace"
	MechPidsCgroup   = "pids cgroup"
	MechProcessGroup = "process group + subreaper"
	// MechConnectSupervisor: seccomp user notification with a listener on
	// every thread (SECCOMP_FILTER_FLAG_TSYNC_ESRCH, Linux 5.7; user
	// notification itself is 5.0) and pidfd_getfd (5.6). No
	// SECCOMP_IOCTL_NOTIF_ADDFD (5.9): the supervisor connects the
	// command's own socket, it never installs one.
	MechConnectSupervisor = "seccomp connect supervisor"
)

// Mechanisms is what each of the other mechanisms gives, and what is missing
// without it.
var Mechanisms = []Mechanism{
	{Name: MechSeccomp,
		Gives:   "a filter that refuses new inet, inet6 and packet sockets (and unix sockets when they are denied): TCP, MPTCP, UDP, DNS, raw; and the calls that reach other processes or shared kernel state: resource limits and priorities of other processes, keyrings, System V IPC without an IPC namespace, administrator calls",
		Without: "UDP, DNS, raw and packet sockets stay open; TCP is stopped only by Landlock ABI 4+ and MPTCP not at all; new unix sockets stay open; the command can change the resource limits and priorities of its user's processes, and use its user's keyrings and System V IPC"},
	{Name: MechIPCNamespace,
		Gives:   "a System V IPC namespace of the command's own (it needs CAP_SYS_ADMIN: root, or a plain user in a user namespace), so System V IPC works inside and reaches nothing outside",
		Without: "System V IPC is refused by seccomp, or where the host has the seccomp supervisor, goes through it"},
	{Name: MechPidsCgroup,
		Gives:   "a bound on the number of processes (max_processes)",
		Without: "no process bound: a fork bomb is stopped only by the timeout and the user's limits"},
	{Name: MechConnectSupervisor, Kernel: "5.7",
		Gives:   "network = \"allowlist\" without a network namespace: stockade makes each connect on the command's behalf, to the proxy only, with the address it read once; and System V IPC without an IPC namespace, on the objects made for the command only",
		Without: "without a network namespace the allowlist's proxy is unreachable: nothing is; without an IPC namespace System V IPC is refused"},
	{Name: MechProcessGroup,
		Gives:   "every process the command starts is found and killed when it ends or times out",
		Without: "a process that leaves the process group (setsid) outlives the command"},
}

// MechanismNamed returns the row of Mechanisms with the given name; it panics
// on a name not in the table, which is a bug in the caller.
func MechanismNamed(name string) Mechanism {
	for _, m := range Mechanisms {
		if m.Name == name {
			return m
		}
	}
	panic("hostfacts: no mechanism " + name)
}
