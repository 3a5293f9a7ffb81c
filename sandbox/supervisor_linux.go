//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/stockade/stockade/hostfacts"
	"golang.org/x/sys/unix"
)

// This is the parent's half of the zygote protocol (zygote.go); the child's
// half is zygote_linux.go. Both ends live in this package, so a change to the
// protocol is a change to one package.

// Supervisor drives one zygote: the re-executed stockade child that applied a
// Spec once and now spawns each command on request.
type Supervisor struct {
	cmd     *exec.Cmd
	cfg     SupervisorConfig
	fd      int // our end of the seqpacket socket
	applied Applied
	proxy   net.Listener // opened by the zygote at Spec.ProxyAddr; nil: none
	// connects answers the zygote's supervised filter (Spec.Supervised).
	connects *ConnectSupervisor

	sendMu  sync.Mutex
	mu      sync.Mutex
	waiters map[uint64]*waiter
	nextID  atomic.Uint64

	dead    chan struct{} // closed when the zygote is gone and what it left is stopped
	exited  chan struct{} // closed when the zygote has been waited for
	closing atomic.Bool
	closed  sync.Once
	reading bool
}

// SupervisorConfig is what StartSupervisor needs besides the Spec.
type SupervisorConfig struct {
	// Stderr receives the zygote's own diagnostics.
	Stderr io.Writer
	// NetNS is the network namespace to join (see NewNetNS); required when
	// the Spec asks for one (Spec.NetNS) outside a user namespace (with
	// Spec.UserNS the zygote is cloned into a namespace of its own), and
	// still the caller's to close.
	NetNS *os.File
	// Start starts the zygote's process (default cmd.Start). A caller that
	// is the subreaper of its commands uses it to know this child as its own.
	Start func(*exec.Cmd) error
	// Exited, if set, is called with the zygote's pid once it has exited and
	// been waited for, before anyone is told it is gone: a subreaper stops
	// there what the zygote's commands left behind and was reparented to it.
	Exited func(pid int)
}

type waiter struct {
	started chan zygoteMsg // started or failed
	exited  chan Exit
}

// selfExe is the binary re-executed as the sandboxed child.
const selfExe = "/proc/self/exe"

// StartSupervisor starts the sandboxed zygote and waits until it reports that
// spec is in force. A *StartError means the sandbox could not be applied.
//
// With spec.PIDNamespace, the zygote is the init of a PID namespace of its
// own (see mountSessionProc); where the host will not give it one, it is
// started again without, and Applied's notes say so.
func StartSupervisor(spec Spec, cfg SupervisorConfig) (*Supervisor, error) {
	z, err := startSupervisor(spec, cfg)
	if err == nil || !spec.PIDNamespace || !errors.Is(err, errNoPIDNS) {
		return z, err
	}
	why := err
	spec.PIDNamespace = false
	if z, err = startSupervisor(spec, cfg); err != nil {
		return nil, err
	}
	note := fmt.Sprintf("pid namespace: none (%v): what a command leaves is stopped when it ends, and what the session leaves when stockade is killed by the next start", why)
	if z.applied.Notes != "" {
		note = z.applied.Notes + "; " + note
	}
	z.applied.Notes = note
	return z, nil
}

func startSupervisor(spec Spec, cfg SupervisorConfig) (*Supervisor, error) {
	if spec.NetNS && !spec.UserNS && cfg.NetNS == nil {
		return nil, &StartError{"sandbox", errors.New("the spec joins a network namespace, and none was given")}
	}
	if cfg.Start == nil {
		cfg.Start = (*exec.Cmd).Start
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	for _, fd := range fds {
		// Big enough for the largest packet; root may exceed the sysctl limits.
		if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, maxPacket) != nil {
			unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, maxPacket)
		}
		if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, maxPacket) != nil {
			unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, maxPacket)
		}
	}
	childEnd := os.NewFile(uintptr(fds[1]), "zygote-control")
	cmd := exec.Command(selfExe, ChildArg, string(modeZygote))
	cmd.Args[0] = os.Args[0]
	cmd.Env = zygoteEnv
	cmd.ExtraFiles = []*os.File{childEnd}
	if spec.NetNS && !spec.UserNS {
		cmd.ExtraFiles = append(cmd.ExtraFiles, nil, cfg.NetNS) // at childNetNSFD
		cmd.Args = append(cmd.Args, netnsArg)
	}
	cmd.Stderr = cfg.Stderr
	// SIGTERM when this process dies, however it dies: the zygote then kills
	// every process below it before it leaves (SIGKILL would leave them to
	// init). The fork checks for a parent already gone, and until the zygote
	// handles SIGTERM, SIGTERM kills it before it has started anything.
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if spec.UserNS {
		cmd.SysProcAttr = hostfacts.UserNSAttr(spec.NetNS)
	}
	if spec.PIDNamespace {
		// The zygote is the namespace's init; its mount namespace, of its
		// own, gets the namespace's /proc (mountSessionProc). Go's fork
		// checks that the parent still lives once the parent-death signal
		// is set by comparing getppid, 0 in the new namespace, and sends
		// the signal to the child when it differs: the kernel drops it, as
		// it drops every signal an init sends itself with no handler set.
		cmd.SysProcAttr.Cloneflags |= unix.CLONE_NEWPID | unix.CLONE_NEWNS
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pdeathsig = true, syscall.SIGTERM
	err = cfg.Start(cmd)
	childEnd.Close()
	if err != nil {
		unix.Close(fds[0])
		if spec.PIDNamespace {
			err = fmt.Errorf("%w: %w", errNoPIDNS, err)
		}
		return nil, fmt.Errorf("start sandbox child: %w", err)
	}
	z := &Supervisor{cmd: cmd, cfg: cfg, fd: fds[0], waiters: map[uint64]*waiter{},
		dead: make(chan struct{}), exited: make(chan struct{})}
	go func() { cmd.Wait(); close(z.exited) }()

	r, err := z.handshake(spec)
	if err == nil && r.Error != "" {
		err = &StartError{r.Stage, errors.New(r.Error)}
		if r.Stage == stageNoPIDNS {
			err = &StartError{"sandbox", fmt.Errorf("%w: %s", errNoPIDNS, r.Error)}
		}
	}
	if err != nil {
		if z.proxy != nil {
			z.proxy.Close()
		}
		z.Close() // stops z.connects too
		return nil, err
	}
	z.applied = *r.Applied
	z.reading = true
	go z.readLoop()
	return z, nil
}

// Applied says what the zygote put in force.
func (z *Supervisor) Applied() Applied { return z.applied }

// ProxyListener is the egress proxy's listener that the zygote opened in its
// network namespace (Spec.ProxyAddr, with Spec.UserNS); nil when it opened
// none. The caller serves it and closes it.
func (z *Supervisor) ProxyListener() net.Listener { return z.proxy }

// Done is closed when the zygote is gone and what it left has been stopped.
func (z *Supervisor) Done() <-chan struct{} { return z.dead }

func (z *Supervisor) handshake(spec Spec) (reply, error) {
	var r reply
	b, err := json.Marshal(request{Mode: modeZygote, Spec: spec})
	if err != nil {
		return r, err
	}
	if err := unix.Sendmsg(z.fd, b, nil, nil, 0); err != nil {
		return r, fmt.Errorf("send sandbox spec: %w", err)
	}
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(2*4))
	n, oobn, err := recvWithin(z.fd, buf, oob, 10*time.Second)
	if err != nil || n == 0 {
		return r, fmt.Errorf("the sandbox child exited before reporting: %v", err)
	}
	fds := receivedFDs(oob[:oobn])
	if err := json.Unmarshal(buf[:n], &r); err != nil {
		closeAll(fds)
		return r, err
	}
	if want := btoi(r.ProxyListener) + btoi(r.ConnectListener); len(fds) != want {
		closeAll(fds)
		return r, fmt.Errorf("the sandbox child sent %d descriptors with its reply, want %d", len(fds), want)
	}
	if r.ConnectListener {
		last := fds[len(fds)-1]
		fds = fds[:len(fds)-1]
		z.connects, err = SuperviseConnects(os.NewFile(uintptr(last), "seccomp-listener"), spec)
		if err != nil {
			closeAll(fds)
			return r, fmt.Errorf("connect supervisor: %w", err)
		}
	}
	if r.ProxyListener {
		f := os.NewFile(uintptr(fds[0]), "egress-proxy")
		z.proxy, err = net.FileListener(f)
		f.Close()
		if err != nil {
			return r, fmt.Errorf("egress proxy listener: %w", err)
		}
	} else {
		closeAll(fds)
	}
	if r.Error == "" && r.Applied == nil {
		return r, errors.New("the sandbox child sent an empty reply")
	}
	return r, nil
}

func (z *Supervisor) readLoop() {
	buf := make([]byte, 64<<10)
	for {
		n, _, _, _, err := unix.Recvmsg(z.fd, buf, nil, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			if !z.closing.Load() {
				// Killed from inside the sandbox: what it ran was reparented
				// to our caller, and is stopped before anyone is told it is gone.
				z.waitExited()
				z.afterExit()
				removeProcLimit(z.applied.ProcLimit)
			}
			z.mu.Lock()
			close(z.dead)
			z.mu.Unlock()
			return
		}
		var m zygoteMsg
		if json.Unmarshal(buf[:n], &m) != nil {
			continue
		}
		z.mu.Lock()
		w := z.waiters[m.ID]
		if m.Op == opExited || m.Op == opFailed {
			delete(z.waiters, m.ID)
		}
		z.mu.Unlock()
		if w == nil {
			continue
		}
		if m.Op == opExited {
			w.exited <- Exit{Status: m.Status, Leftovers: m.Leftovers}
		} else {
			w.started <- m
		}
	}
}

// Spawn starts argv in the sandbox with files as its descriptors 0 to 3, and
// extra (at most one) from descriptor 4 on, in a process group of its own.
func (z *Supervisor) Spawn(argv, env []string, dir string, files [4]*os.File, extra ...*os.File) (Command, error) {
	if len(extra) > maxExtraFiles {
		return Command{}, fmt.Errorf("%d extra descriptors; at most %d", len(extra), maxExtraFiles)
	}
	id := z.nextID.Add(1)
	b, err := json.Marshal(zygoteMsg{Op: opSpawn, ID: id, Argv: argv, Env: env, Dir: dir})
	if err != nil {
		return Command{}, err
	}
	if len(b) > maxPacket {
		return Command{}, fmt.Errorf("the command and its environment are %d bytes; at most %d fit", len(b), maxPacket)
	}
	fds := make([]int, 0, len(files)+len(extra))
	for _, f := range append(files[:], extra...) {
		fds = append(fds, int(f.Fd()))
	}
	w := &waiter{started: make(chan zygoteMsg, 1), exited: make(chan Exit, 1)}
	z.mu.Lock()
	select {
	case <-z.dead:
		z.mu.Unlock()
		return Command{}, ErrSupervisorGone
	default:
	}
	z.waiters[id] = w
	z.mu.Unlock()

	z.sendMu.Lock()
	err = unix.Sendmsg(z.fd, b, unix.UnixRights(fds...), nil, 0)
	z.sendMu.Unlock()
	if err != nil {
		z.mu.Lock()
		delete(z.waiters, id)
		z.mu.Unlock()
		return Command{}, fmt.Errorf("send to the sandbox supervisor: %w", err)
	}
	select {
	case m := <-w.started:
		if m.Op == opFailed {
			return Command{}, errors.New(m.Error)
		}
		return Command{ID: id, Pid: m.Pid, Exited: w.exited}, nil
	case <-z.dead:
		return Command{}, ErrSupervisorGone
	}
}

// Signal sends sig to the process group of command id; SIGKILL also stops
// what it left behind.
func (z *Supervisor) Signal(id uint64, sig syscall.Signal) {
	b, _ := json.Marshal(zygoteMsg{Op: opSignal, ID: id, Signal: int(sig)})
	z.sendMu.Lock()
	unix.Sendmsg(z.fd, b, nil, nil, 0)
	z.sendMu.Unlock()
}

// Close stops the zygote, which kills every command it still runs, and waits
// for it. A zygote that does not leave in time is killed.
func (z *Supervisor) Close() {
	z.closed.Do(func() {
		z.closing.Store(true)
		unix.Shutdown(z.fd, unix.SHUT_RDWR)
		z.waitExited()
		// The zygote killed everything below it before leaving; anything that
		// still reached our caller (it was killed, or raced it) is stopped there.
		z.afterExit()
		if z.reading {
			<-z.dead
		}
		unix.Close(z.fd)
		if z.connects != nil {
			z.connects.Stop()
		}
		removeProcLimit(z.applied.ProcLimit)
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (z *Supervisor) afterExit() {
	if z.cfg.Exited != nil {
		z.cfg.Exited(z.cmd.Process.Pid)
	}
}

// waitExited waits until the zygote has exited and been waited for; one that
// is still there after 3 s is killed.
func (z *Supervisor) waitExited() {
	select {
	case <-z.exited:
	case <-time.After(3 * time.Second):
		z.cmd.Process.Kill()
		<-z.exited
	}
}

// removeProcLimit stops what is left in a process-bound cgroup and removes it.
func removeProcLimit(dir string) {
	if dir == "" {
		return
	}
	if err := RemoveProcLimit(dir); err != nil {
		slog.Warn("could not remove the process-bound cgroup", "dir", dir, "error", err)
	}
}

// receivedFDs are the descriptors an SCM_RIGHTS message carried.
func receivedFDs(oob []byte) []int {
	var fds []int
	cmsgs, _ := unix.ParseSocketControlMessage(oob)
	for i := range cmsgs {
		got, _ := unix.ParseUnixRights(&cmsgs[i])
		fds = append(fds, got...)
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// recvWithin receives one message on fd, waiting at most d: the child
// answers within milliseconds, and a child that hangs must not hang us. A
// receive with a timeout set on the socket is not restarted after a signal
// (the Go runtime's preemption, a child's SIGCHLD) but fails with EINTR, so
// it is tried again for the time left.
func recvWithin(fd int, buf, oob []byte, d time.Duration) (n, oobn int, err error) {
	defer unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{})
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return 0, 0, unix.EAGAIN
		}
		tv := unix.NsecToTimeval(left.Nanoseconds())
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		n, oobn, _, _, err = unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			return n, oobn, err
		}
	}
}
