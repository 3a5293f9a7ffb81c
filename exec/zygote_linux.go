//go:build linux

package exec

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
	"github.com/stockade/stockade/sandbox"
	"golang.org/x/sys/unix"
)

// zygoteClient drives one sandboxed zygote: the re-executed stockade child that
// applied the session's sandbox once and now spawns each command on request.
type zygoteClient struct {
	cmd     *exec.Cmd
	net     *sessionNet // nil without a network namespace
	fd      int         // our end of the seqpacket socket
	applied sandbox.Applied

	sendMu  sync.Mutex
	mu      sync.Mutex
	waiters map[uint64]chan sandbox.ZygoteMsg
	nextID  atomic.Uint64

	dead    chan struct{} // closed when the zygote is gone and what it left is stopped
	exited  chan struct{} // closed when the zygote has been waited for
	deadErr error
	closing atomic.Bool
	closed  sync.Once
	reading bool
}

// selfExe is the binary re-executed as the sandboxed child.
const selfExe = "/proc/self/exe"

// startZygote starts the sandboxed child and waits until it reports that the
// sandbox is in force. stderr receives the child's own diagnostics.
func startZygote(spec sandbox.Spec, stderr io.Writer, egress func(net.Listener)) (*zygoteClient, error) {
	if spec.UserNS && spec.NetNS && egress != nil {
		spec.ProxyAddr = ProxyAddr // opened by the zygote, see handshake
	}
	snet, err := openSessionNet(spec, egress)
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		snet.close()
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	for _, fd := range fds {
		// Big enough for the largest packet; root may exceed the sysctl limits.
		if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, sandbox.MaxPacket) != nil {
			unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, sandbox.MaxPacket)
		}
		if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, sandbox.MaxPacket) != nil {
			unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, sandbox.MaxPacket)
		}
	}
	childEnd := os.NewFile(uintptr(fds[1]), "zygote-control")
	cmd := exec.Command(selfExe, sandbox.ChildArg, string(sandbox.ModeZygote))
	cmd.Args[0] = os.Args[0]
	cmd.Env = []string{}
	cmd.ExtraFiles = []*os.File{childEnd}
	if snet != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, nil, snet.ns) // at sandbox.NetNSFD
		cmd.Args = append(cmd.Args, sandbox.NetNSArg)
	}
	cmd.Stderr = stderr
	// SIGTERM when this process dies, however it dies: the zygote then kills
	// every process below it before it leaves (SIGKILL would leave them to
	// init). The fork checks for a parent already gone, and until the zygote
	// handles SIGTERM, SIGTERM kills it before it has started anything.
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if spec.UserNS {
		cmd.SysProcAttr = hostfacts.UserNSAttr(spec.NetNS)
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pdeathsig = true, syscall.SIGTERM
	err = startKnown(cmd)
	childEnd.Close()
	if err != nil {
		unix.Close(fds[0])
		snet.close()
		return nil, fmt.Errorf("start sandbox child: %w", err)
	}
	z := &zygoteClient{cmd: cmd, net: snet, fd: fds[0], waiters: map[uint64]chan sandbox.ZygoteMsg{},
		dead: make(chan struct{}), exited: make(chan struct{})}
	go func() { cmd.Wait(); close(z.exited) }()

	reply, err := z.handshake(spec)
	if err == nil && reply.Error != "" {
		err = &SandboxError{Stage: reply.Stage, Msg: reply.Error}
	}
	if err != nil {
		if reply.proxy != nil {
			reply.proxy.Close()
		}
		z.close()
		return nil, err
	}
	z.applied = *reply.Applied
	if reply.ProxyListener {
		z.net = &sessionNet{ln: reply.proxy}
		go egress(reply.proxy)
	}
	z.reading = true
	go z.readLoop()
	return z, nil
}

// zygoteReply is the zygote's first reply, with the egress proxy's listener
// it opened in its user namespace, if any.
type zygoteReply struct {
	sandbox.Reply
	proxy net.Listener
}

func (z *zygoteClient) handshake(spec sandbox.Spec) (zygoteReply, error) {
	var reply zygoteReply
	b, err := json.Marshal(sandbox.Request{Mode: sandbox.ModeZygote, Spec: spec})
	if err != nil {
		return reply, err
	}
	if err := unix.Sendmsg(z.fd, b, nil, nil, 0); err != nil {
		return reply, fmt.Errorf("send sandbox spec: %w", err)
	}
	// The child answers within milliseconds; a child that hangs must not hang us.
	unix.SetsockoptTimeval(z.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 10})
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(z.fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
	unix.SetsockoptTimeval(z.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{})
	if err != nil || n == 0 {
		return reply, fmt.Errorf("the sandbox child exited before reporting: %v", err)
	}
	fds := receivedFDs(oob[:oobn])
	if err := json.Unmarshal(buf[:n], &reply.Reply); err != nil {
		closeAll(fds)
		return reply, err
	}
	if reply.ProxyListener {
		if len(fds) != 1 {
			closeAll(fds)
			return reply, fmt.Errorf("the sandbox child sent %d descriptors with its reply, want the proxy listener", len(fds))
		}
		f := os.NewFile(uintptr(fds[0]), "egress-proxy")
		reply.proxy, err = net.FileListener(f)
		f.Close()
		if err != nil {
			return reply, fmt.Errorf("egress proxy listener: %w", err)
		}
	} else {
		closeAll(fds)
	}
	if reply.Error == "" && reply.Applied == nil {
		return reply, errors.New("the sandbox child sent an empty reply")
	}
	return reply, nil
}

func (z *zygoteClient) readLoop() {
	buf := make([]byte, 64<<10)
	for {
		n, _, _, _, err := unix.Recvmsg(z.fd, buf, nil, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			if !z.closing.Load() {
				// Killed from inside the sandbox: what it ran was reparented
				// to us, and is stopped before anyone is told it is gone.
				z.waitExited()
				knownChildren.Delete(z.cmd.Process.Pid)
				killStrays()
				removeProcLimit(z.applied.ProcLimit)
			}
			z.mu.Lock()
			z.deadErr = errSupervisorGone
			close(z.dead)
			z.mu.Unlock()
			return
		}
		var m sandbox.ZygoteMsg
		if json.Unmarshal(buf[:n], &m) != nil {
			continue
		}
		z.mu.Lock()
		ch := z.waiters[m.ID]
		if m.Op == sandbox.OpExited || m.Op == sandbox.OpFailed {
			delete(z.waiters, m.ID)
		}
		z.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// spawn starts argv in the sandbox with files as its descriptors 0 to 3. It
// returns the command's id and pid, and a channel that receives its "exited" message.
func (z *zygoteClient) spawn(argv, env []string, dir string, files [4]int) (uint64, int, <-chan sandbox.ZygoteMsg, error) {
	id := z.nextID.Add(1)
	b, err := json.Marshal(sandbox.ZygoteMsg{Op: sandbox.OpSpawn, ID: id, Argv: argv, Env: env, Dir: dir})
	if err != nil {
		return 0, 0, nil, err
	}
	if len(b) > sandbox.MaxPacket {
		return 0, 0, nil, fmt.Errorf("the command and its environment are %d bytes; at most %d fit", len(b), sandbox.MaxPacket)
	}
	ch := make(chan sandbox.ZygoteMsg, 2)
	z.mu.Lock()
	select {
	case <-z.dead:
		z.mu.Unlock()
		return 0, 0, nil, z.deadErr
	default:
	}
	z.waiters[id] = ch
	z.mu.Unlock()

	z.sendMu.Lock()
	err = unix.Sendmsg(z.fd, b, unix.UnixRights(files[:]...), nil, 0)
	z.sendMu.Unlock()
	if err != nil {
		z.mu.Lock()
		delete(z.waiters, id)
		z.mu.Unlock()
		return 0, 0, nil, fmt.Errorf("send to the sandbox supervisor: %w", err)
	}
	select {
	case m := <-ch:
		if m.Op == sandbox.OpFailed {
			return 0, 0, nil, errors.New(m.Error)
		}
		return id, m.Pid, ch, nil
	case <-z.dead:
		return 0, 0, nil, z.deadErr
	}
}

// signal sends sig to the process group of command id; SIGKILL also stops what
// it left behind.
func (z *zygoteClient) signal(id uint64, sig syscall.Signal) {
	b, _ := json.Marshal(sandbox.ZygoteMsg{Op: sandbox.OpSignal, ID: id, Signal: int(sig)})
	z.sendMu.Lock()
	unix.Sendmsg(z.fd, b, nil, nil, 0)
	z.sendMu.Unlock()
}

// close stops the zygote, which kills every command it still runs, and waits
// for it. A zygote that does not leave in time is killed.
func (z *zygoteClient) close() {
	z.closed.Do(func() {
		z.closing.Store(true)
		unix.Shutdown(z.fd, unix.SHUT_RDWR)
		z.waitExited()
		knownChildren.Delete(z.cmd.Process.Pid)
		// The zygote killed everything below it before leaving; anything that
		// still reached us (it was killed, or raced it) is stopped here.
		killStrays()
		if z.reading {
			<-z.dead
		}
		unix.Close(z.fd)
		z.net.close()
		removeProcLimit(z.applied.ProcLimit)
	})
}

// waitExited waits until the zygote has exited and been waited for; one that
// is still there after 3 s is killed.
func (z *zygoteClient) waitExited() {
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
	if err := sandbox.RemoveProcLimit(dir); err != nil {
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
