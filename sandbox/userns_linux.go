//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// A user namespace for a plain user's zygote.
//
// Root gets its mount, network and IPC namespaces from CAP_SYS_ADMIN. A plain
// user gets them where the host allows unprivileged user namespaces: the
// parent starts the zygote in a new user namespace (Spec.UserNS) that maps
// the user's own uid and gid to themselves, not to root, so files keep their
// owners and the command is the same user inside and out. The zygote holds
// UserNSCaps there (ambient capabilities, which survive its exec as a
// non-root uid), which is what Apply needs for the read-only mounts, the IPC
// namespace and the loopback; Apply then drops them all, with the bounding
// set, before any command runs. The capabilities are the namespace's only:
// they reach nothing the user could not already reach from outside.
//
// A new user namespace cannot be entered by a multithreaded process, so it
// is made by the clone that starts the zygote (UserNSAttr), together with
// the network namespace; the parent, which is not privileged, cannot enter
// that network namespace to open the egress proxy's listener, so the zygote
// opens it (Spec.ProxyAddr) and hands it back with its reply.

// UserNSCaps are the capabilities the zygote keeps in its user namespace
// until Apply drops them: CAP_SYS_ADMIN (mounts, the IPC namespace),
// CAP_NET_ADMIN (the loopback up) and CAP_SETPCAP (the bounding set and the
// securebits).
var UserNSCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}

// UserNSAttr is how the parent starts a zygote of spec.UserNS: in a new user
// namespace that maps the caller's uid and gid to themselves, with a new
// network namespace when spec.NetNS, and UserNSCaps as ambient capabilities.
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

// ProbeUserNS starts nothing: it clones a child with UserNSAttr and the
// mount, network and IPC namespaces the zygote will make, and lets the exec
// of a path that does not exist end it. ENOENT from the exec means the clone,
// the id maps and the ambient capabilities all worked; any other error is
// why a plain user's zygote cannot have its namespaces here (user namespaces
// off by sysctl, their count at its limit, an AppArmor or seccomp policy).
func ProbeUserNS() error {
	attr := UserNSAttr(true)
	attr.Cloneflags |= unix.CLONE_NEWNS | unix.CLONE_NEWIPC
	_, err := syscall.ForkExec("/nonexistent/stockade-userns-probe", []string{"probe"}, &syscall.ProcAttr{Sys: attr})
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err == nil {
		return errors.New("the probe's exec of a missing file succeeded")
	}
	return err
}

// joinOwnNetNS is NetNS in a user namespace: the zygote was cloned into a new
// network namespace, which it checks has nothing but a loopback, and brings
// that up.
func joinOwnNetNS() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("network namespace: %w", err)
	}
	if len(ifs) != 1 || ifs[0].Name != "lo" {
		return fmt.Errorf("network namespace: want only lo, found %d interfaces", len(ifs))
	}
	return loopbackUp()
}

// listenProxy opens the egress proxy's listener at addr in this process's
// network namespace, for the parent to serve; it returns its descriptor.
func listenProxy(addr string) (int, error) {
	ln, err := net.Listen("tcp4", addr)
	if err != nil {
		return -1, fmt.Errorf("egress proxy listener: %w", err)
	}
	defer ln.Close()
	f, err := ln.(*net.TCPListener).File() // a dup, blocking
	if err != nil {
		return -1, fmt.Errorf("egress proxy listener: %w", err)
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return -1, fmt.Errorf("egress proxy listener: %w", err)
	}
	unix.CloseOnExec(fd)
	return fd, nil
}
