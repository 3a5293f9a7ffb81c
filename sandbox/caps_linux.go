//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/internal/kfile"
	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// Credentials (no_new_privs, securebits, capability sets) belong to each thread,
// not to the process: every change here goes through psx, which makes the same
// system call on every OS thread of the Go runtime, so no thread is left behind
// to fork or exec with more than the others.

// threadPrctl is prctl(2) on every thread, or on the calling one only.
func threadPrctl(all bool, option, arg2, arg3, arg4, arg5 uintptr) error {
	if !all {
		return unix.Prctl(int(option), arg2, arg3, arg4, arg5)
	}
	_, _, errno := psx.Syscall6(unix.SYS_PRCTL, option, arg2, arg3, arg4, arg5, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// setNoNewPrivs sets no_new_privs on every thread: execve never grants
// privileges again (setuid and setgid bits and file capabilities are ignored),
// and Landlock and seccomp may be applied without CAP_SYS_ADMIN.
func setNoNewPrivs(all bool) error {
	if err := threadPrctl(all, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	return nil
}

// The securebits that make uid 0 an ordinary user for capabilities, locked so
// they cannot be turned off again: exec as root or of a setuid-root program
// grants nothing (NOROOT), changing uids does not matter (NO_SETUID_FIXUP),
// capabilities cannot be kept over setuid, nor raised into the ambient set.
// The values are those of <linux/securebits.h>.
const (
	secbitNoroot                  = 1 << 0
	secbitNorootLocked            = 1 << 1
	secbitNoSetuidFixup           = 1 << 2
	secbitNoSetuidFixupLocked     = 1 << 3
	secbitKeepCapsLocked          = 1 << 5
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7

	lockedSecurebits = secbitNoroot | secbitNorootLocked |
		secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitKeepCapsLocked |
		secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
)

// dropCaps drops every capability: the securebits first (they need
// CAP_SETPCAP), then the bounding set (also CAP_SETPCAP), and last the
// effective, permitted and inheritable sets, which empties the ambient set too.
//
// The securebits and the three sets change on every thread. The bounding set,
// one system call per capability, is emptied on the calling thread only, which
// must be the thread that starts commands (Apply locks it): it only limits what
// an execve could grant, and after no_new_privs no execve grants more than the
// permitted set it starts from, which is empty on every thread. Doing it on
// every thread would cost about 2ms.
//
// A process without CAP_SETPCAP (not root) cannot change its securebits or
// bounding set; it has nothing to gain from them either, for the same reason.
func dropCaps(all bool) error {
	hasSetpcap, err := hostfacts.EffectiveCap(unix.CAP_SETPCAP)
	if err != nil {
		return err
	}
	if hasSetpcap {
		if err := threadPrctl(all, unix.PR_SET_SECUREBITS, lockedSecurebits, 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
		}
		last, err := lastCap()
		if err != nil {
			return err
		}
		for c := 0; c <= last; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
				return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
			}
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3} // pid 0: the calling thread
	data := [2]unix.CapUserData{}
	var errno syscall.Errno
	if all {
		_, _, errno = psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	} else {
		_, _, errno = unix.RawSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	}
	if errno != 0 {
		return fmt.Errorf("capset: %w", errno)
	}
	return nil
}

// lastCap reads the highest capability number the kernel knows.
func lastCap() (int, error) {
	b, err := kfile.Read("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 0, fmt.Errorf("reading the last capability: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 || n > 63 {
		return 0, fmt.Errorf("reading the last capability: bad value %q", b)
	}
	return n, nil
}

// threadStatus is what Apply checks in /proc/.../status.
type threadStatus struct {
	noNewPrivs                             bool
	seccomp                                int // 0 off, 1 strict, 2 filter
	capInh, capPrm, capEff, capBnd, capAmb uint64
}

// readStatusAt reads the status file at path below the directory open at
// dirfd.
func readStatusAt(dirfd int, path string) (threadStatus, error) {
	var st threadStatus
	b, err := readFileAt(dirfd, path)
	if err != nil {
		return st, fmt.Errorf("reading %s: %w", path, err)
	}
	seen := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		hex := func() uint64 { n, _ := strconv.ParseUint(val, 16, 64); return n }
		switch key {
		case "NoNewPrivs":
			st.noNewPrivs = val == "1"
		case "Seccomp":
			st.seccomp, _ = strconv.Atoi(val)
		case "CapInh":
			st.capInh = hex()
		case "CapPrm":
			st.capPrm = hex()
		case "CapEff":
			st.capEff = hex()
		case "CapBnd":
			st.capBnd = hex()
		case "CapAmb":
			st.capAmb = hex()
		default:
			continue
		}
		seen++
	}
	if seen < 7 {
		return st, fmt.Errorf("reading %s: missing fields", path)
	}
	return st, nil
}

// readFileAt reads the file at path below the directory open at dirfd.
func readFileAt(dirfd int, path string) ([]byte, error) {
	fd, err := unix.Openat(dirfd, path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	return io.ReadAll(f)
}

// readDirAt lists the directory at path below the directory open at dirfd.
func readDirAt(dirfd int, path string) ([]string, error) {
	fd, err := unix.Openat(dirfd, path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	return f.Readdirnames(-1)
}
