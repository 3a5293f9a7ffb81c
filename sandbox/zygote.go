package sandbox

// The zygote protocol. After the first request and reply, the parent and the zygote
// exchange zygoteMsg packets on the seqpacket socket at controlFD, one JSON
// object per packet. A "spawn" packet carries, as SCM_RIGHTS, the descriptors that
// become the command's fds 0, 1, 2 and 3 (stdin, stdout, stderr, and the channel
// on which the shell reports its final cwd and environment), and at most
// maxExtraFiles more, which become fds 4 and up (a prepared shell reads its
// script from fd 4).
//
//	parent -> zygote  spawn  {id, argv, env, dir}   + 4 to 4+maxExtraFiles descriptors
//	zygote -> parent  started {id, pid}  or  failed {id, error}
//	parent -> zygote  signal {id, signal}           signal the command's process group
//	zygote -> parent  exited {id, status, leftovers}
//
// When a command's shell exits, the zygote kills what it left behind before it
// reports "exited": the rest of its process group, and every process that was
// reparented to the zygote (a child subreaper, or the init of the session's
// PID namespace, see mountSessionProc) and does not belong to another
// running command. With a PID namespace, every pid in these packets is the
// namespace's. A process belongs to a command when its environment carries
// TaskEnv=<id>; a process that hides its environment belongs to none, so it is
// killed at the first end, never kept.

// TaskEnv names the environment variable that tells a process which command it
// belongs to.
const TaskEnv = "STOCKADE_TASK"

// zygoteMsg is one packet of the zygote protocol.
type zygoteMsg struct {
	Op        string   `json:"op"`
	ID        uint64   `json:"id"`
	Argv      []string `json:"argv,omitempty"`
	Env       []string `json:"env,omitempty"`
	Dir       string   `json:"dir,omitempty"`
	Pid       int      `json:"pid,omitempty"`
	Signal    int      `json:"signal,omitempty"`
	Status    int      `json:"status"` // the raw wait status
	Leftovers int      `json:"leftovers,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// Zygote protocol operations.
const (
	opSpawn   = "spawn"
	opStarted = "started"
	opFailed  = "failed"
	opSignal  = "signal"
	opExited  = "exited"
)

// maxExtraFiles bounds the descriptors a spawn passes beyond the first four.
const maxExtraFiles = 1

// maxPacket bounds one protocol packet; the parent refuses bigger requests.
const maxPacket = 4 << 20
