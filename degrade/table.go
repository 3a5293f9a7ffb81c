package degrade

// Mechanism is one row of the capability table: a kernel feature stockade uses,
// the first kernel that has it, what it gives a sandboxed command, and what is
// left open when the host lacks it. Plan takes its notes from this table, so
// the report, doctor and the documentation say the same thing.
type Mechanism struct {
	Name    string `json:"name"`
	ABI     int    `json:"abi,omitempty"`    // Landlock ABI that brings it; 0 for other mechanisms
	Kernel  string `json:"kernel,omitempty"` // first mainline kernel, where known
	Gives   string `json:"gives"`
	Without string `json:"without"`
}

// Landlock ABI levels stockade relies on. A feature is present when the
// effective ABI is at least its level.
const (
	abiFS          = 1  // read, write, execute, make, remove; ptrace bounded by the domain
	abiRefer       = 2  // rename and link across directories
	abiTruncate    = 3  // truncate(2), O_TRUNC
	abiTCP         = 4  // TCP bind and connect
	abiIoctlDev    = 5  // ioctl on device files
	abiScopes      = 6  // abstract unix sockets and signals scoped to the domain
	abiLogging     = 7  // audit logging of denials
	abiTSync       = 8  // restrict all threads at once
	abiResolveUnix = 9  // connect/sendmsg on pathname unix sockets
	abiUDP         = 10 // UDP bind and connect/send

	// MaxLandlockABI is the newest ABI stockade asks for: the newest that
	// github.com/landlock-lsm/go-landlock v0.11.0 knows. A newer kernel is
	// restricted at this level; its newer rights stay unhandled.
	MaxLandlockABI = 11
)

// Landlock errata (bits of landlock_create_ruleset(NULL, 0,
// LANDLOCK_CREATE_RULESET_ERRATA), Linux 6.15 and stable backports).
const (
	erratumTCPSocket     = 1 << 0 // erratum 1 (ABI 4): TCP rights also hit MPTCP, SCTP, SMC
	erratumSignalScope   = 1 << 1 // erratum 2 (ABI 6): signal scoping between threads of one process
	erratumDisconnectDir = 1 << 2 // erratum 3 (ABI 1): refer widening through disconnected directories
)

// Table is what each capability level gives, and what is missing without it.
var Table = []Mechanism{
	{Name: "landlock abi 1", ABI: abiFS, Kernel: "5.13",
		Gives:   "filesystem access control: read, write, execute, create and remove only under granted paths; ptrace only within the sandbox",
		Without: "no kernel filesystem restriction: the command can read and write whatever its user can"},
	{Name: "landlock abi 2", ABI: abiRefer, Kernel: "5.19",
		Gives:   "rename and link across directories under control (refer)",
		Without: "rename and link across directories are always refused, even inside writable roots (safe, but `mv a dir/` fails)"},
	{Name: "landlock abi 3", ABI: abiTruncate, Kernel: "6.2",
		Gives:   "truncate under control",
		Without: "truncate of files outside the writable roots is not stopped before ABI 3"},
	{Name: "landlock abi 4", ABI: abiTCP, Kernel: "6.7",
		Gives:   "TCP bind and connect rules",
		Without: "no Landlock network rules: network off relies on seccomp alone"},
	{Name: "landlock abi 5", ABI: abiIoctlDev, Kernel: "6.10",
		Gives:   "ioctl on device files under control",
		Without: "ioctl on device files the command can open (a terminal's TIOCSTI, for one) is not stopped before ABI 5"},
	{Name: "landlock abi 6", ABI: abiScopes, Kernel: "6.12",
		Gives:   "scopes: no signals to, and no abstract unix socket connections to, processes outside the sandbox",
		Without: "signals to processes of the same user outside the sandbox are not stopped before ABI 6"},
	{Name: "landlock abi 7", ABI: abiLogging, Kernel: "6.15",
		Gives:   "audit logging of denials",
		Without: "denials are not logged by the kernel"},
	{Name: "landlock abi 8", ABI: abiTSync,
		Gives:   "restriction of all threads at once",
		Without: "nothing for stockade: the child restricts itself before it starts threads that matter"},
	{Name: "landlock abi 9", ABI: abiResolveUnix,
		Gives:   "connect and sendmsg on pathname unix sockets made outside the sandbox under control",
		Without: "pathname unix sockets (docker.sock, ssh-agent) are stopped by seccomp only"},
	{Name: "landlock abi 10", ABI: abiUDP,
		Gives:   "UDP bind and connect/send rules",
		Without: "UDP is stopped by seccomp only"},
	{Name: "seccomp",
		Gives:   "a filter that refuses new inet, inet6 and packet sockets (and unix sockets when they are denied): TCP, MPTCP, UDP, DNS, raw; and the calls that reach other processes or shared kernel state: resource limits and priorities of other processes, keyrings, System V IPC without an IPC namespace, administrator calls",
		Without: "UDP, DNS, raw and packet sockets stay open; TCP is stopped only by Landlock ABI 4+ and MPTCP not at all; new unix sockets stay open; the command can change the resource limits and priorities of its user's processes, and use its user's keyrings and System V IPC"},
	{Name: "ipc namespace",
		Gives:   "a System V IPC namespace of the command's own (it needs CAP_SYS_ADMIN: root, or a plain user's stockade serve in a user namespace), so System V IPC works inside and reaches nothing outside",
		Without: "System V IPC is refused by seccomp"},
	{Name: "pids cgroup",
		Gives:   "a bound on the number of processes (max_processes)",
		Without: "no process bound: a fork bomb is stopped only by the timeout and the user's limits"},
	{Name: "process group + subreaper",
		Gives:   "every process the command starts is found and killed when it ends or times out",
		Without: "a process that leaves the process group (setsid) outlives the command"},
}

// mechanism returns the table row with the given name; it panics on a name not
// in the table, which is a bug in this package.
func mechanism(name string) Mechanism {
	for _, m := range Table {
		if m.Name == name {
			return m
		}
	}
	panic("degrade: no mechanism " + name)
}

// without is the note for a missing Landlock level.
func without(abi int) string {
	for _, m := range Table {
		if m.ABI == abi {
			return m.Without
		}
	}
	panic("degrade: no landlock level in the table")
}
