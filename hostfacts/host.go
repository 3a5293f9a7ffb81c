package hostfacts

import (
	"fmt"
	"strings"
	"sync"
)

// Host is what this machine can enforce. Detect fills it in; tests, and
// `stockade doctor --host`, build one by hand to stand for another machine.
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

	// SeccompNotify: a seccomp filter can hand calls to a supervisor in
	// stockade (a listener with TSYNC, Linux 5.7), which can read the
	// caller's memory and take its descriptors (pidfd_getfd, Linux 5.6):
	// the connect supervisor of network = "allowlist" without a network
	// namespace. SeccompNotifyReason says why not.
	SeccompNotify       bool   `json:"seccomp_notify,omitempty"`
	SeccompNotifyReason string `json:"seccomp_notify_reason,omitempty"`

	NoNewPrivs bool `json:"no_new_privs"` // already set on this process
	Root       bool `json:"root"`         // effective uid 0
	// SysAdmin: CAP_SYS_ADMIN is in the effective set, so root's sandbox can
	// make every mount outside the writable roots read-only (Landlock does not
	// cover a file's mode, times or extended attributes).
	SysAdmin bool `json:"sys_admin"`

	// UserNS: a plain user can make a user namespace with mount, network and
	// IPC namespaces in it, so stockade serve's zygote gets what root gets;
	// UserNSReason says why not (meaningful for a user that is not root).
	// Detect leaves both empty: see UserNamespaces, which starts a process.
	UserNS       bool   `json:"userns,omitempty"`
	UserNSReason string `json:"userns_reason,omitempty"`

	// PidsCgroup is the directory of the pids cgroup a process bound is made
	// under (see FindPidsCgroup); empty when none, and PidsReason says why.
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

// EffectiveABI is the Landlock ABI stockade restricts with on h (see the
// function EffectiveABI); 0 off Linux.
func (h Host) EffectiveABI() (int, string) {
	if h.OS != "linux" {
		return 0, ""
	}
	return EffectiveABI(h.LandlockABI, h.LandlockErrata)
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
	if abi, _ := h.EffectiveABI(); abi > 0 {
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

// CanNetNS says whether the sandbox can give a session a network namespace of
// its own on h.
func (h Host) CanNetNS() bool {
	ok, _ := h.NetNS()
	return ok
}

// NetNS says whether the sandbox can give each session a network namespace of
// its own, and if not, why.
func (h Host) NetNS() (bool, string) {
	switch {
	case h.OS != "linux":
		return false, "no network namespaces on " + h.OS
	case h.Root && h.SysAdmin, !h.Root && h.UserNS:
		return true, ""
	}
	return false, h.NamespacesWhy()
}

// NamespacesWhy says why the sandbox has no mount, network or IPC namespace on h.
func (h Host) NamespacesWhy() string {
	switch {
	case h.OS != "linux":
		return "no namespaces on " + h.OS
	case h.Root:
		return "root without CAP_SYS_ADMIN"
	case h.UserNSReason == "":
		return "not root: a namespace needs CAP_SYS_ADMIN or a user namespace"
	}
	return "not root, and " + h.UserNSReason
}

// LandlockWhy says why h has no Landlock.
func (h Host) LandlockWhy() string {
	if h.OS != "linux" {
		return "no landlock on " + h.OS
	}
	if h.LandlockReason != "" {
		return "no landlock: " + h.LandlockReason
	}
	return "no landlock"
}

// SeccompWhy says why h has no seccomp filter.
// SeccompNotifyWhy says why h has no connect supervisor.
func (h Host) SeccompNotifyWhy() string {
	switch {
	case !h.Seccomp:
		return h.SeccompWhy()
	case h.SeccompNotifyReason != "":
		return "no connect supervisor: " + h.SeccompNotifyReason
	}
	return "no connect supervisor"
}

func (h Host) SeccompWhy() string {
	if h.OS != "linux" {
		return "no seccomp on " + h.OS
	}
	if h.SeccompReason != "" {
		return "no seccomp: " + h.SeccompReason
	}
	return "no seccomp"
}
