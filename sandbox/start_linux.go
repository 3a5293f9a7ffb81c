//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/stockade/stockade/internal/kfile"
	"golang.org/x/sys/unix"
)

// Start applies spec to one thread of this process and starts cmd from that
// thread, so that the command inherits the sandbox without a second program
// (a re-executed stockade) being started for it. It is `stockade run`'s path.
//
// Every restriction apply makes for one thread belongs to the calling thread
// (no_new_privs, the capability sets, the mount namespace, the Landlock
// domain, the seccomp filter), and a child that thread clones inherits them
// all. The thread is locked for good and runs nothing else. It is kept until
// release is called, because a command's Pdeathsig fires when the thread that
// forked it ends; then it ends with its goroutine.
//
// With spec.PIDNamespace, the command is the second process of a PID
// namespace of its own, whose init dies with stockade and takes everything
// in the namespace with it (see pidns_linux.go). Applied.EndNamespace stops
// what the command left there; release stops it in any case.
//
// The process bound (spec.MaxProcs) is a pids cgroup that this process joins
// only for the fork, so the command starts in it, and leaves at once; release
// removes it (call it once the command and what it started are gone), and a
// failed Start removes it itself.
//
// cmd.Path is looked up from the restricted thread with cmd's PATH, the way a
// shell would. A *StartError says whether the sandbox could not be applied
// (nothing ran) or the command could not be started in it.
//
// The thread must not be the process's main thread: a signal to the process
// (kill(pid), kill(-1)) is checked against the main thread's Landlock domain,
// so a command could kill stockade from inside a sandbox that main thread is
// in. Start refuses to run there; a program that calls it locks its main
// goroutine to the main thread in an init function (see [MainThreadLocked]),
// so that no other goroutine is ever scheduled on it.
//
// netns is the network namespace to join when spec.NetNS (see NewNetNS).
func Start(spec Spec, cmd *exec.Cmd, netns *os.File) (a Applied, release func(), err error) {
	if spec.UserNS {
		return a, func() {}, &StartError{"sandbox", errors.New("a user namespace is made when the zygote is started, never by Start")}
	}
	if spec.NetNS {
		if netns == nil {
			return a, func() {}, &StartError{"sandbox", errors.New("the spec joins a network namespace, and none was given")}
		}
		spec.netnsFD = int(netns.Fd())
	}
	type started struct {
		a   Applied
		err error
	}
	done := make(chan started)
	stop := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		a, err := startLocked(spec, cmd)
		done <- started{a, err}
		if err == nil {
			<-stop
		}
	}()
	s := <-done
	if s.a.ProcLimit != "" {
		// This process was in the cgroup only so that the command would start
		// there. It leaves from this goroutine's thread: the restricted one
		// may no longer write to /sys/fs/cgroup.
		moveOutOfProcLimit(s.a.ProcLimit)
	}
	// The supervised filter's listener: its connect supervisor runs here,
	// on the threads the sandbox was not applied to.
	var connects *ConnectSupervisor
	if s.a.connects != nil && s.err == nil {
		if connects, err = SuperviseConnects(s.a.connects, spec); err != nil {
			s.err = &StartError{"sandbox", fmt.Errorf("connect supervisor: %w", err)}
			cmd.Process.Kill()
			cmd.Wait()
			close(stop)
		}
	} else if s.a.connects != nil {
		s.a.connects.Close()
	}
	s.a.connects = nil
	if s.err != nil {
		s.a.pidns.stop()
		s.a.PIDNamespace, s.a.pidns = false, nil
		removeProcLimit(s.a.ProcLimit)
		return s.a, func() {}, s.err
	}
	return s.a, sync.OnceFunc(func() {
		s.a.pidns.stop()
		close(stop)
		if connects != nil {
			connects.Stop()
		}
		removeProcLimit(s.a.ProcLimit)
	}), nil
}

// StartError is a failure of Start; Stage is "sandbox" when nothing ran, and
// "exec" when the sandbox was in force but the command could not be started.
type StartError struct {
	Stage string
	Err   error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// ExitStatus is a shell's status for a command that could not be started
// (stage "exec"): 127 when there is no such command, 126 when it cannot be
// executed.
func (e *StartError) ExitStatus() int {
	if errors.Is(e.Err, errNotFound) || errors.Is(e.Err, fs.ErrNotExist) {
		return 127
	}
	return 126
}

func startLocked(spec Spec, cmd *exec.Cmd) (Applied, error) {
	if syscall.Gettid() == syscall.Getpid() {
		return Applied{}, &StartError{"sandbox", errors.New("the sandbox would be applied to the process's main thread, which signals to the process are checked against; lock the main goroutine to it in an init function")}
	}
	// The command shares this thread's Landlock domain, so Landlock lets it
	// signal the thread (and so all of stockade) and read its /proc files and
	// memory. The filter refuses the signals; a process that is not dumpable
	// keeps the rest from anyone without CAP_SYS_PTRACE, which the command
	// has not.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return Applied{}, &StartError{"sandbox", fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err)}
	}
	spec.guardTID = syscall.Gettid()
	a, err := apply(spec, false)
	if err != nil {
		return a, &StartError{"sandbox", err}
	}
	path, err := lookPath(cmd.Args[0], cmd.Env, cmd.Dir)
	if err != nil {
		return a, &StartError{"exec", fmt.Errorf("%s: %w", cmd.Args[0], err)}
	}
	cmd.Path = path
	if a.pidns != nil && cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig != 0 {
		// Go's fork would kill the command at once: it takes a parent it
		// cannot see (getppid is 0 in a new PID namespace) for a dead one.
		// The namespace's init has the parent-death signal, and takes the
		// command with it.
		attr := *cmd.SysProcAttr
		attr.Pdeathsig = 0
		cmd.SysProcAttr = &attr
	}
	if err := cmd.Start(); err != nil {
		// Said as a shell says it: "./x: permission denied", not "fork/exec ./x: ...".
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", cmd.Args[0], pe.Err)
			probe := path
			if !filepath.IsAbs(probe) {
				probe = filepath.Join(cmd.Dir, probe)
			}
			if fi, serr := os.Stat(probe); serr == nil && fi.IsDir() {
				err = fmt.Errorf("%s: %w", cmd.Args[0], syscall.EISDIR)
			}
		}
		return a, &StartError{"exec", err}
	}
	return a, nil
}

// moveOutOfProcLimit moves this process back to the cgroup above dir, leaving
// the command alone in dir.
//
// The kernel may refuse the move for a moment while threads come and go (seen
// under load: stockade then stayed in the cgroup that RemoveProcLimit empties),
// so it tries again, for a second at most, until this process is out.
func moveOutOfProcLimit(dir string) {
	for range 1000 {
		kfile.Write(filepath.Join(filepath.Dir(dir), "cgroup.procs"), []byte(fmt.Sprint(os.Getpid())))
		if !holdsSelf(dir) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
