//go:build linux

package supervise

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"

	"github.com/stockade/stockade/sandbox"
	"golang.org/x/sys/unix"
)

// zygoteSpawner keeps one zygote (a sandbox.Supervisor) per session, and
// starts a new one when a command killed the previous one.
type zygoteSpawner struct {
	spec   sandbox.Spec
	stderr io.Writer
	egress func(net.Listener)
	mu     sync.Mutex
	z      *zygote
}

// zygote is one sandbox supervisor and the network namespace it was started in.
type zygote struct {
	*sandbox.Supervisor
	net *sessionNet // nil without a network namespace
}

func newSpawner(spec sandbox.Spec, stderr io.Writer, egress func(net.Listener)) (spawner, error) {
	becomeSubreaper()
	s := &zygoteSpawner{spec: spec, stderr: stderr, egress: egress}
	z, err := s.start()
	if err != nil {
		return nil, err
	}
	s.z = z
	return s, nil
}

// start starts a zygote, in a network namespace of its own when the spec
// asks for one. This process is the subreaper of its commands: the zygote is
// one of its known children, and what the zygote's commands leave when it
// dies is stopped.
func (s *zygoteSpawner) start() (*zygote, error) {
	spec := s.spec
	if spec.UserNS && spec.NetNS && s.egress != nil {
		spec.ProxyAddr = ProxyAddr // opened by the zygote in its namespace
	}
	snet, err := openSessionNet(spec, s.egress)
	if err != nil {
		return nil, err
	}
	cfg := sandbox.SupervisorConfig{Stderr: s.stderr, Start: startKnown,
		Exited: func(pid int) { knownChildren.Delete(pid); killStrays() }}
	if snet != nil {
		cfg.NetNS = snet.ns
	}
	sup, err := sandbox.StartSupervisor(spec, cfg)
	if err != nil {
		snet.close()
		var se *sandbox.StartError
		if errors.As(err, &se) {
			return nil, &SandboxError{Stage: se.Stage, Msg: se.Err.Error()}
		}
		return nil, err
	}
	if ln := sup.ProxyListener(); ln != nil {
		snet = &sessionNet{ln: ln}
		go s.egress(ln)
	}
	return &zygote{Supervisor: sup, net: snet}, nil
}

func (z *zygote) close() {
	z.Close()
	z.net.close()
}

func (s *zygoteSpawner) current() (*zygote, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.z.Done():
		s.z.close()
		z, err := s.start()
		if err != nil {
			return nil, err
		}
		s.z = z
	default:
	}
	return s.z, nil
}

// canPrepare: the zygote passes a spawn extra descriptors, so a session
// can keep a shell prepared for its next command (prepared.go).
const canPrepare = true

func (s *zygoteSpawner) spawn(argv, env []string, dir string, files [4]*os.File, extra ...*os.File) (sandbox.Command, error) {
	z, err := s.current()
	if err != nil {
		return sandbox.Command{}, err
	}
	return z.Spawn(argv, env, dir, files, extra...)
}

func (s *zygoteSpawner) signal(id uint64, sig syscall.Signal) {
	s.mu.Lock()
	z := s.z
	s.mu.Unlock()
	z.Signal(id, sig)
}

func (s *zygoteSpawner) applied() sandbox.Applied {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.z.Applied()
}

func (s *zygoteSpawner) gone() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.z.Done()
}

func (s *zygoteSpawner) close() {
	s.mu.Lock()
	z := s.z
	s.mu.Unlock()
	z.close()
}

// growPipe makes a pipe hold 1 MiB, so a command that streams output is not
// woken for every 64 KiB.
func growPipe(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
	}
}

// scriptChannel makes the channel a prepared shell reads its script from:
// a socket pair, not a pipe, because no other process can open a socket
// through /proc/PID/fd (a pipe can be opened there, for writing, by any
// process of the user in the sandbox). max is the longest script one write
// hands over without waiting for the reader.
func scriptChannel() (shell, ours *os.File, max int, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, 0, err
	}
	unix.Shutdown(fds[0], unix.SHUT_WR)
	unix.Shutdown(fds[1], unix.SHUT_RD)
	unix.SetsockoptInt(fds[1], unix.SOL_SOCKET, unix.SO_SNDBUF, 256<<10)
	buf, _ := unix.GetsockoptInt(fds[1], unix.SOL_SOCKET, unix.SO_SNDBUF)
	// A write may take up to half the buffer in one piece, and its
	// overhead counts too.
	return os.NewFile(uintptr(fds[0]), "script"), os.NewFile(uintptr(fds[1]), "script"), buf / 4, nil
}
