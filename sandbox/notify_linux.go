//go:build linux

package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The connect supervisor: network = "allowlist" where the session has no
// network namespace (a plain user on a host that refuses user namespaces, and
// every plain user's stockade run). The filter sends each connect(2) and
// listen(2) of the command here (SECCOMP_RET_USER_NOTIF, see seccomp.go), and
// the supervisor, in stockade, outside the sandbox, decides and acts:
//
//   - connect on an inet socket: the address is read from the command's
//     memory once, into the supervisor's own buffer; then the notification is
//     checked to be still pending (SECCOMP_IOCTL_NOTIF_ID_VALID), so the pid
//     it names is still the caller. Only the proxy's address is allowed (an
//     IPv4-mapped IPv6 form of it too). The supervisor then takes the
//     command's socket (pidfd_getfd) and connects it itself, with its copy of
//     the address, and answers with the result, EINPROGRESS for a
//     non-blocking socket included. Any other address is answered EACCES and
//     nothing is connected. The call is never let through
//     (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the kernel would read the address
//     again, after the check, and another thread of the command may have
//     changed it by then.
//   - connect on any other socket (unix, netlink): let through, where
//     Landlock refuses the command every TCP connect of its own
//     (Spec.LandlockABI >= 4): the descriptor may have been swapped for a TCP
//     socket after the check, and Landlock then refuses it. Without Landlock
//     TCP rules, refused (EACCES).
//   - AF_UNSPEC (which disconnects a socket): done by the supervisor.
//   - bind on an inet socket: refused (EACCES), as Landlock would refuse it
//     where it has TCP rules; seen here, it is told (Spec.Refused), so that
//     a server that cannot listen says why. On any other socket, let
//     through: a TCP socket swapped in after the check is bound at most, and
//     its listen and connect come here too.
//   - listen on an inet socket: refused (EACCES); a TCP socket that was
//     never bound would listen on every address of the host. On any other
//     socket the supervisor listens itself on the command's socket.
//
// Every refusal is told to Spec.Refused, with the calling thread.
//
// If stockade is gone, the filter's calls fail (ENOSYS): closed.

// seccompNotif is struct seccomp_notif.
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// ConnectSupervisor answers the notifications of one supervised filter: its
// connects and listens (above), and its System V IPC (sysv_linux.go).
type ConnectSupervisor struct {
	listener int
	allowed  netip.AddrPort // the proxy; the zero value allows nothing
	mayPass  bool           // Landlock refuses the command's own TCP connects
	wake     int            // an eventfd that stops the loop
	done     chan struct{}
	answers  sync.WaitGroup // the notifications being answered
	refused  atomic.Int64   // refused calls, for the log's bound
	tell     func(Refusal)  // Spec.Refused
	sysv     *sysvObjects
}

// SuperviseConnects starts answering the notifications of the filter whose
// listener is f (taken over: Stop closes it) for a command under spec:
// connects to spec.ProxyTo only; spec.Refused is told of the others.
func SuperviseConnects(f *os.File, spec Spec) (*ConnectSupervisor, error) {
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	s := &ConnectSupervisor{listener: fd, mayPass: spec.LandlockABI >= 4, done: make(chan struct{}), tell: spec.Refused,
		sysv: newSysvObjects()}
	if spec.ProxyTo != "" {
		if s.allowed, err = netip.ParseAddrPort(spec.ProxyTo); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("the proxy's address: %w", err)
		}
	}
	if s.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC); err != nil {
		unix.Close(fd)
		return nil, err
	}
	go s.loop()
	return s, nil
}

// Stop removes the System V objects made for the sandbox, stops answering,
// and closes the listener once the loop and the answers under way are
// done: then a call the filter sends fails. Call it once the command is
// gone. The objects are gone when it returns; the rest it does not wait
// for: the loop may be held in SECCOMP_IOCTL_NOTIF_RECV by a notification
// withdrawn after poll saw it (its caller was interrupted), and an answer
// by a blocking connect.
func (s *ConnectSupervisor) Stop() {
	s.sysv.removeAll()
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	unix.Write(s.wake, one[:])
	go func() {
		<-s.done
		s.answers.Wait() // no answer may go to a reused descriptor number
		unix.Close(s.listener)
		unix.Close(s.wake)
	}()
}

func (s *ConnectSupervisor) loop() {
	defer close(s.done)
	fds := []unix.PollFd{{Fd: int32(s.listener), Events: unix.POLLIN}, {Fd: int32(s.wake), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 && fds[0].Revents&unix.POLLIN == 0 {
			return // no process uses the filter any more
		}
		var n seccompNotif
		if err := ioctlPtr(s.listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n)); err != nil {
			if err == unix.EINTR || err == unix.ENOENT {
				continue // the caller was interrupted before we took it
			}
			return
		}
		// Each on a goroutine of its own: a blocking connect must not hold
		// up the others.
		s.answers.Add(1)
		go func() {
			defer s.answers.Done()
			s.answer(n)
		}()
	}
}

// answer decides one notification and answers it.
func (s *ConnectSupervisor) answer(n seccompNotif) {
	arch, _ := seccompArchFor(runtime.GOARCH)
	calls := kernelCallsFor(arch).sysv
	if kind, ok := sysvCall(calls, uint32(n.nr)); ok {
		// One at a time, from the check to the answer: an id is not
		// removed between them.
		s.sysv.mu.Lock()
		defer s.sysv.mu.Unlock()
		if nr := uint32(n.nr); (nr == calls.shmget || nr == calls.semget || nr == calls.msgget) && !s.valid(n.id) {
			return // the caller is gone: make nothing for it
		}
		val, errno, pass := s.sysv.decide(calls, kind, uint32(n.nr), n.args)
		s.send(n.id, val, errno, pass)
		return
	}
	val, errno, pass := s.decide(n)
	s.send(n.id, val, errno, pass)
}

// send answers notification id with the call's result (val, or errno), or
// lets the kernel run it (pass).
func (s *ConnectSupervisor) send(id uint64, val int64, errno unix.Errno, pass bool) {
	resp := seccompNotifResp{id: id}
	switch {
	case pass:
		resp.flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
	case errno != 0:
		resp.error = -int32(errno)
	default:
		resp.val = val
	}
	// ENOENT: the caller is gone or was interrupted; a restarted call
	// comes again.
	ioctlPtr(s.listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
}

// decide returns the call's result (val, or errno), or pass to let the
// kernel run it. See the rules at the top of this file.
func (s *ConnectSupervisor) decide(n seccompNotif) (val int64, errno unix.Errno, pass bool) {
	arch, _ := seccompArchFor(runtime.GOARCH)
	fd := int(int32(n.args[0]))
	switch uint32(n.nr) {
	case arch.connect:
		addrLen := n.args[2]
		if addrLen > sizeofSockaddrStorage {
			return 0, unix.EINVAL, false // as the kernel answers
		}
		// The one read of the address.
		addr := make([]byte, addrLen)
		if addrLen > 0 {
			if err := readMem(int(n.pid), uintptr(n.args[1]), addr); err == unix.EFAULT {
				return 0, unix.EFAULT, false // a bad pointer, as the kernel answers
			} else if err != nil {
				return 0, unix.EACCES, false // not ours to read: a non-dumpable command
			}
		}
		sock, domain, errno := s.socketOf(n, fd)
		if errno != 0 {
			return 0, errno, false
		}
		defer unix.Close(sock)
		if domain != unix.AF_INET && domain != unix.AF_INET6 {
			if s.mayPass {
				return 0, 0, true
			}
			if domain == unix.AF_UNIX {
				path := unixPath(addr)
				s.refuse(Refusal{Call: "connect", Unix: path, Pid: int(n.pid)}, path, "a unix socket: below Landlock ABI 4 a connect on one cannot be let through safely")
			}
			return 0, unix.EACCES, false
		}
		family := uint16(0)
		if len(addr) >= 2 {
			family = binary.NativeEndian.Uint16(addr)
		}
		if family != unix.AF_UNSPEC {
			dest, ok := inetAddr(addr)
			if !ok || !s.allowed.IsValid() || dest != s.allowed {
				s.refuseInet(n, "connect", dest, ok, addr)
				return 0, unix.EACCES, false
			}
		}
		// The connect, with our copy of the address.
		var p unsafe.Pointer
		if len(addr) > 0 {
			p = unsafe.Pointer(&addr[0])
		}
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(sock), uintptr(p), uintptr(len(addr)))
		if e == unix.EISCONN && family != unix.AF_UNSPEC && s.connectedToProxy(sock) {
			// The call was made again after a signal cut the first short
			// (before Linux 5.19's WAIT_KILLABLE_RECV), and the first
			// connected the socket: to the caller, the connect succeeded.
			return 0, 0, false
		}
		return 0, e, false
	case arch.bind:
		sock, domain, errno := s.socketOf(n, fd)
		if errno != 0 {
			return 0, errno, false
		}
		unix.Close(sock)
		if domain != unix.AF_INET && domain != unix.AF_INET6 {
			return 0, 0, true
		}
		// Refused whatever it names: the address is read for the note
		// only (none where it cannot be read).
		addr := make([]byte, min(n.args[2], sizeofSockaddrStorage))
		if len(addr) > 0 && readMem(int(n.pid), uintptr(n.args[1]), addr) != nil {
			addr = nil
		}
		dest, ok := inetAddr(addr)
		s.refuseInet(n, "bind", dest, ok, addr)
		return 0, unix.EACCES, false
	case arch.listen:
		sock, domain, errno := s.socketOf(n, fd)
		if errno != 0 {
			return 0, errno, false
		}
		defer unix.Close(sock)
		if domain == unix.AF_INET || domain == unix.AF_INET6 {
			s.refuse(Refusal{Call: "listen", Pid: int(n.pid)}, "a port the kernel picks", "a server socket: servers cannot listen without a network namespace")
			return 0, unix.EACCES, false
		}
		return 0, errnoOf(unix.Listen(sock, int(int32(n.args[1])))), false
	}
	return 0, unix.ENOSYS, false
}

// socketOf takes the socket the call names from the caller, once the
// notification is known to be still valid, and says its domain.
func (s *ConnectSupervisor) socketOf(n seccompNotif, fd int) (sock, domain int, errno unix.Errno) {
	if !s.valid(n.id) {
		return -1, 0, unix.ESRCH
	}
	sock, err := s.takeFD(n, fd)
	if err != nil {
		return -1, 0, errnoOf(err)
	}
	if domain, err = unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN); err != nil {
		unix.Close(sock)
		return -1, 0, errnoOf(err)
	}
	return sock, domain, 0
}

// connectedToProxy reports whether sock is connected to the proxy.
func (s *ConnectSupervisor) connectedToProxy(sock int) bool {
	sa, err := unix.Getpeername(sock)
	if err != nil {
		return false
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)) == s.allowed
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr).Unmap(), uint16(a.Port)) == s.allowed
	}
	return false
}

// sizeofSockaddrStorage is the longest address connect(2) takes.
const sizeofSockaddrStorage = 128

// refuseInet tells of a refused call on an inet socket with the address
// raw (dest, when ok).
func (s *ConnectSupervisor) refuseInet(n seccompNotif, call string, dest netip.AddrPort, ok bool, raw []byte) {
	what := fmt.Sprintf("an address of %d bytes", len(raw))
	if ok {
		what = dest.String()
	} else {
		dest = netip.AddrPort{}
	}
	reason := "a direct connection: only stockade's proxy (" + s.allowed.String() + ") is reachable; use HTTP_PROXY and HTTPS_PROXY"
	if call == "bind" {
		reason = "a server socket: servers cannot listen without a network namespace"
	}
	s.refuse(Refusal{Call: call, Addr: dest, Pid: int(n.pid)}, what, reason)
}

// refuse logs r (the first maxRefusedLogged of this supervisor, as the
// proxy writes a line per connection) and tells Spec.Refused.
func (s *ConnectSupervisor) refuse(r Refusal, addr, reason string) {
	// For the notes' attribution only: the caller waits for the answer,
	// so the pid is the caller's unless it was killed meanwhile.
	if pgid, err := unix.Getpgid(r.Pid); err == nil {
		r.Pgid = pgid
	}
	if s.refused.Add(1) <= maxRefusedLogged {
		slog.Info("egress", "addr", addr, "allowed", false, "reason", reason, "call", r.Call)
	}
	if s.tell != nil {
		s.tell(r)
	}
}

// unixPath is the path a sockaddr_un names, "@name" for an abstract one.
func unixPath(b []byte) string {
	if len(b) <= 2 {
		return "an unnamed unix socket"
	}
	p := b[2:]
	if p[0] == 0 {
		return "@" + string(p[1:])
	}
	if i := bytes.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return string(p)
}

// maxRefusedLogged bounds what one supervisor logs of a command
// that tries address after address.
const maxRefusedLogged = 100

// valid reports whether notification id is still pending: its caller is
// alive and waiting, so the pid it names is still that caller.
func (s *ConnectSupervisor) valid(id uint64) bool {
	return ioctlPtr(s.listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// takeFD duplicates descriptor fd of the notification's caller into this
// process. The pidfd is opened for the calling thread where the kernel can
// (PIDFD_THREAD, 6.9), else for its process, and the notification is
// checked again afterwards, so the pidfd is the caller's.
func (s *ConnectSupervisor) takeFD(n seccompNotif, fd int) (int, error) {
	const pidfdThread = unix.O_EXCL
	pidfd, err := unix.PidfdOpen(int(n.pid), pidfdThread)
	if err == unix.EINVAL {
		var tgid int
		if tgid, err = threadGroup(int(n.pid)); err == nil {
			pidfd, err = unix.PidfdOpen(tgid, 0)
		}
	}
	if err != nil {
		return -1, err
	}
	defer unix.Close(pidfd)
	if !s.valid(n.id) {
		return -1, unix.ESRCH
	}
	return unix.PidfdGetfd(pidfd, fd, 0)
}

// threadGroup is the process that thread tid belongs to.
func threadGroup(tid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, errors.New("no Tgid in " + strconv.Itoa(tid) + "/status")
}

// readMem copies len(buf) bytes at addr of process pid into buf, whole or not at all.
func readMem(pid int, addr uintptr, buf []byte) error {
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(len(buf))
	remote := []unix.RemoteIovec{{Base: addr, Len: len(buf)}}
	n, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil {
		return err
	}
	if n != len(buf) {
		return unix.EFAULT
	}
	return nil
}

// inetAddr decodes a sockaddr_in or sockaddr_in6 as the kernel would; an
// IPv4-mapped IPv6 address is its IPv4 address.
func inetAddr(b []byte) (netip.AddrPort, bool) {
	if len(b) < 2 {
		return netip.AddrPort{}, false
	}
	switch binary.NativeEndian.Uint16(b) {
	case unix.AF_INET:
		if len(b) < unix.SizeofSockaddrInet4 {
			return netip.AddrPort{}, false
		}
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), binary.BigEndian.Uint16(b[2:])), true
	case unix.AF_INET6:
		if len(b) < 24 { // SIN6_LEN_RFC2133: the kernel takes one without scope id
			return netip.AddrPort{}, false
		}
		a := netip.AddrFrom16([16]byte(b[8:24]))
		if len(b) >= unix.SizeofSockaddrInet6 && binary.NativeEndian.Uint32(b[24:]) != 0 {
			return netip.AddrPort{}, false // a scope: never the proxy's
		}
		return netip.AddrPortFrom(a.Unmap(), binary.BigEndian.Uint16(b[2:])), true
	}
	return netip.AddrPort{}, false
}

func ioctlPtr(fd int, req uint, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return unix.EACCES
}
