//go:build !linux

package degrade

import "runtime"

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
