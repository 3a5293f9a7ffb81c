//go:build linux

package hostfacts

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/stockade/stockade/internal/kfile"
	"golang.org/x/sys/unix"
)

func detect() Host {
	h := Host{OS: runtime.GOOS, Arch: runtime.GOARCH, SeccompMode: -1}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	st := procStatus()
	if v, ok := st["Seccomp"]; ok {
		if n, err := strconv.Atoi(v); err == nil {
			h.SeccompMode = n
		}
	}
	h.Root = os.Geteuid() == 0
	h.SysAdmin, _ = EffectiveCap(unix.CAP_SYS_ADMIN)

	abi, errno := LandlockVersion()
	if errno != 0 {
		h.LandlockReason = landlockReason(errno, h.Kernel, h.SeccompMode, readLSM())
	} else {
		h.LandlockABI = abi
		if e, err := LandlockErrata(); err == nil {
			h.LandlockErrata, h.LandlockErrataKnown = e, true
		}
	}

	h.Seccomp, h.SeccompReason = seccompAvailable(h.SeccompMode)
	if h.Seccomp {
		h.SeccompNotify, h.SeccompNotifyReason = seccompNotifyAvailable()
	}
	if n, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); err == nil {
		h.NoNewPrivs = n == 1
	}
	h.PidsCgroup, h.PidsReason = FindPidsCgroup()
	return h
}

// LandlockVersion asks the kernel for its Landlock ABI version; the errno says
// why there is none (see the Landlock reasons Detect gives).
func LandlockVersion() (int, syscall.Errno) {
	r, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

// LandlockErrata asks the kernel for the bitmask of fixed Landlock errata;
// kernels before the errata query (6.15, and stable backports) answer EINVAL.
func LandlockErrata() (uint64, error) {
	r, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_ERRATA)
	if e != 0 {
		return 0, e
	}
	return uint64(r), nil
}

// landlockReason explains a failed Landlock version query. lsm is the content of
// /sys/kernel/security/lsm ("" when securityfs is not mounted).
func landlockReason(errno syscall.Errno, kernel string, seccompMode int, lsm string) string {
	enabled := false
	for _, name := range strings.Split(strings.TrimSpace(lsm), ",") {
		enabled = enabled || name == "landlock"
	}
	old := kernelBefore(kernel, 5, 13)
	switch errno {
	case unix.EOPNOTSUPP:
		return "built into the kernel but not enabled at boot: add landlock to the lsm= kernel parameter"
	case unix.ENOSYS:
		// Before 5.13 the kernel has no such system call: whether a seccomp
		// filter also answers ENOSYS cannot be told, and does not matter, as
		// lifting the filter would give no Landlock either.
		switch {
		case enabled:
			return "enabled in the kernel, but its system calls fail with ENOSYS: a seccomp filter this process runs under (a container runtime's profile) blocks them"
		case old:
			return fmt.Sprintf("kernel %s predates landlock (5.13)", kernel)
		case seccompMode == 2:
			return "system calls fail with ENOSYS: the kernel is built without landlock, or a seccomp filter this process runs under (a container runtime's profile) blocks them"
		}
		return "the kernel is built without landlock (CONFIG_SECURITY_LANDLOCK)"
	case unix.EPERM, unix.EACCES:
		filter := fmt.Sprintf("refused (%s), likely by a seccomp filter this process runs under", unix.ErrnoName(errno))
		if old && !enabled {
			return fmt.Sprintf("kernel %s predates landlock (5.13); its system calls are also %s", kernel, filter)
		}
		return "system calls " + filter
	}
	return fmt.Sprintf("landlock_create_ruleset: %v", errno)
}

// kernelBefore reports whether release (such as "6.18.44-fc") is older than
// major.minor; false when it cannot tell.
func kernelBefore(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	digits := strings.IndexFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' })
	if digits < 0 {
		digits = len(parts[1])
	}
	mi, err2 := strconv.Atoi(parts[1][:digits])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma < major || ma == major && mi < minor
}

func readLSM() string {
	b, _ := kfile.Read("/sys/kernel/security/lsm")
	return string(b)
}

// seccompAvailable asks the kernel whether a filter returning an errno can be
// installed (SECCOMP_GET_ACTION_AVAIL, Linux 4.14+), which answers both "built
// with seccomp filters" and "the seccomp system call is allowed here".
func seccompAvailable(mode int) (bool, string) {
	if mode == 1 {
		return false, "this process runs in seccomp strict mode"
	}
	action := uint32(unix.SECCOMP_RET_ERRNO)
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	switch e {
	case 0:
		return true, ""
	case unix.ENOSYS:
		if mode == -1 {
			return false, "the kernel is built without seccomp (CONFIG_SECCOMP)"
		}
		return false, "the seccomp system call fails with ENOSYS: kernel older than 4.14, or blocked by a seccomp filter this process runs under"
	case unix.EINVAL:
		return false, "the kernel is built without seccomp filters (CONFIG_SECCOMP_FILTER)"
	case unix.EOPNOTSUPP:
		return false, "the kernel's seccomp cannot return an errno"
	}
	return false, fmt.Sprintf("seccomp(SECCOMP_GET_ACTION_AVAIL): %v", e)
}

// seccompNotifyAvailable asks the kernel, without changing anything, for
// what the connect supervisor needs (see MechConnectSupervisor).
func seccompNotifyAvailable() (bool, string) {
	// A filter with a listener on every thread: with no program to read,
	// a kernel that knows the flags fails with EFAULT, an older one with EINVAL.
	flags := uintptr(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_TSYNC | unix.SECCOMP_FILTER_FLAG_TSYNC_ESRCH)
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, 0)
	switch e {
	case unix.EFAULT:
	case unix.EINVAL:
		return false, "the kernel's seccomp has no listener that goes with TSYNC (Linux 5.7)"
	default:
		return false, fmt.Sprintf("seccomp(SECCOMP_SET_MODE_FILTER, NEW_LISTENER): %v", e)
	}
	// pidfd_getfd of no pidfd: EBADF where the call exists.
	_, _, e = unix.Syscall(unix.SYS_PIDFD_GETFD, ^uintptr(0), 0, 0)
	if e != unix.EBADF {
		return false, fmt.Sprintf("pidfd_getfd (Linux 5.6): %v", e)
	}
	// Yama's ptrace_scope 2 and 3 keep stockade from reading the command's
	// memory and taking its sockets.
	if b, err := kfile.Read("/proc/sys/kernel/yama/ptrace_scope"); err == nil {
		if why := yamaRefuses(string(b)); why != "" {
			return false, why
		}
	}
	return true, ""
}

// yamaRefuses says why Yama's ptrace_scope (the file's content) keeps
// stockade from its commands' memory and descriptors; "" when it does not
// (0, or 1, which lets a process reach its descendants).
func yamaRefuses(scope string) string {
	if v := strings.TrimSpace(scope); v != "0" && v != "1" {
		return "kernel.yama.ptrace_scope = " + v + ": stockade may not read the command's memory"
	}
	return ""
}

// procStatus reads the fields of /proc/self/status that detection needs.
func procStatus() map[string]string {
	b, err := kfile.Read("/proc/self/status")
	if err != nil {
		return nil
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && (k == "Seccomp") {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// EffectiveCap reports whether capability c (unix.CAP_SYS_ADMIN, say) is in
// the effective set of the calling thread. Capabilities belong to each
// thread: the sandbox asks on the thread that will start commands.
func EffectiveCap(c int) (bool, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3} // pid 0: the calling thread
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false, fmt.Errorf("capget: %w", err)
	}
	return data[c/32].Effective&(1<<(c%32)) != 0, nil
}
