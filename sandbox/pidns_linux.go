//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/stockade/stockade/internal/proctree"
	"golang.org/x/sys/unix"
)

// A PID namespace for the command that Start forks from a thread (root's
// `stockade run`). Without it, when stockade is SIGKILLed, what the command
// detached (setsid and a fork, nohup and disown) is reparented to the host's
// init and runs on until a later start of stockade finds it. In a PID
// namespace nothing can leave: when the namespace's init dies, the kernel
// kills every other process in it at once.
//
// The init is this process forked, not a program executed (nothing is
// loaded), from the thread that will fork the command, after
// unshare(CLONE_NEWPID) and before the capabilities are dropped, Landlock
// and the filter applied (it is outside the command's Landlock domain, and
// not dumpable, so the command can neither trace nor signal it). It runs
// raw system calls only (forkInit): it
//
//   - sets every signal to its default, and SIGCHLD to ignored, so the
//     kernel reaps the orphans it is handed without it doing anything; every
//     signal stays blocked, and an init gets no signal from inside its
//     namespace that it has no handler for, SIGKILL included;
//   - takes SIGKILL as its parent-death signal: it dies when the thread that
//     forked it ends, or stockade, however stockade dies;
//   - closes every descriptor but a pipe whose write end only stockade holds,
//     and waits on it: it leaves at EOF too (stockade gone before its
//     parent-death signal was set);
//   - mounts a /proc of the namespace over /proc in the command's mount
//     namespace (read-only where the other mounts are), so that the pids the
//     shell prints and /proc agree, and the host's processes are out of sight;
//   - drops its capabilities.
//
// The command's shell is then forked by the thread as before: the
// namespace's second process, stockade's child, so its exit status, its
// process group and the signals stockade sends it are what they were. Go
// checks a parent-death signal in the child by comparing getppid with the
// parent's pid, which a child in a new PID namespace cannot see (it gets 0),
// so the command is started without one (see startLocked): the init's is
// the command's.

// pidNamespace is the init of the command's PID namespace, from stockade's
// side.
type pidNamespace struct {
	init int // its pid here
	hold int // the write end of the pipe it waits on
	once sync.Once
}

// initArgs is what the forked init needs, made ready before the fork: it
// may not allocate, grow its stack or take a lock, so it reads nothing but
// this, which lives in a mapping of its own (see newInitArgs).
type initArgs struct {
	procSource, procTarget [8]byte // "proc", "/proc"
	mountFlags             uintptr
	hold, ack              int        // pipe ends, moved to 0 and 1
	status                 uint32     // written to ack: 0, or the errno of step
	step                   uint32     // which step failed
	buf                    [1]byte    // read from hold
	dfl, ign               [4]uintptr // struct sigaction with SIG_DFL and SIG_IGN
	all, old               uint64     // signal masks
	capHdr                 unix.CapUserHeader
	capData                [2]unix.CapUserData
	// The writable private mappings of this process, which the init is
	// not given (MADV_DONTFORK around the fork) but for the pages it runs
	// on: every page stockade writes after a fork that shares it costs a
	// copy and a TLB shootdown on every CPU stockade ran on (seen on a VM:
	// 64 ms of CPU for `stockade run -- true` instead of 50). Empty where
	// initKeepsMaps.
	nmaps uintptr
	maps  [maxInitMaps][2]uintptr
}

// maxInitMaps bounds the mappings kept from the init; more are shared
// with it (copy on write), which only costs time.
const maxInitMaps = 192

// newInitArgs maps a private page of its own for the init's arguments, and
// lists the mappings the init can do without.
func newInitArgs() (*initArgs, []byte, error) {
	size := (int(unsafe.Sizeof(initArgs{})) + 4095) &^ 4095
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap: %w", err)
	}
	a := (*initArgs)(unsafe.Pointer(&mem[0]))
	copy(a.procSource[:], "proc\x00")
	copy(a.procTarget[:], "/proc\x00")
	if initKeepsMaps {
		return a, mem, nil
	}
	b, _ := os.ReadFile("/proc/self/maps")
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[1] != "rw-p" || a.nmaps == maxInitMaps {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		l, err1 := strconv.ParseUint(lo, 16, 64)
		h, err2 := strconv.ParseUint(hi, 16, 64)
		if ok && err1 == nil && err2 == nil {
			a.maps[a.nmaps] = [2]uintptr{uintptr(l), uintptr(h)}
			a.nmaps++
		}
	}
	return a, mem, nil
}

// Steps of the init that can fail, for the error message.
const (
	initStepFDs = iota + 1
	initStepPdeathsig
	initStepMount
	initStepCaps
)

// newPIDNamespace gives the processes that the calling thread forks from now
// on a PID namespace of their own, and starts its init. The thread must be
// locked, hold CAP_SYS_ADMIN, and be in a mount namespace of its own whose
// mounts are private (ownMountNS); otherwise it is given one. readOnlyProc
// mounts the namespace's /proc read-only.
//
// An error that wraps errNoPIDNS left the thread as it was (but perhaps in a
// mount namespace of its own): the command may run without the namespace.
func newPIDNamespace(ownMountNS, readOnlyProc bool) (*pidNamespace, error) {
	if !ownMountNS {
		// fs "off", or read-only mounts the host refused: the /proc mount
		// must not reach the host's mount namespace.
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			return nil, fmt.Errorf("%w: unshare(CLONE_NEWNS): %w", errNoPIDNS, err)
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			return nil, fmt.Errorf("%w: making the mounts private: %w", errNoPIDNS, err)
		}
	}
	// The thread's own PID namespace, to go back to if the init fails.
	own, err := unix.Open("/proc/thread-self/ns/pid", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoPIDNS, err)
	}
	defer unix.Close(own)
	if err := unix.Unshare(unix.CLONE_NEWPID); err != nil {
		return nil, fmt.Errorf("%w: unshare(CLONE_NEWPID): %w", errNoPIDNS, err)
	}
	ns, err := startInit(readOnlyProc)
	if err != nil {
		// The namespace has no init: nothing could be forked into it.
		if serr := unix.Setns(own, unix.CLONE_NEWPID); serr != nil {
			return nil, fmt.Errorf("pid namespace: %w; and going back: %w", err, serr)
		}
		return nil, fmt.Errorf("%w: %w", errNoPIDNS, err)
	}
	return ns, nil
}

// errNoPIDNS is newPIDNamespace failing with the thread as it was.
var errNoPIDNS = errors.New("no pid namespace")

// startInit forks the init and waits until it is ready.
func startInit(readOnlyProc bool) (*pidNamespace, error) {
	var hold, ack [2]int
	if err := unix.Pipe2(hold[:], unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	if err := unix.Pipe2(ack[:], unix.O_CLOEXEC); err != nil {
		unix.Close(hold[0])
		unix.Close(hold[1])
		return nil, err
	}
	a, mem, err := newInitArgs()
	if err != nil {
		for _, fd := range append(hold[:], ack[:]...) {
			unix.Close(fd)
		}
		return nil, err
	}
	defer unix.Munmap(mem) // the init has a copy
	a.hold, a.ack, a.all = hold[0], ack[1], ^uint64(0)
	a.mountFlags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if readOnlyProc {
		a.mountFlags |= unix.MS_RDONLY
	}
	a.ign[0] = 1 // SIG_IGN
	a.capHdr.Version = unix.LINUX_CAPABILITY_VERSION_3

	pid, errno := forkInit(a)
	unix.Close(hold[0])
	unix.Close(ack[1])
	if errno != 0 {
		unix.Close(hold[1])
		unix.Close(ack[0])
		return nil, fmt.Errorf("fork: %w", errno)
	}
	ns := &pidNamespace{init: int(pid), hold: hold[1]}
	var reply [8]byte
	n, err := unix.Read(ack[0], reply[:])
	unix.Close(ack[0])
	if err == nil && n == 8 && *(*uint32)(unsafe.Pointer(&reply[0])) == 0 {
		return ns, nil
	}
	ns.stop()
	if err == nil && n == 8 {
		steps := map[uint32]string{initStepFDs: "closing descriptors", initStepPdeathsig: "parent-death signal",
			initStepMount: "mounting /proc", initStepCaps: "dropping capabilities"}
		err = fmt.Errorf("the namespace's init, %s: %w", steps[*(*uint32)(unsafe.Pointer(&reply[4]))],
			syscall.Errno(*(*uint32)(unsafe.Pointer(&reply[0]))))
	} else if err == nil {
		err = errors.New("the namespace's init died before it was ready")
	}
	return nil, err
}

// forkInit forks this process and returns the child's pid; the child becomes
// the init described above and never returns. Every signal is blocked
// around the fork, so that the child never runs a Go signal handler.
//
// Between the fork and the init's end, the child runs this function alone:
// no allocation, no stack growth (nosplit), no race instrumentation, only
// raw system calls on memory a points to.
//
//go:nosplit
//go:norace
//go:nocheckptr
func forkInit(a *initArgs) (uintptr, syscall.Errno) {
	syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&a.all)), uintptr(unsafe.Pointer(&a.old)), 8, 0, 0)
	// The pages the child runs on: this frame and the few below it (this
	// function is nosplit: the stack cannot move under it), and a's.
	var here byte
	sp := uintptr(unsafe.Pointer(&here)) &^ 4095
	stackLo, stackHi := sp-4*4096, sp+2*4096
	argsLo := uintptr(unsafe.Pointer(a)) &^ 4095
	argsHi := argsLo + (unsafe.Sizeof(*a)+4095)&^4095
	for i := uintptr(0); i < a.nmaps && i < maxInitMaps; i++ {
		adviseAround(a.maps[i][0], a.maps[i][1], stackLo, stackHi, argsLo, argsHi, unix.MADV_DONTFORK)
	}
	pid, _, errno := syscall.RawSyscall6(unix.SYS_CLONE, uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
	if pid != 0 || errno != 0 {
		for i := uintptr(0); i < a.nmaps && i < maxInitMaps; i++ {
			adviseAround(a.maps[i][0], a.maps[i][1], stackLo, stackHi, argsLo, argsHi, unix.MADV_DOFORK)
		}
		syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&a.old)), 0, 8, 0, 0)
		return pid, errno
	}

	// The init. Descriptors first: the pipe ends to 0 and 1, nothing else.
	for sig := uintptr(1); sig <= 64; sig++ {
		act := uintptr(unsafe.Pointer(&a.dfl))
		if sig == uintptr(unix.SIGCHLD) {
			act = uintptr(unsafe.Pointer(&a.ign))
		}
		syscall.RawSyscall6(unix.SYS_RT_SIGACTION, sig, act, 0, 8, 0, 0) // EINVAL for SIGKILL and SIGSTOP
	}
	if _, _, e := syscall.RawSyscall(unix.SYS_DUP3, uintptr(a.hold), 0, 0); e != 0 {
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, 1, 0, 0)
	}
	if _, _, e := syscall.RawSyscall(unix.SYS_DUP3, uintptr(a.ack), 1, 0); e != 0 {
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, 1, 0, 0)
	}
	a.step = initStepFDs
	_, _, errno = syscall.RawSyscall(unix.SYS_CLOSE_RANGE, 2, ^uintptr(0), 0)
	if errno == 0 {
		a.step = initStepPdeathsig
		_, _, errno = syscall.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0, 0)
	}
	if errno == 0 {
		a.step = initStepMount
		_, _, errno = syscall.RawSyscall6(unix.SYS_MOUNT, uintptr(unsafe.Pointer(&a.procSource[0])), uintptr(unsafe.Pointer(&a.procTarget[0])),
			uintptr(unsafe.Pointer(&a.procSource[0])), a.mountFlags, 0, 0)
	}
	if errno == 0 {
		a.step = initStepCaps
		_, _, errno = syscall.RawSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&a.capHdr)), uintptr(unsafe.Pointer(&a.capData[0])), 0)
	}
	a.status = uint32(errno)
	syscall.RawSyscall(unix.SYS_WRITE, 1, uintptr(unsafe.Pointer(&a.status)), 8) // status and step
	syscall.RawSyscall(unix.SYS_CLOSE, 1, 0, 0)
	if errno == 0 {
		// Until stockade writes, or is gone.
		syscall.RawSyscall(unix.SYS_READ, 0, uintptr(unsafe.Pointer(&a.buf[0])), 1)
	}
	syscall.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
	return 0, 0 // not reached
}

// adviseAround gives advice to the pages of [lo, hi) outside the windows
// [w1lo, w1hi) and [w2lo, w2hi); errors (a mapping gone meanwhile) are
// ignored.
//
//go:nosplit
//go:norace
func adviseAround(lo, hi, w1lo, w1hi, w2lo, w2hi, advice uintptr) {
	if w2lo < w1lo {
		w1lo, w1hi, w2lo, w2hi = w2lo, w2hi, w1lo, w1hi
	}
	cur := lo
	if w1lo < hi && w1hi > cur {
		if w1lo > cur {
			syscall.RawSyscall(unix.SYS_MADVISE, cur, w1lo-cur, advice)
		}
		cur = w1hi
	}
	if w2lo < hi && w2hi > cur {
		if w2lo > cur {
			syscall.RawSyscall(unix.SYS_MADVISE, cur, w2lo-cur, advice)
		}
		cur = w2hi
	}
	if cur < hi {
		syscall.RawSyscall(unix.SYS_MADVISE, cur, hi-cur, advice)
	}
}

// stop kills the init, and so every process of the namespace, and waits
// until they are gone (the kernel lets an init exit only after every other
// process of its namespace), for 5 seconds at most.
func (ns *pidNamespace) stop() {
	if ns == nil {
		return
	}
	ns.once.Do(func() {
		unix.Kill(ns.init, unix.SIGKILL)
		unix.Close(ns.hold)
		reaped := make(chan struct{})
		go func() {
			var ws unix.WaitStatus
			for {
				if _, err := unix.Wait4(ns.init, &ws, 0, nil); err != unix.EINTR {
					break
				}
			}
			close(reaped)
		}()
		select {
		case <-reaped:
		case <-time.After(5 * time.Second):
		}
	})
}

// end stops the namespace (see stop) and returns how many processes were
// in it besides its init.
func (ns *pidNamespace) end() int {
	if ns == nil {
		return 0
	}
	n := 0
	if children, ok := proctree.DirectChildren(ns.init); !ok || len(children) > 0 {
		n = len(proctree.Subtree(proctree.Table(), ns.init)) - 1
	}
	ns.stop()
	return max(n, 0)
}

// NamespaceInit is the pid of the init of the command's PID namespace
// (Applied.PIDNamespace), 0 without one: a child of this process that Start
// forked, which a subreaper must not take for one the command left.
func (a Applied) NamespaceInit() int {
	if a.pidns == nil {
		return 0
	}
	return a.pidns.init
}

// EndNamespace kills every process of the command's PID namespace at once,
// waits until they are gone, and returns how many there were (its init not
// counted); without a namespace it does nothing. Call it once the command's
// shell has exited: what is left then was left behind.
func (a Applied) EndNamespace() int { return a.pidns.end() }

// A session's PID namespace. StartSupervisor clones the zygote into a PID
// namespace and a mount namespace of its own (Spec.PIDNamespace), so the
// zygote is the namespace's init, and every command it forks, with all they
// start, is in the namespace: when the zygote dies, however it dies (the
// OOM killer, SIGKILL of the server with it), the kernel kills them all at
// once. Its commands are forked as before (no raw init is needed: the
// zygote is a process of its own, not a thread of stockade), they keep
// their parent-death signal (their parent is in their namespace), and the
// zygote, a child subreaper before, is now their reaper as the init. Every
// pid the zygote handles (its own, its commands', what it reads in /proc)
// is the namespace's: mountSessionProc mounts the namespace's /proc before
// anything reads it. The server sees the zygote by its host pid only, and
// passes the pids the zygote reports (a task's) on to the client, which
// uses them in the session's commands, where they are right.

// stageNoPIDNS is the stage of a zygote that could not set its PID
// namespace up; StartSupervisor then starts one without (errNoPIDNS).
const stageNoPIDNS = "pid namespace"

// mountSessionProc mounts the /proc of the zygote's PID namespace over
// /proc, in the zygote's own mount namespace, made private first so that
// the mount does not reach the host's. The read-only mounts then make it
// read-only for the commands with the rest.
func mountSessionProc() error {
	if os.Getpid() != 1 {
		return fmt.Errorf("the zygote is pid %d, not the init of a pid namespace", os.Getpid())
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting the namespace's /proc: %w", err)
	}
	return nil
}

// exitedChild forks a child that exits at once, and returns its pid: a
// zombie until reapChild, which keeps its pid and its (unrestricted)
// credentials, for a probe to signal.
func exitedChild() (int, error) {
	mask := &[2]uint64{^uint64(0), 0}
	pid, errno := forkExit(mask)
	if errno != 0 {
		return 0, fmt.Errorf("fork: %w", errno)
	}
	return int(pid), nil
}

// forkExit forks this process; the child exits at once. Every signal is
// blocked around the fork (mask[0]; mask[1] keeps the old mask), so that
// the child never runs a Go signal handler; it runs nothing but exit_group.
//
//go:nosplit
//go:norace
//go:nocheckptr
func forkExit(mask *[2]uint64) (uintptr, syscall.Errno) {
	syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&mask[0])), uintptr(unsafe.Pointer(&mask[1])), 8, 0, 0)
	pid, _, errno := syscall.RawSyscall6(unix.SYS_CLONE, uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
	if pid == 0 && errno == 0 {
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
	}
	syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&mask[1])), 0, 8, 0, 0)
	return pid, errno
}

// reapChild waits for the child pid.
func reapChild(pid int) {
	var ws unix.WaitStatus
	for {
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
			return
		}
	}
}
