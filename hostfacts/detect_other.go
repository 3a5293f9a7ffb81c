//go:build !linux

package hostfacts

import (
	"errors"
	"runtime"
)

// detect on an operating system without Landlock or seccomp: nothing the kernel
// sandbox needs is there, and the report says so.
func detect() Host {
	return Host{
		OS: runtime.GOOS, Arch: runtime.GOARCH, SeccompMode: -1,
		LandlockReason: "landlock is a Linux security module",
		SeccompReason:  "seccomp is a Linux feature",
		PidsReason:     "cgroups are a Linux feature",
	}
}

// FindPidsCgroup: there are no cgroups off Linux.
func FindPidsCgroup() (dir, why string) { return "", "cgroups are a Linux feature" }

// EffectiveCap: there are no Linux capabilities off Linux.
func EffectiveCap(int) (bool, error) { return false, errors.New("capabilities are a Linux feature") }

// UserNamespaces: there are no user namespaces off Linux.
func UserNamespaces() (ok bool, why string) { return false, "user namespaces are a Linux feature" }
