//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/stockade/stockade/internal/proctree"
	"golang.org/x/sys/unix"
)

// zygote is the state of the zygote loop. Everything runs on the main goroutine,
// locked to its thread, except the sandbox's setup and what reaches the
// commands themselves, their forks and signals (see forkThread).
type zygote struct {
	sock    int
	running map[uint64]int // id -> pid (= pgid) of running commands
	byPid   map[int]uint64
	fork    forkThread
}

// forkThread runs the functions sent to it on a thread of their own, locked
// for the zygote's lifetime. The sandbox is applied there (the namespaces it
// enters and the mounts it makes belong to that thread, see Apply), commands
// are forked from it, and the parent-death signal of each refers to it. It
// also sends every signal to them: the zygote's other threads may each have a
// Landlock domain of their own (where the kernel has no TSYNC, go-landlock
// restricts each thread in turn), and signals go only down a domain's line.
//
// Its Landlock domain is then nested in the rest of the zygote's
// (nestScopes), so a command may not signal the zygote, which would stop or
// end its whole session; only this thread shares the command's domain, and
// the filter refuses signals to it (Spec.guardTID).
type forkThread chan func()

func newForkThread() forkThread {
	f := make(forkThread)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the zygote
		for fn := range f {
			fn()
		}
	}()
	return f
}

// do runs fn on the fork thread and returns when it is done.
func (f forkThread) do(fn func()) {
	done := make(chan struct{})
	f <- func() { fn(); close(done) }
	<-done
}

func zygoteMain() int {
	runtime.LockOSThread()
	z := &zygote{sock: controlFD, running: map[uint64]int{}, byPid: map[int]uint64{}}
	unix.CloseOnExec(z.sock)
	// The parent-death signal (see StartSupervisor): the parent is gone.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)

	buf := packetBuffer()
	n, _, _, _, err := unix.Recvmsg(z.sock, buf, nil, 0)
	var req request
	if err == nil {
		err = json.Unmarshal(buf[:n], &req)
	}
	if err != nil || req.Mode != modeZygote {
		z.reply(reply{Error: fmt.Sprintf("bad request: %v", err), Stage: "request"})
		return exitSetupFailed
	}
	if err := checkNetNSFD(req.Spec); err != nil {
		z.reply(reply{Error: err.Error(), Stage: "request"})
		return exitSetupFailed
	}
	req.Spec.netnsFD = childNetNSFD
	if req.Spec.PIDNamespace {
		// Before anything reads /proc: from here on it shows this
		// namespace's processes, with the pids this process sees.
		if err := mountSessionProc(); err != nil {
			z.reply(reply{Error: err.Error(), Stage: stageNoPIDNS})
			return exitSetupFailed
		}
	}
	// Orphans of commands are reparented here, so they can be found and stopped;
	// and nothing in the sandbox may ptrace or read the memory of the zygote.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		z.reply(reply{Error: "subreaper: " + err.Error(), Stage: "sandbox"})
		return exitSetupFailed
	}
	z.fork = newForkThread()
	var applied Applied
	proxy := -1
	z.fork.do(func() {
		req.Spec.guardTID = unix.Gettid()
		if applied, err = Apply(req.Spec); err != nil {
			return
		}
		if req.Spec.ProxyAddr != "" {
			// In the namespace, on its loopback, now up; close-on-exec.
			if proxy, err = listenProxy(req.Spec.ProxyAddr); err != nil {
				return
			}
		}
		if err = nestScopes(req.Spec); err != nil {
			err = fmt.Errorf("nested landlock domain: %w", err)
		}
	})
	if req.Spec.NetNS && !req.Spec.UserNS {
		unix.Close(childNetNSFD) // joined: no command may inherit it
	}
	if err != nil {
		z.reply(reply{Error: err.Error(), Stage: "sandbox"})
		return exitSetupFailed
	}
	// Not dumpable: a command cannot ptrace the zygote or reach its other
	// threads through /proc/PID/task/*/root, which, outside the command's
	// mount namespace, see the host's writable mounts.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		z.reply(reply{Error: "prctl(PR_SET_DUMPABLE): " + err.Error(), Stage: "sandbox"})
		return exitSetupFailed
	}
	applied.PIDNamespace = req.Spec.PIDNamespace
	r := reply{Applied: &applied}
	var fds []int
	if proxy >= 0 {
		r.ProxyListener, fds = true, append(fds, proxy)
	}
	if applied.connects != nil {
		// The supervisor runs in the parent; no command may inherit it.
		r.ConnectListener, fds = true, append(fds, int(applied.connects.Fd()))
	}
	if len(fds) > 0 {
		b, _ := json.Marshal(r)
		unix.Sendmsg(z.sock, b, unix.UnixRights(fds...), nil, 0)
		if proxy >= 0 {
			unix.Close(proxy)
		}
		if applied.connects != nil {
			applied.connects.Close()
		}
	} else {
		z.reply(r)
	}

	sigchld := make(chan os.Signal, 1)
	signal.Notify(sigchld, syscall.SIGCHLD)
	type packet struct {
		msg zygoteMsg
		fds []int
		err error
	}
	packets := make(chan packet)
	idle, _ := idleRelease()
	go func() {
		oob := make([]byte, unix.CmsgSpace(4*8))
		for {
			n, oobn, _, _, err := unix.Recvmsg(z.sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
			if err == nil && n == 0 {
				err = fmt.Errorf("parent closed the control socket")
			}
			if err != nil {
				packets <- packet{err: err}
				return
			}
			var p packet
			p.err = json.Unmarshal(buf[:n], &p.msg)
			if cmsgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for i := range cmsgs {
					fds, _ := unix.ParseUnixRights(&cmsgs[i])
					p.fds = append(p.fds, fds...)
				}
			}
			packets <- p
		}
	}()
	for {
		select {
		case p := <-packets:
			if p.err != nil {
				// The parent is gone: stop everything and leave.
				z.killAll()
				return 0
			}
			z.handle(p.msg, p.fds)
		case <-sigchld:
			z.reap()
		case <-term:
			z.killAll()
			return 0
		}
		idle(len(z.running) > 0)
	}
}

func (z *zygote) reply(r reply) {
	b, _ := json.Marshal(r)
	unix.Sendmsg(z.sock, b, nil, nil, 0)
}

func (z *zygote) send(m zygoteMsg) {
	b, _ := json.Marshal(m)
	unix.Sendmsg(z.sock, b, nil, nil, 0)
}

func (z *zygote) handle(m zygoteMsg, fds []int) {
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	switch m.Op {
	case opSpawn:
		if len(fds) < 4 || len(fds) > 4+maxExtraFiles || len(m.Argv) == 0 {
			z.send(zygoteMsg{Op: opFailed, ID: m.ID, Error: fmt.Sprintf("bad spawn request (%d descriptors)", len(fds))})
			return
		}
		env := append(m.Env[:len(m.Env):len(m.Env)], TaskEnv+"="+strconv.FormatUint(m.ID, 10))
		files := make([]uintptr, len(fds))
		for i, fd := range fds {
			files[i] = uintptr(fd)
		}
		var pid int
		var err error
		z.fork.do(func() { // in the commands' mount namespace
			var path string
			if path, err = lookPath(m.Argv[0], m.Env, m.Dir); err != nil {
				return
			}
			pid, err = syscall.ForkExec(path, m.Argv, &syscall.ProcAttr{
				Dir:   m.Dir,
				Env:   env,
				Files: files,
				Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
			})
		})
		if err != nil {
			z.send(zygoteMsg{Op: opFailed, ID: m.ID, Error: fmt.Sprintf("%s: %v", m.Argv[0], err)})
			return
		}
		z.running[m.ID] = pid
		z.byPid[pid] = m.ID
		z.send(zygoteMsg{Op: opStarted, ID: m.ID, Pid: pid})
	case opSignal:
		pid, ok := z.running[m.ID]
		if !ok {
			return
		}
		if m.Signal == int(unix.SIGKILL) {
			// The whole tree, not only the group: a setsid child of a shell
			// that is still dying is not an orphan yet.
			z.killTrees(func(table map[int]proctree.Proc) []int { return proctree.Subtree(table, pid) })
			z.killLeftovers(m.ID, pid)
			return
		}
		z.fork.do(func() { unix.Kill(-pid, syscall.Signal(m.Signal)) })
	}
}

// reap collects every exited child. A command's shell is looked at before it is
// reaped (WNOWAIT), so its pid, which is also its process group id, cannot be
// reused while the group is being killed.
func (z *zygote) reap() {
	for {
		var info unix.Siginfo
		if err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil {
			return
		}
		pid := int(siginfoPid(&info))
		if pid == 0 {
			return
		}
		id, tracked := z.byPid[pid]
		leftovers := 0
		if tracked {
			delete(z.running, id)
			delete(z.byPid, pid)
			leftovers = z.killLeftovers(id, pid)
		}
		var ws unix.WaitStatus
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil {
			return
		}
		if tracked {
			z.send(zygoteMsg{Op: opExited, ID: id, Status: int(ws), Leftovers: leftovers})
		}
	}
}

// killLeftovers kills, with all their descendants, the rest of process group
// pgid (0: none) and the processes reparented to the zygote that do not belong
// to a running command other than id. It returns how many processes it killed.
func (z *zygote) killLeftovers(id uint64, pgid int) int {
	self := os.Getpid()
	if z.nothingLeft(self, pgid) {
		return 0
	}
	return z.killTrees(func(table map[int]proctree.Proc) []int {
		var victims []int
		if pgid > 0 {
			for _, pid := range proctree.Group(table, pgid) {
				victims = append(victims, proctree.Subtree(table, pid)...)
			}
		}
		for _, pid := range proctree.Children(table, self) {
			if _, shell := z.byPid[pid]; shell {
				continue
			}
			if owner := taskOf(pid); owner != 0 && owner != id {
				if _, alive := z.running[owner]; alive {
					continue
				}
			}
			victims = append(victims, proctree.Subtree(table, pid)...)
		}
		return victims
	})
}

// killAll kills every process below the zygote, running shells included; it is
// how a session ends.
func (z *zygote) killAll() {
	self := os.Getpid()
	z.killTrees(func(table map[int]proctree.Proc) []int {
		var all []int
		for _, child := range proctree.Children(table, self) {
			all = append(all, proctree.Subtree(table, child)...)
		}
		return all
	})
}

// killTrees kills what victims picks, until nothing it picks is alive. A
// killed process is not gone at once: the pause lets the next look see only
// what is still alive or was just forked.
func (z *zygote) killTrees(victims func(map[int]proctree.Proc) []int) (n int) {
	z.fork.do(func() { n = proctree.Kill(victims, func() { time.Sleep(time.Millisecond) }) })
	return n
}

// nothingLeft is the fast path after a command's shell exited: every process a
// command starts stays below the zygote (a child subreaper), so when the
// zygote's only children are running shells and the shell that just exited,
// nothing was left behind and the whole process table need not be read.
//
// Any other child, even a zombie, sends the caller to the table: a process
// seen alive here and dead a moment later hands its children to the zygote
// after this look, and they would be missed.
func (z *zygote) nothingLeft(self, exited int) bool {
	children, ok := proctree.DirectChildren(self)
	if !ok {
		return false
	}
	for _, pid := range children {
		if _, shell := z.byPid[pid]; !shell && pid != exited {
			return false
		}
	}
	return true
}

// taskOf reads which command a process belongs to; 0 when it cannot tell.
func taskOf(pid int) uint64 {
	v, _ := proctree.Environ(pid, TaskEnv)
	id, _ := strconv.ParseUint(v, 10, 64)
	return id
}

// siginfoPid reads si_pid from a siginfo filled by waitid.
func siginfoPid(info *unix.Siginfo) int32 {
	// si_pid follows si_signo, si_errno, si_code and, on 64-bit, padding that
	// aligns the union to 8 bytes.
	off := 12
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	return *(*int32)(unsafe.Add(unsafe.Pointer(info), off))
}
