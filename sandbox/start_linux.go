//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
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
// The process bound (spec.MaxProcs) is a pids cgroup that this process joins
// only for the fork, so the command starts in it, and leaves at once.
//
// cmd.Path is looked up from the restricted thread with cmd's PATH, the way a
// shell would. A *StartError says whether the sandbox could not be applied
// (nothing ran) or the command could not be started in it.
func Start(spec Spec, cmd *exec.Cmd) (a Applied, release func(), err error) {
	return StartIn(nil, spec, cmd)
}

// StartIn is Start with the network namespace netns (see NewNetNS), which
// the thread joins when spec.NetNS.
func StartIn(netns *os.File, spec Spec, cmd *exec.Cmd) (a Applied, release func(), err error) {
	fd := -1
	if netns != nil {
		fd = int(netns.Fd())
	}
	if spec.NetNS && fd < 0 {
		return a, func() {}, &StartError{"sandbox", fmt.Errorf("the spec joins a network namespace, and none was given")}
	}
	type started struct {
		a   Applied
		err error
	}
	done := make(chan started)
	stop := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		a, err := startLocked(spec, cmd, fd)
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
	if s.err != nil {
		return s.a, func() {}, s.err
	}
	return s.a, sync.OnceFunc(func() { close(stop) }), nil
}

// StartError is a failure of Start; Stage is "sandbox" when nothing ran, and
// "exec" when the sandbox was in force but the command could not be started.
type StartError struct {
	Stage string
	Err   error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

func startLocked(spec Spec, cmd *exec.Cmd, netns int) (Applied, error) {
	a, err := apply(spec, false, netns)
	if err != nil {
		return a, &StartError{"sandbox", err}
	}
	path, err := lookPath(cmd.Args[0], cmd.Env, cmd.Dir)
	if err != nil {
		return a, &StartError{"exec", fmt.Errorf("%s: %w", cmd.Args[0], err)}
	}
	cmd.Path = path
	if err := cmd.Start(); err != nil {
		return a, &StartError{"exec", err}
	}
	return a, nil
}

// moveOutOfProcLimit moves this process back to the cgroup above dir, leaving
// the command alone in dir.
func moveOutOfProcLimit(dir string) {
	os.WriteFile(filepath.Join(filepath.Dir(dir), "cgroup.procs"), []byte(fmt.Sprint(os.Getpid())), 0)
}
