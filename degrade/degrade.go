package degrade

import (
	"fmt"
	"strings"
	"sync"
)

// Status of one protection.
type Status string

const (
	// Enforced: the kernel (or, for env-scrub, stockade) stops it.
	Enforced Status = "enforced"
	// Partial: stopped in part; the note says what is left open.
	Partial Status = "partial"
	// NotEnforced: wanted, but nothing on this host stops it.
	NotEnforced Status = "not enforced"
	// Off: the policy does not ask for it.
	Off Status = "off"
)

// Names of the protections in a Report, in the order they appear.
const (
	FSWrite      = "fs-write"      // no writes outside the workdir, TMPDIR and writable roots
	DenyRead     = "deny-read"     // the deny_read paths cannot be read
	NetworkTCP   = "network-tcp"   // no TCP connect or bind
	NetworkOther = "network-other" // no UDP (DNS), raw or packet sockets
	UnixSockets  = "unix-sockets"  // no new unix sockets, so no docker.sock or ssh-agent
	DeviceIoctl  = "device-ioctl"  // no ioctl on device files (TIOCSTI)
	Signals      = "signals"       // no signals or ptrace to processes outside the sandbox
	// KernelObjects: no resource limits, priorities or scheduling of processes
	// outside the sandbox, no keyrings, no System V IPC of the host, no
	// administrator calls (see sandbox/seccomp_kernel.go).
	KernelObjects = "kernel-objects"
	// ProtectedFiles: what runs outside the sandbox later (git hooks and
	// config, the policy file) cannot be changed by the command.
	ProtectedFiles = "protected-files"
	Containment    = "containment"   // every process the command starts ends with it
	ProcessBound   = "process-bound" // at most max_processes processes
	EnvScrub       = "env-scrub"     // secrets removed from the environment
)

// Protection is one line of the enforcement report.
type Protection struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Required: the policy asks for it, so strict enforcement refuses to run
	// when it is less than Enforced.
	Required bool   `json:"required"`
	By       string `json:"by,omitempty"`
	Note     string `json:"note,omitempty"`
}

// Report says what a run gets.
type Report struct {
	Enforce string `json:"enforce"`
	// Full: every protection the policy requires is enforced.
	Full        bool         `json:"full"`
	Host        string       `json:"host"` // one line: os, kernel, landlock, seccomp
	Protections []Protection `json:"protections"`
}

// Missing returns the required protections that are not fully enforced.
func (r Report) Missing() []Protection {
	var out []Protection
	for _, p := range r.Protections {
		if p.Required && p.Status != Enforced {
			out = append(out, p)
		}
	}
	return out
}

// Get returns the protection with the given name.
func (r Report) Get(name string) (Protection, bool) {
	for _, p := range r.Protections {
		if p.Name == name {
			return p, true
		}
	}
	return Protection{}, false
}

// Summary is one line for the warning a best-effort run logs once, such as
// "best-effort: partial: fs-write; not enforced: network-other".
func (r Report) Summary() string {
	if r.Full {
		return "every protection the policy requires is enforced"
	}
	var partial, not []string
	for _, p := range r.Missing() {
		if p.Status == Partial {
			partial = append(partial, p.Name)
		} else {
			not = append(not, p.Name)
		}
	}
	var parts []string
	if len(partial) > 0 {
		parts = append(parts, "partial: "+strings.Join(partial, ", "))
	}
	if len(not) > 0 {
		parts = append(parts, "not enforced: "+strings.Join(not, ", "))
	}
	return r.Enforce + ": " + strings.Join(parts, "; ")
}

// Host is what this machine can enforce. Detect fills it in; tests build one
// by hand to stand for another machine.
type Host struct {
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	Kernel string `json:"kernel,omitempty"` // uname release

	// LandlockABI is what the kernel reports; 0 means no Landlock, and
	// LandlockReason says why.
	LandlockABI    int    `json:"landlock_abi"`
	LandlockReason string `json:"landlock_reason,omitempty"`
	// LandlockErrata is the bitmask of fixed Landlock errata; meaningful when
	// LandlockErrataKnown (kernels before 6.15 without the backport do not say,
	// and are taken to have none fixed).
	LandlockErrata      uint64 `json:"landlock_errata"`
	LandlockErrataKnown bool   `json:"landlock_errata_known"`

	// Seccomp: seccomp filters can be installed.
	Seccomp       bool   `json:"seccomp"`
	SeccompReason string `json:"seccomp_reason,omitempty"`
	// SeccompMode of this process (0 none, 1 strict, 2 filter; -1 unknown):
	// 2 usually means a container runtime's profile.
	SeccompMode int `json:"seccomp_mode"`

	NoNewPrivs bool `json:"no_new_privs"` // already set on this process
	Root       bool `json:"root"`         // effective uid 0
	// SysAdmin: CAP_SYS_ADMIN is in the effective set, so root's sandbox can
	// make every mount outside the writable roots read-only (Landlock does not
	// cover a file's mode, times or extended attributes).
	SysAdmin bool `json:"sys_admin"`

	// UserNS: a plain user can make a user namespace with mount, network and
	// IPC namespaces in it, so the zygote gets what root gets; UserNSReason
	// says why not (meaningful for a user that is not root).
	UserNS       bool   `json:"userns,omitempty"`
	UserNSReason string `json:"userns_reason,omitempty"`

	// PidsCgroup is the directory of a writable pids cgroup a process bound
	// can be made under; empty when none, and PidsReason says why.
	PidsCgroup string `json:"pids_cgroup,omitempty"`
	PidsReason string `json:"pids_reason,omitempty"`
}

var (
	detectOnce sync.Once
	detected   Host
)

// Detect finds out, once per process, what this host can enforce. It makes a
// handful of system calls and reads a few files under /proc and /sys; it
// starts no process.
func Detect() Host {
	detectOnce.Do(func() { detected = detect() })
	return detected
}

// String is the one-line description of the host used in reports.
func (h Host) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s", h.OS, h.Arch)
	if h.Kernel != "" {
		fmt.Fprintf(&b, " %s", h.Kernel)
	}
	if h.OS != "linux" {
		return b.String()
	}
	if abi, _ := h.effectiveABI(); abi > 0 {
		fmt.Fprintf(&b, ", landlock abi %d", abi)
	} else {
		b.WriteString(", no landlock")
	}
	if h.Seccomp {
		b.WriteString(", seccomp")
	} else {
		b.WriteString(", no seccomp")
	}
	if h.Root {
		b.WriteString(", root")
	} else if h.UserNS {
		b.WriteString(", user namespaces")
	}
	return b.String()
}

// effectiveABI is the Landlock ABI stockade restricts with on h: what the kernel
// reports, capped at MaxLandlockABI, and lowered to 5 when the kernel reports 6
// or more without the fix for erratum 2 (go-landlock does the same, so asking it
// for more would fail). The note says why it differs from what the kernel reports.
func (h Host) effectiveABI() (int, string) {
	abi := h.LandlockABI
	if h.OS != "linux" || abi <= 0 {
		return 0, ""
	}
	var note string
	if abi > MaxLandlockABI {
		abi = MaxLandlockABI
		note = fmt.Sprintf("kernel has landlock abi %d; stockade restricts at %d, the newest it knows", h.LandlockABI, abi)
	}
	if abi >= abiScopes && h.LandlockErrata&erratumSignalScope == 0 {
		abi = abiScopes - 1
		note = fmt.Sprintf("kernel has landlock abi %d without the fix for erratum 2 (signal scoping); restricted at abi %d", h.LandlockABI, abi)
	}
	return abi, note
}

// Refusal is the error Plan returns under strict enforcement when the host
// cannot give a protection the policy requires. Nothing may run.
type Refusal struct {
	Missing []Protection // required protections less than enforced
	Why     string       // what the host lacks, such as "no landlock: kernel 5.10 predates it (5.13+)"
}

func (r *Refusal) Error() string {
	names := make([]string, len(r.Missing))
	for i, p := range r.Missing {
		names[i] = p.Name
		if p.Status == Partial {
			names[i] += " (partial)"
		}
	}
	msg := "this host cannot enforce what the policy requires: " + strings.Join(names, ", ")
	if r.Why != "" {
		msg += ": " + r.Why
	}
	return msg
}

// Hints are the one-line policy changes that would let the command run: opting
// into best-effort, or dropping the requirement.
func (r *Refusal) Hints() []string {
	hints := []string{`to run with what this host can enforce, set enforce = "best-effort" in [sandbox]`}
	seen := map[string]bool{}
	for _, p := range r.Missing {
		var h string
		switch p.Name {
		case FSWrite, DenyRead:
			h = `or drop the filesystem restriction: filesystem = "off" in [sandbox]`
		case NetworkTCP, NetworkOther:
			h = `or allow the network: network = "on" in [sandbox]`
		case UnixSockets:
			h = `or allow unix sockets: unix_sockets = "allow" in [sandbox]`
		case ProcessBound:
			h = `or keep only the default process bound, which is not required: max_processes = 0 in [sandbox]`
		}
		if h != "" && !seen[h] {
			seen[h] = true
			hints = append(hints, h)
		}
	}
	return append(hints, "run 'stockade doctor' to see what this host can enforce")
}
