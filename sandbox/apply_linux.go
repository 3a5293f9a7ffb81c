//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/stockade/stockade/hostfacts"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Apply puts spec in force for this process and every process it will start, and
// reports what is really in force afterwards. It must be called before the process
// starts anything else, and it cannot be undone.
//
// The steps, in order:
//
//  1. the process bound (MaxProcs): a pids cgroup of its own, joined while the
//     child may still write to /sys/fs/cgroup;
//  2. no_new_privs on every thread;
//  3. the Landlock ruleset is built: paths are opened while the child still has
//     the capabilities to reach them;
//  4. read-only mounts (read-only and workspace-write, when the child has
//     CAP_SYS_ADMIN: as root, or in a user namespace, see userns_linux.go):
//     the calling thread gets a private mount namespace in which every mount
//     outside the writable roots is read-only, see mounts_linux.go;
//  5. an IPC namespace (IPCNamespace), on the calling thread as well; for
//     Start only, a PID namespace (PIDNamespace) and its init, which mounts
//     the namespace's /proc over /proc (see pidns_linux.go);
//  6. the capabilities are dropped (DropCaps): locked securebits, the bounding
//     set, the ambient set, then the effective, permitted and inheritable sets,
//     on every thread;
//  7. the Landlock ruleset is enforced on every thread, and probed;
//  8. the seccomp filter is installed on every thread (TSYNC); for a
//     supervised spec (connects, or System V IPC without an IPC namespace)
//     with a listener, which Applied carries to the process's supervisor
//     (notify_linux.go, sysv_linux.go);
//  9. /proc/self/task/*/status is read back for every thread.
//
// Any step that fails is an error naming it, and the command must not run: a
// failed Apply may leave the process half restricted.
//
// Apply locks the calling goroutine to its OS thread for good: commands must be
// started from that goroutine (exec, or fork and exec), because the capability
// bounding set is emptied, and the read-only mount namespace entered, on that
// thread only (see dropCaps and readOnlyMounts).
func Apply(spec Spec) (Applied, error) { return apply(spec, true) }

func apply(spec Spec, all bool) (a Applied, err error) {
	runtime.LockOSThread()
	var notes []string
	defer func() { a.Notes = strings.Join(notes, "; ") }()

	if err := Validate(spec); err != nil {
		return a, err
	}

	if spec.MaxProcs > 0 {
		dir, err := joinProcLimit(spec.MaxProcs, procLimitOwner(spec))
		if err != nil {
			return a, err
		}
		a.ProcLimit = dir
		defer func() {
			if err != nil {
				// Nothing runs: leave the cgroup so the parent's clean-up finds
				// nothing of ours in it, and take it away.
				leaveProcLimit(dir)
			}
		}()
	}

	if spec.NprocLimit > 0 {
		if a.NprocLimit, err = setNprocLimit(spec.NprocLimit); err != nil {
			return a, err
		}
	}

	if err := setNoNewPrivs(all); err != nil {
		return a, err
	}

	if spec.NetNS {
		join := func() error { return joinNetNS(spec.netnsFD) }
		if spec.UserNS {
			join = joinOwnNetNS
		}
		if err := join(); err != nil {
			return a, err
		}
		a.NetNS = true
		notes = append(notes, "network: a namespace of its own, loopback only")
	}

	var rs *ruleset
	var p plan
	if spec.LandlockABI > 0 {
		if p, err = landlockPlan(spec); err != nil {
			return a, err
		}
		if p.handledFS != 0 || p.handledNet != 0 || p.scoped != 0 {
			if rs, err = newRuleset(spec, p); err != nil {
				return a, err
			}
			defer rs.close()
			notes = append(notes, rs.notes...)
		}
	}

	// /proc/self for the Landlock probe, opened before /proc is read-only,
	// and for verify, before a PID namespace's /proc hides this process.
	procSelf, err := openProcSelf()
	if err != nil {
		return a, err
	}
	defer unix.Close(procSelf)

	if spec.FS == FSReadOnly || spec.FS == FSWorkspaceWrite {
		roots, ok, err := readOnlyMountsRoots(spec)
		if err != nil {
			return a, err
		}
		admin, err := hostfacts.EffectiveCap(unix.CAP_SYS_ADMIN)
		if err != nil {
			return a, err
		}
		if spec.UserNS && !admin {
			// The plan promised the mounts: fail closed.
			return a, errors.New("read-only mounts: the user namespace gave no CAP_SYS_ADMIN")
		}
		switch {
		case !ok:
			// A writable root "/": nothing to make read-only.
		case admin:
			protected, err := readOnlyMountsProtecting(roots, spec.Protected)
			switch {
			case err == nil:
				a.ReadOnlyMounts = true
				a.ReadOnlyProtected = protected
				notes = append(notes, "mounts: read-only outside the writable roots")
				if len(protected) > 0 {
					notes = append(notes, "protected, read-only: "+strings.Join(protected, ", "))
				}
			case errors.Is(err, errNoMountNS) && !spec.UserNS:
				notes = append(notes, fmt.Sprintf("mounts: left writable (%v): %s", err, metadataNote))
			default:
				return a, err
			}
		case os.Geteuid() == 0:
			notes = append(notes, "mounts: left writable (no CAP_SYS_ADMIN): "+metadataNote)
		}
	}

	if spec.IPCNamespace {
		// On this thread, like the mount namespace: the command is started
		// from it. Without the namespace, the filter hands System V IPC
		// to the supervisor (SysVSupervised) or refuses it.
		err := unix.Unshare(unix.CLONE_NEWIPC)
		switch {
		case err != nil && spec.UserNS:
			return a, fmt.Errorf("ipc namespace in the user namespace: %w", err)
		case err != nil && spec.Seccomp && spec.SysVSupervised:
			notes = append(notes, fmt.Sprintf("ipc namespace: none (unshare: %v): System V IPC through stockade's supervisor", err))
		case err != nil:
			notes = append(notes, fmt.Sprintf("ipc namespace: none (unshare: %v): System V IPC refused", err))
		default:
			a.IPCNamespace = true
		}
	}

	if spec.PIDNamespace && !all {
		ns, nsErr := newPIDNamespace(a.ReadOnlyMounts, a.ReadOnlyMounts && !writesProc(spec))
		switch {
		case errors.Is(nsErr, errNoPIDNS):
			notes = append(notes, fmt.Sprintf("pid namespace: none (%v): what the command leaves is stopped when it ends, and after stockade dies by the next start", nsErr))
		case nsErr != nil:
			return a, nsErr
		default:
			a.PIDNamespace, a.pidns = true, ns
			defer func() {
				if err != nil {
					ns.stop()
					a.PIDNamespace, a.pidns = false, nil
				}
			}()
			if rs != nil {
				// The rules on /proc are on the host's; the namespace's
				// is mounted over it.
				if err := rs.addProc(); err != nil {
					return a, err
				}
			}
		}
	}

	if spec.DropCaps {
		if err := dropCaps(all); err != nil {
			return a, fmt.Errorf("dropping capabilities: %w", err)
		}
	}

	if rs != nil {
		// The signal scope's probe signals a process outside the domain:
		// the parent, or, for the init of a PID namespace (a session's
		// zygote), whose parent is out of sight, a child that exited before
		// the domain was made, reaped once the probe is done.
		target := os.Getppid()
		if target == 0 && p.scoped&uint64(1<<1) != 0 {
			if target, err = exitedChild(); err != nil {
				return a, fmt.Errorf("landlock signal scope probe: %w", err)
			}
			defer reapChild(target)
		}
		if err := rs.restrict(all); err != nil {
			return a, err
		}
		if err := probeLandlock(spec, p, procSelf, target); err != nil {
			return a, err
		}
		a.LandlockABI = spec.LandlockABI
		a.Scopes = p.scoped != 0
		notes = append(notes, fmt.Sprintf("landlock: %d rules", rs.rules))
	}

	if spec.Seccomp {
		if a.connects, err = installFilter(spec, a.IPCNamespace, all); err != nil {
			return a, err
		}
		a.Supervised = spec.Supervised
		switch {
		case a.IPCNamespace:
			a.SysVIPC = SysVNamespace
		case spec.SysVSupervised:
			a.SysVIPC = SysVSupervised
		default:
			a.SysVIPC = SysVRefused
		}
		a.ProxyPortOnly = spec.ProxyPortOnly
		defer func() {
			if err != nil && a.connects != nil {
				a.connects.Close()
				a.connects = nil
			}
		}()
	}

	if err := verify(spec, &a, all, procSelf); err != nil {
		return a, err
	}
	a.UserNS = spec.UserNS
	if spec.MaxProcs > 0 {
		a.MaxProcs = spec.MaxProcs
	}
	return a, nil
}

// metadataNote says what a command running as root can do without the
// read-only mounts.
const metadataNote = "as uid 0 the command can change the mode, times and extended attributes of root-owned files outside the writable roots"

// Validate says whether Apply would accept spec: it refuses a spec that cannot
// be applied as written (a mechanism without the means for it, such as a
// filesystem mode without Landlock) before anything is changed. The parent
// (degrade) builds only specs that pass it; Apply checks again in the child.
// It does not ask the kernel whether the mechanisms are there.
func Validate(spec Spec) error {
	switch spec.FS {
	case FSReadOnly, FSWorkspaceWrite, FSOff:
	case "":
		return errors.New("the spec has no filesystem mode")
	default:
		return fmt.Errorf("unknown filesystem mode %q", spec.FS)
	}
	if spec.FS != FSOff && spec.LandlockABI == 0 {
		return fmt.Errorf("filesystem mode %q needs landlock, and the spec has no landlock ABI", spec.FS)
	}
	if len(spec.DenyRead) > 0 && spec.LandlockABI == 0 {
		return errors.New("deny-read needs landlock, and the spec has no landlock ABI")
	}
	if spec.NetworkOff && !spec.NetNS && !spec.Seccomp && spec.LandlockABI < hostfacts.ABITCP {
		return errors.New("network off needs seccomp or landlock ABI 4 or later, and the spec has neither")
	}
	if spec.UnixSocketsOff && !spec.Seccomp {
		return errors.New("unix sockets off needs seccomp, and the spec does not apply it")
	}
	if spec.Scopes && spec.LandlockABI < hostfacts.ABIScopes {
		return fmt.Errorf("landlock scopes need ABI 6 or later, the spec asks for ABI %d", spec.LandlockABI)
	}
	if spec.Supervised && (!spec.Seccomp || !spec.NetworkOff || spec.NetNS) {
		return errors.New("supervised connects need seccomp and the network off, outside a network namespace")
	}
	if spec.SysVSupervised && !spec.Seccomp {
		return errors.New("supervised System V IPC needs seccomp, and the spec does not apply it")
	}
	if spec.ProxyPortOnly && (!spec.Seccomp || !spec.NetworkOff || spec.NetNS || spec.Supervised || spec.LandlockABI < hostfacts.ABITCP) {
		return errors.New("connects to the proxy's port only need seccomp, landlock ABI 4 or later and the network off, outside a network namespace, unsupervised")
	}
	if spec.ProxyAddr != "" && !(spec.UserNS && spec.NetNS) {
		return errors.New("a proxy listener is opened by the sandbox in a user namespace with a network namespace only")
	}
	if spec.MaxProcs < 0 || spec.NprocLimit < 0 {
		return fmt.Errorf("bad process bound %d", min(spec.MaxProcs, spec.NprocLimit))
	}
	if spec.FS == FSWorkspaceWrite && spec.Workdir == "" && spec.TmpDir == "" && len(spec.WritableRoots) == 0 {
		return errors.New("workspace-write with no workdir, tmpdir or writable root")
	}
	for _, p := range append(append([]string{spec.Workdir, spec.TmpDir}, spec.WritableRoots...), spec.ReadableRoots...) {
		if p != "" && !filepath.IsAbs(p) {
			return fmt.Errorf("path %q in the spec is not absolute", p)
		}
	}
	if spec.Seccomp {
		if _, ok := seccompArchFor(runtime.GOARCH); !ok {
			return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
		}
	}
	return nil
}

// leaveProcLimit moves this process back to the parent cgroup and removes dir.
func leaveProcLimit(dir string) {
	moveOutOfProcLimit(dir)
	os.Remove(dir)
}

// probeLandlock checks, with operations that change nothing, that the ruleset
// is really in force: an operation it forbids fails the way Landlock makes it
// fail, where without Landlock it would fail otherwise or succeed.
//
// procSelf is /proc/self, opened before the mounts were made read-only.
func probeLandlock(spec Spec, p plan, procSelf, outside int) error {
	if (spec.FS == FSReadOnly || spec.FS == FSWorkspaceWrite) && !writesProc(spec) {
		// Opening a file of our own for writing changes nothing; it works
		// without Landlock, and fails with EACCES when /proc is not writable.
		fd, err := unix.Openat(procSelf, "comm", unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Close(fd)
		}
		if !errors.Is(err, unix.EACCES) {
			return fmt.Errorf("landlock filesystem rules are not in force: opening /proc/self/comm for writing gave %v, want EACCES", err)
		}
	}
	if p.handledNet&uint64(1<<1) != 0 { // connect TCP
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("landlock network probe: %w", err)
		}
		defer unix.Close(fd)
		// Port 0 is never listened on: ECONNREFUSED without Landlock.
		err = unix.Connect(fd, &unix.SockaddrInet4{Port: 0, Addr: [4]byte{127, 0, 0, 1}})
		if !errors.Is(err, unix.EACCES) {
			return fmt.Errorf("landlock network rules are not in force: connect to 127.0.0.1:0 gave %v, want EACCES", err)
		}
	}
	if p.scoped&uint64(1<<1) != 0 { // signal scope
		// outside is outside the domain: signal 0 checks permission only.
		if err := unix.Kill(outside, 0); !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("landlock signal scope is not in force: kill(%d, 0) gave %v, want EPERM", outside, err)
		}
	}
	return nil
}

// writesProc reports whether a writable root of spec covers /proc.
func writesProc(spec Spec) bool {
	for _, p := range writableRoots(spec) {
		if p != "" && (p == "/" || p == "/proc" || strings.HasPrefix("/proc/", strings.TrimSuffix(p, "/")+"/")) {
			return true
		}
	}
	return false
}

// installFilter installs the socket filter on every thread (all) or on the
// calling thread; where it hands calls to a supervisor (supervised connects,
// or System V IPC without an IPC namespace) it returns the filter's listener.
func installFilter(spec Spec, sysvIPC, all bool) (*os.File, error) {
	arch, _ := seccompArchFor(runtime.GOARCH)
	sysvNotify := spec.SysVSupervised && !sysvIPC
	raw, err := socketFilter(arch, filterRules{networkOff: spec.NetworkOff, inet: spec.NetNS, unixSocketsOff: spec.UnixSocketsOff,
		sysvIPC: sysvIPC, sysvNotify: sysvNotify, guardTID: uint32(spec.guardTID), supervised: spec.Supervised, tcpOnly: spec.ProxyPortOnly})
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	if !spec.Supervised && !sysvNotify {
		return nil, installBPF(raw, all)
	}
	fd, err := installBPFListener(raw, all)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "seccomp-listener"), nil
}

func installBPF(raw []bpf.RawInstruction, all bool) error {
	_, err := loadBPF(raw, all, false)
	return err
}

// installBPFListener installs the filter and returns its listener
// (SECCOMP_FILTER_FLAG_NEW_LISTENER, close-on-exec). With all, the threads
// are synchronized with TSYNC_ESRCH (Linux 5.7), the only way TSYNC and a
// listener go together.
func installBPFListener(raw []bpf.RawInstruction, all bool) (int, error) {
	return loadBPF(raw, all, true)
}

func loadBPF(raw []bpf.RawInstruction, all, listener bool) (int, error) {
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	var flags uintptr
	if all {
		flags = unix.SECCOMP_FILTER_FLAG_TSYNC
	}
	if listener {
		flags |= unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
		if all {
			flags |= unix.SECCOMP_FILTER_FLAG_TSYNC_ESRCH
		}
	}
	load := func(flags uintptr) (uintptr, unix.Errno) {
		r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&prog)))
		return r, errno
	}
	var r uintptr
	var errno unix.Errno
	if listener {
		// Where the kernel has it (5.19), a call the supervisor has taken
		// is not cut short by a signal (Go's runtime sends SIGURG often),
		// so a connect is not made twice. EINVAL: an older kernel.
		r, errno = load(flags | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	}
	if !listener || errno == unix.EINVAL {
		r, errno = load(flags)
	}
	runtime.KeepAlive(filter)
	switch {
	case errno == unix.ESRCH && listener:
		return -1, errors.New("seccomp: a thread could not be synchronized")
	case errno != 0:
		return -1, fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %w", errno)
	case listener:
		return int(r), nil
	case r != 0:
		return -1, fmt.Errorf("seccomp: thread %d could not be synchronized", r)
	}
	return 0, nil
}

// verify reads back what every restricted thread really has, and fills a.
// procSelf is this process's directory in /proc.
func verify(spec Spec, a *Applied, all bool, procSelf int) error {
	self := strconv.Itoa(unix.Gettid())
	tasks := []string{self} // the others are discarded by the execve that follows
	if all {
		var err error
		if tasks, err = readDirAt(procSelf, "task"); err != nil {
			return fmt.Errorf("verifying the sandbox: %w", err)
		}
	}
	// With CAP_SETPCAP (root, or a user namespace of its own) the bounding
	// set was emptied too.
	root := os.Geteuid() == 0 || spec.UserNS
	a.NoNewPrivs, a.Seccomp, a.CapsDropped = true, true, true
	for _, t := range tasks {
		st, err := readStatusAt(procSelf, "task/"+t+"/status")
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // the thread is gone
			}
			return fmt.Errorf("verifying the sandbox: %w", err)
		}
		a.NoNewPrivs = a.NoNewPrivs && st.noNewPrivs
		a.Seccomp = a.Seccomp && st.seccomp == 2
		// The bounding set is emptied on this thread only; see dropCaps.
		dropped := st.capInh == 0 && st.capPrm == 0 && st.capEff == 0 && st.capAmb == 0 &&
			(st.capBnd == 0 || !root || t != self)
		a.CapsDropped = a.CapsDropped && dropped
		if !st.noNewPrivs {
			return fmt.Errorf("verifying the sandbox: thread %s has no_new_privs off", t)
		}
		if spec.Seccomp && st.seccomp != 2 {
			return fmt.Errorf("verifying the sandbox: thread %s has no seccomp filter", t)
		}
		if spec.DropCaps && !dropped {
			return fmt.Errorf("verifying the sandbox: thread %s still has capabilities (eff %x prm %x inh %x bnd %x amb %x)",
				t, st.capEff, st.capPrm, st.capInh, st.capBnd, st.capAmb)
		}
	}
	// Report only what was asked for and checked.
	a.CapsDropped = a.CapsDropped && spec.DropCaps
	return nil
}
