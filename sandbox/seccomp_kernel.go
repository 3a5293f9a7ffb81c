package sandbox

import (
	"fmt"
	"slices"

	"golang.org/x/net/bpf"
)

// The filter's rules for system calls that reach other processes or state the
// kernel shares between them, which Landlock does not cover. They come before
// the socket rules (seccomp.go), and are the same for every policy:
//
//   - refused (EPERM): the user's keyrings (keyctl, add_key, request_key);
//     calls only an administrator needs, which act on the whole host (mount
//     and the new mount API, pivot_root, setns, swapon/off, reboot, kexec,
//     modules, acct, quotactl, syslog, setting the clock, iopl/ioperm,
//     lookup_dcookie, open_by_handle_at) and calls that mostly serve kernel
//     exploits or watch the whole machine (bpf, perf_event_open,
//     userfaultfd). Most need a capability the sandbox never has; refusing
//     them here also holds where capabilities could not be dropped.
//   - System V IPC (shm*, sem*, msg*) is allowed where the command has an
//     IPC namespace of its own (sysvIPC). Without one, its segments,
//     semaphores and queues are the host's, reachable by id and guarded by
//     file modes only: every call but shmdt goes to the supervisor
//     (sysvNotify, see sysv_linux.go), which lets the command reach the
//     objects made for it and nothing else; without a supervisor, refused.
//   - on the calling process only (the target must be 0, which means
//     itself): prlimit64 and sched_setaffinity, sched_setscheduler,
//     sched_setparam, sched_setattr. setpriority only for PRIO_PROCESS or
//     PRIO_PGRP with who 0, ioprio_set only for IOPRIO_WHO_PROCESS or
//     IOPRIO_WHO_PGRP with who 0 (the command's process group is its own).
//     The kernel lets a process change these for any process of its user:
//     the limits (RLIMIT_CPU kills), the priorities, the CPUs.
//   - signals to the thread of stockade that forks the command (guardTID):
//     kill, tkill and rt_sigqueueinfo naming it, tgkill and
//     rt_tgsigqueueinfo naming it as the thread, and pidfd_open of it. That
//     thread is restricted with the command, so Landlock's signal scope lets
//     the command signal it, and a signal to one thread acts on the whole
//     of stockade (SIGSTOP, SIGKILL). Its memory and /proc files are guarded
//     by stockade being non-dumpable.
//   - ioctl TIOCSTI, which pushes input into a terminal the command shares
//     with the user's shell.
//   - new namespaces: unshare and clone with any CLONE_NEW* flag (EPERM),
//     and clone3, whose flags are in memory the filter cannot read (ENOSYS,
//     so glibc falls back to clone). In a user namespace of its own a
//     process holds every capability there: the command would reach the
//     kernel's code for namespaced administration (netfilter, mounts of its
//     own) that the sandbox never needs to give it.
//
// The checks read the low 32 bits of an argument: pid_t, int and unsigned
// int arguments are cut to them by the kernel too.

const (
	seccompDataArg1 = 24 // low 32 bits of args[1]

	prioProcess, prioPgrp           = 0, 1
	ioprioWhoProcess, ioprioWhoPgrp = 1, 2
	tiocsti                         = 0x5412

	// The CLONE_NEW* flags clone(2) takes (CLONE_NEWNS, NEWCGROUP, NEWUTS,
	// NEWIPC, NEWUSER, NEWPID, NEWNET); unshare(2) also takes CLONE_NEWTIME,
	// whose bit is part of the exit signal for clone.
	cloneNewFlags   = 0x7e020000
	unshareNewFlags = cloneNewFlags | 0x80
)

// kernelCalls are the numbers of one architecture the rules above name.
type kernelCalls struct {
	refused     []uint32
	sysv        sysvCalls
	selfOnly    []uint32 // args[0] must be 0
	setpriority uint32
	ioprioSet   uint32
	ioctl       uint32
	clone       uint32
	unshare     uint32
	clone3      uint32
	signalPid   []uint32 // the target is args[0]: kill, tkill, rt_sigqueueinfo, pidfd_open
	signalTid   []uint32 // the target is args[1]: tgkill, rt_tgsigqueueinfo
}

var kernelCallsAMD64 = kernelCalls{
	refused: []uint32{
		250, 248, 249, // keyctl, add_key, request_key
		165, 166, 155, 308, // mount, umount2, pivot_root, setns
		428, 429, 430, 431, 432, 433, 442, // open_tree, move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr
		167, 168, 169, 246, 320, // swapon, swapoff, reboot, kexec_load, kexec_file_load
		175, 313, 176, // init_module, finit_module, delete_module
		163, 179, 443, 103, // acct, quotactl, quotactl_fd, syslog
		227, 164, 172, 173, // clock_settime, settimeofday, iopl, ioperm
		212, 304, // lookup_dcookie, open_by_handle_at
		321, 298, 323, // bpf, perf_event_open, userfaultfd
	},
	sysv: sysvCalls{shmget: 29, shmat: 30, shmctl: 31, shmdt: 67,
		semget: 64, semop: 65, semctl: 66, semtimedop: 220,
		msgget: 68, msgsnd: 69, msgrcv: 70, msgctl: 71},
	selfOnly:    []uint32{302, 203, 144, 142, 314}, // prlimit64, sched_setaffinity, sched_setscheduler, sched_setparam, sched_setattr
	setpriority: 141,
	ioprioSet:   251,
	ioctl:       16,
	clone:       56,
	unshare:     272,
	clone3:      435,
	signalPid:   []uint32{62, 200, 129, 434},
	signalTid:   []uint32{234, 297},
}

var kernelCallsARM64 = kernelCalls{
	refused: []uint32{
		219, 217, 218, // keyctl, add_key, request_key
		40, 39, 41, 268, // mount, umount2, pivot_root, setns
		428, 429, 430, 431, 432, 433, 442, // open_tree, move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr
		224, 225, 142, 104, 294, // swapon, swapoff, reboot, kexec_load, kexec_file_load
		105, 273, 106, // init_module, finit_module, delete_module
		89, 60, 443, 116, // acct, quotactl, quotactl_fd, syslog
		112, 170, // clock_settime, settimeofday (no iopl, ioperm)
		18, 265, // lookup_dcookie, open_by_handle_at
		280, 241, 282, // bpf, perf_event_open, userfaultfd
	},
	sysv: sysvCalls{shmget: 194, shmat: 196, shmctl: 195, shmdt: 197,
		semget: 190, semop: 193, semctl: 191, semtimedop: 192,
		msgget: 186, msgsnd: 189, msgrcv: 188, msgctl: 187},
	selfOnly:    []uint32{261, 122, 119, 118, 274},
	setpriority: 140,
	ioprioSet:   30,
	ioctl:       29,
	clone:       220,
	unshare:     97,
	clone3:      435,
	signalPid:   []uint32{129, 130, 138, 434},
	signalTid:   []uint32{131, 240},
}

// sysvCalls are the System V IPC calls of one architecture.
type sysvCalls struct {
	shmget, shmat, shmctl, shmdt      uint32
	semget, semop, semctl, semtimedop uint32
	msgget, msgsnd, msgrcv, msgctl    uint32
}

func (c sysvCalls) all() []uint32 {
	return []uint32{c.shmget, c.shmat, c.shmctl, c.shmdt, c.semget, c.semop, c.semctl, c.semtimedop,
		c.msgget, c.msgsnd, c.msgrcv, c.msgctl}
}

// kernelCallsFor returns the numbers for arch.
func kernelCallsFor(arch seccompArch) kernelCalls {
	if arch.auditArch == auditArchAArch64 {
		return kernelCallsARM64
	}
	return kernelCallsAMD64
}

// kernelRules emits the rules above. A call they do not name goes on to the
// label next; one they allow goes to "allow", one they refuse to "eperm".
func (p *prog) kernelRules(calls kernelCalls, r filterRules, next string) {
	type entry struct {
		nr    uint32
		label string
	}
	var es []entry
	for _, nr := range calls.refused {
		es = append(es, entry{nr, "eperm"})
	}
	if !r.sysvIPC {
		for _, nr := range calls.sysv.all() {
			switch {
			case !r.sysvNotify:
				es = append(es, entry{nr, "eperm"})
			case nr != calls.sysv.shmdt: // shmdt names no object: an address of the caller's
				es = append(es, entry{nr, "notify"})
			}
		}
	}
	for _, nr := range calls.selfOnly {
		es = append(es, entry{nr, "k-self"})
	}
	if r.guardTID != 0 {
		for _, nr := range calls.signalPid {
			es = append(es, entry{nr, "k-guard0"})
		}
		for _, nr := range calls.signalTid {
			es = append(es, entry{nr, "k-guard1"})
		}
	}
	es = append(es, entry{calls.setpriority, "k-prio"}, entry{calls.ioprioSet, "k-ioprio"}, entry{calls.ioctl, "k-ioctl"},
		entry{calls.clone, "k-clone"}, entry{calls.unshare, "k-unshare"}, entry{calls.clone3, "enosys"})
	slices.SortFunc(es, func(a, b entry) int { return int(a.nr) - int(b.nr) })

	// A binary search over the numbers: a handful of comparisons per call,
	// however long the list.
	n := 0
	var tree func(es []entry)
	tree = func(es []entry) {
		if len(es) <= 3 {
			for _, e := range es {
				p.jeq(e.nr, e.label, "")
			}
			p.ja(next)
			return
		}
		m := len(es) / 2
		n++
		right := fmt.Sprintf("k-tree-%d", n)
		p.jgt(es[m-1].nr, right)
		tree(es[:m])
		p.label(right)
		tree(es[m:])
	}
	tree(es)

	p.label("k-self")
	p.add(bpf.LoadAbsolute{Off: seccompDataArg0, Size: 4})
	p.jeq(0, "allow", "eperm")
	p.label("k-prio")
	p.add(bpf.LoadAbsolute{Off: seccompDataArg0, Size: 4})
	p.jeq(prioProcess, "k-who", "")
	p.jeq(prioPgrp, "k-who", "eperm")
	p.label("k-ioprio")
	p.add(bpf.LoadAbsolute{Off: seccompDataArg0, Size: 4})
	p.jeq(ioprioWhoProcess, "k-who", "")
	p.jeq(ioprioWhoPgrp, "k-who", "eperm")
	p.label("k-who")
	p.add(bpf.LoadAbsolute{Off: seccompDataArg1, Size: 4})
	p.jeq(0, "allow", "eperm")
	p.label("k-ioctl")
	p.add(bpf.LoadAbsolute{Off: seccompDataArg1, Size: 4})
	p.jeq(tiocsti, "eperm", "allow")
	p.label("k-clone")
	p.refuseBits(seccompDataArg0, cloneNewFlags)
	p.label("k-unshare")
	p.refuseBits(seccompDataArg0, unshareNewFlags)
	if r.guardTID != 0 {
		p.label("k-guard0")
		p.add(bpf.LoadAbsolute{Off: seccompDataArg0, Size: 4})
		p.jeq(r.guardTID, "eperm", "allow")
		p.label("k-guard1")
		p.add(bpf.LoadAbsolute{Off: seccompDataArg1, Size: 4})
		p.jeq(r.guardTID, "eperm", "allow")
	}
}

// jgt jumps to ifTrue when A > val, and falls through otherwise.
func (p *prog) jgt(val uint32, ifTrue string) {
	p.fixups = append(p.fixups, fixup{at: len(p.ins), true: ifTrue})
	p.add(bpf.JumpIf{Cond: bpf.JumpGreaterThan, Val: val})
}

// ja jumps to label.
func (p *prog) ja(label string) {
	p.fixups = append(p.fixups, fixup{at: len(p.ins), true: label, always: true})
	p.add(bpf.Jump{})
}
