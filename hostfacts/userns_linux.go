//go:build linux

package hostfacts

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
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

// probeUserNS clones a child into a new user namespace. Its exec fails with
// ENOENT (nothing can be made under /proc/self), which only a child that was
// created can report; a failed clone reports its own error. ForkExec reaps
// the child either way.
func probeUserNS() error {
	const nowhere = "/proc/self/stockade-userns-probe"
	attr := &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}}
	pid, err := syscall.ForkExec(nowhere, []string{nowhere}, attr)
	if err == nil {
		// Cannot happen; reap it all the same.
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
		return nil
	}
	if errors.Is(err, syscall.ENOENT) {
		return nil
	}
	return err
}

func sysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(name, ".", "/"))
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
