//go:build linux

package hostfacts

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/stockade/stockade/internal/kfile"
	"golang.org/x/sys/unix"
)

var (
	userNSOnce   sync.Once
	userNSOK     bool
	userNSReason string
)

// UserNamespaces reports whether this process can create a user namespace,
// the way an unprivileged user gets namespaces of its own; when it cannot,
// why says what stops it. It asks the kernel for real, once per process: it
// clones a child into a new user namespace, whose exec of a path that cannot
// exist then fails, so nothing runs in it (Detect starts no process; this
// does, so it is not part of Host).
//
// A user namespace that can be created may still be hobbled: with
// kernel.apparmor_restrict_unprivileged_userns = 1 (Ubuntu 23.10 and later)
// an unconfined user's namespace gets no capabilities, and that is reported
// as not allowed.
func UserNamespaces() (ok bool, why string) {
	userNSOnce.Do(func() {
		userNSOK, userNSReason = userNamespaces(probeUserNS(), os.Geteuid() == 0, sysctl)
	})
	return userNSOK, userNSReason
}

// UserNSCaps are the capabilities stockade serve's zygote keeps in its user
// namespace until the sandbox drops them: CAP_SYS_ADMIN (mounts, the IPC
// namespace), CAP_NET_ADMIN (the loopback up) and CAP_SETPCAP (the bounding
// set and the securebits).
var UserNSCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}

// UserNSAttr is how a plain user's zygote is started: in a new user namespace
// that maps the caller's uid and gid to themselves, with a new network
// namespace when netns, and UserNSCaps as ambient capabilities.
func UserNSAttr(netns bool) *syscall.SysProcAttr {
	flags := uintptr(unix.CLONE_NEWUSER)
	if netns {
		flags |= unix.CLONE_NEWNET
	}
	return &syscall.SysProcAttr{
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
		AmbientCaps: UserNSCaps,
	}
}

// probeUserNS clones a child as a zygote is started (UserNSAttr, with the
// mount and IPC namespaces the zygote then makes). Its exec of a path that
// cannot exist fails with ENOENT, which only a child that was created can
// report: the clone, the id maps and the ambient capabilities all worked; a
// failed clone reports its own error. ForkExec reaps the child either way.
func probeUserNS() error {
	const nowhere = "/proc/self/stockade-userns-probe"
	attr := UserNSAttr(true)
	attr.Cloneflags |= unix.CLONE_NEWNS | unix.CLONE_NEWIPC
	pid, err := syscall.ForkExec(nowhere, []string{nowhere}, &syscall.ProcAttr{Sys: attr})
	if err == nil {
		// Cannot happen; reap it all the same.
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
		return errors.New("the probe's exec of a missing file succeeded")
	}
	if errors.Is(err, syscall.ENOENT) {
		return nil
	}
	return err
}

func sysctl(name string) string {
	b, err := kfile.Read("/proc/sys/" + strings.ReplaceAll(name, ".", "/"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// userNamespaces turns the probe's error and the sysctls that explain it into
// the answer.
func userNamespaces(probe error, root bool, sysctl func(string) string) (bool, string) {
	if probe == nil {
		if !root && sysctl("kernel.apparmor_restrict_unprivileged_userns") == "1" {
			return false, "AppArmor gives an unprivileged user's namespace no capabilities (kernel.apparmor_restrict_unprivileged_userns = 1)"
		}
		return true, ""
	}
	switch {
	case errors.Is(probe, syscall.ENOSPC) && sysctl("user.max_user_namespaces") == "0":
		return false, "user namespaces are turned off (user.max_user_namespaces = 0)"
	case errors.Is(probe, syscall.ENOSPC):
		return false, "the limit on user namespaces is reached (user.max_user_namespaces)"
	case errors.Is(probe, syscall.EPERM) && sysctl("kernel.unprivileged_userns_clone") == "0":
		return false, "unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone = 0)"
	case errors.Is(probe, syscall.EPERM), errors.Is(probe, syscall.EACCES):
		return false, fmt.Sprintf("refused (%v), likely by a seccomp filter or a security module this process runs under", probe)
	case errors.Is(probe, syscall.EINVAL):
		return false, "the kernel is built without user namespaces (CONFIG_USER_NS)"
	}
	return false, fmt.Sprintf("clone(CLONE_NEWUSER): %v", probe)
}
