//go:build linux

package supervise

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"

	"github.com/stockade/stockade/sandbox"
	"golang.org/x/sys/unix"
)

// zygoteSpawner keeps one zygote per session, and starts a new one when a
// command killed the previous one.
type zygoteSpawner struct {
	spec   sandbox.Spec
	stderr io.Writer
	egress func(net.Listener)
	mu     sync.Mutex
	z      *zygoteClient
}

func newSpawner(spec sandbox.Spec, stderr io.Writer, egress func(net.Listener)) (spawner, error) {
	becomeSubreaper()
	z, err := startZygote(spec, stderr, egress)
	if err != nil {
		return nil, err
	}
	return &zygoteSpawner{spec: spec, stderr: stderr, egress: egress, z: z}, nil
}

func (s *zygoteSpawner) current() (*zygoteClient, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.z.dead:
		s.z.close()
		z, err := startZygote(s.spec, s.stderr, s.egress)
		if err != nil {
			return nil, err
		}
		s.z = z
	default:
	}
	return s.z, nil
}

func (s *zygoteSpawner) spawn(argv, env []string, dir string, files [4]*os.File) (uint64, int, <-chan sandbox.ZygoteMsg, error) {
	z, err := s.current()
	if err != nil {
		return 0, 0, nil, err
	}
	var fds [4]int
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	return z.spawn(argv, env, dir, fds)
}

func (s *zygoteSpawner) signal(id uint64, sig syscall.Signal) {
	s.mu.Lock()
	z := s.z
	s.mu.Unlock()
	z.signal(id, sig)
}

func (s *zygoteSpawner) applied() sandbox.Applied {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.z.applied
}

func (s *zygoteSpawner) gone() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.z.dead
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
