//go:build linux

package sandbox

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// A user namespace for a plain user's zygote.
//
// Root gets its mount, network and IPC namespaces from CAP_SYS_ADMIN. A plain
// user gets them where the host allows unprivileged user namespaces: the
// parent starts the zygote in a new user namespace (Spec.UserNS; hostfacts.UserNSAttr) that maps
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
