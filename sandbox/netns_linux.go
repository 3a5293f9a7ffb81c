//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// A network namespace of the session's own.
//
// The parent (root, with CAP_SYS_ADMIN) makes it with NewNetNS: a namespace
// whose only interface is a loopback that is up. The sandboxed child joins it
// (Spec.NetNS, the namespace at childNetNSFD) before anything else touches the
// network, so every command of the session shares one 127.0.0.1 of its own: a
// dev server in a background task and the tests that call it meet there,
// while nothing of the host (its loopback services, the stockade HTTP server,
// other sessions) is reachable, because in that namespace it does not exist.
// Abstract unix sockets are per network namespace too.
//
// The parent keeps the namespace's descriptor, so it can open listeners
// inside it (ListenIn) for the egress proxy it serves from outside.

// childNetNSFD is where the sandboxed child finds the namespace to join.
const childNetNSFD = 5

// netnsArg follows the mode in the child's arguments when the parent passed
// a namespace at childNetNSFD.
const netnsArg = "netns"

// checkNetNSFD makes sure the namespace descriptor is there exactly when the
// spec joins it: a descriptor the parent passed ahead (exec mode starts the
// child before the policy is known) and the spec does not use is closed, so
// no command inherits it.
func checkNetNSFD(spec Spec) error {
	passed := len(os.Args) > 3 && os.Args[3] == netnsArg
	switch {
	case spec.NetNS && !spec.UserNS && !passed:
		return errors.New("the spec joins a network namespace, and none was passed")
	case passed && (!spec.NetNS || spec.UserNS):
		unix.Close(childNetNSFD)
	}
	return nil
}

// NewNetNS makes a new network namespace with its loopback up and returns a
// descriptor of it. The calling process stays where it was.
func NewNetNS() (*os.File, error) {
	var ns *os.File
	err := inOtherNetNS(func() error {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("unshare(CLONE_NEWNET): %w", err)
		}
		if err := loopbackUp(); err != nil {
			return err
		}
		f, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			return err
		}
		ns = f
		return nil
	})
	return ns, err
}

// ListenIn opens a TCP listener at addr inside the network namespace ns.
func ListenIn(ns *os.File, addr string) (net.Listener, error) {
	var ln net.Listener
	err := inOtherNetNS(func() error {
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("setns: %w", err)
		}
		var err error
		ln, err = net.Listen("tcp4", addr)
		return err
	})
	return ln, err
}

// inOtherNetNS runs f on a thread of its own, then puts that thread back in
// this process's network namespace. If it cannot go back, the thread is left
// locked, and the Go runtime ends it with its goroutine.
func inOtherNetNS(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			done <- err
			return
		}
		defer home.Close()
		err = f()
		if back := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); back != nil {
			done <- errors.Join(err, fmt.Errorf("returning to the host network namespace: %w", back))
			return // the thread stays locked and dies with this goroutine
		}
		runtime.UnlockOSThread()
		done <- err
	}()
	return <-done
}

// loopbackUp sets the flag IFF_UP on lo in the calling thread's namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

// joinNetNS moves the calling thread into the namespace at fd (childNetNSFD in
// the zygote; the descriptor Start was given) and checks that it is there.
// Commands started from this thread inherit it.
func joinNetNS(fd int) error {
	var want unix.Stat_t
	if err := unix.Fstat(fd, &want); err != nil {
		return fmt.Errorf("network namespace descriptor: %w", err)
	}
	if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("joining the session's network namespace: %w", err)
	}
	var got unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &got); err != nil {
		return fmt.Errorf("verifying the network namespace: %w", err)
	}
	if got.Ino != want.Ino || got.Dev != want.Dev {
		return errors.New("verifying the network namespace: the thread is not in the session's namespace")
	}
	return nil
}
