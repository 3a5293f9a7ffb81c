//go:build linux

package sandbox

import (
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// System V IPC through the supervisor, where the command has no IPC namespace
// of its own (Spec.SysVSupervised: a plain user on a host that refuses user
// namespaces, root without CAP_SYS_ADMIN). Segments, semaphore sets and
// message queues are then the host's: found by key or by id, and guarded by
// file modes only, so a command of the same user would reach every one of
// its user's. The filter sends every System V call but shmdt here
// (seccomp_kernel.go), and the supervisor, outside the sandbox, in the same
// IPC namespace and as the same user:
//
//   - shmget, semget, msgget: makes the object itself, always as
//     IPC_PRIVATE, so no object outside is ever found by key. The command's
//     key names the object made for it in this sandbox: two of its processes
//     that use one key meet; a key of an outside process finds nothing
//     (ENOENT, or a new object of the sandbox's own with IPC_CREAT). The
//     answer is the id, as the kernel's would be.
//   - the calls that name an id (shmat, shmctl, semop, semtimedop, semctl,
//     msgsnd, msgrcv, msgctl): let through (SECCOMP_USER_NOTIF_FLAG_CONTINUE)
//     when the id is one made for this sandbox, refused (EINVAL, as for an id
//     that does not exist) otherwise. The id is in a register, which nothing
//     can change once the call is waiting here, so the kernel runs the call
//     on the id that was checked. IPC_RMID is done by the supervisor, which
//     forgets the id in the same step, so no call is let through for an id
//     already removed. The control calls that read objects by index or the
//     namespace's state (IPC_INFO, SHM_INFO, SHM_STAT, SEM_STAT, MSG_STAT and
//     their _ANY forms) are refused (EPERM), and so is every command not
//     named here.
//   - when the sandbox ends (Stop: the run's command is gone, or the MCP
//     session closed), every object still made for it is removed.
//
// All of it holds one lock, from the check to the answer.
type sysvObjects struct {
	mu     sync.Mutex
	closed bool
	keys   [sysvKinds]map[int32]int // the command's key → the id made for it
	ids    [sysvKinds]map[int]int32 // the ids made for this sandbox → their key (0: private)
}

type sysvKind int

const (
	sysvShm sysvKind = iota
	sysvSem
	sysvMsg
	sysvKinds
)

// The control commands, from the kernel's uapi headers.
const (
	ipcRMID, ipcSet, ipcStat = 0, 1, 2
	ipc64                    = 0x100 // the version bit old ABIs add to a command
	shmLock, shmUnlock       = 11, 12
	semGetPid, semSetAll     = 11, 17 // GETPID, GETVAL, GETALL, GETNCNT, GETZCNT, SETVAL, SETALL
	shmNoReserve             = 0o10000
	// The flags a get may carry: IPC_CREAT, IPC_EXCL and the mode.
	sysvGetFlags = unix.IPC_CREAT | unix.IPC_EXCL | 0o777
)

func newSysvObjects() *sysvObjects {
	o := &sysvObjects{}
	for k := range sysvKinds {
		o.keys[k], o.ids[k] = map[int32]int{}, map[int]int32{}
	}
	return o
}

// sysvCall says whether nr is a System V call, and which kind of object it
// acts on.
func sysvCall(c sysvCalls, nr uint32) (sysvKind, bool) {
	switch nr {
	case c.shmget, c.shmat, c.shmctl, c.shmdt:
		return sysvShm, true
	case c.semget, c.semop, c.semctl, c.semtimedop:
		return sysvSem, true
	case c.msgget, c.msgsnd, c.msgrcv, c.msgctl:
		return sysvMsg, true
	}
	return 0, false
}

// decide returns the call's result (val, or errno), or pass to let the
// kernel run it. Hold o.mu until the answer is sent.
func (o *sysvObjects) decide(c sysvCalls, kind sysvKind, nr uint32, args [6]uint64) (val int64, errno unix.Errno, pass bool) {
	if o.closed {
		return 0, unix.EPERM, false
	}
	id := int(int32(args[0]))
	switch nr {
	case c.shmget, c.semget, c.msgget:
		if kind == sysvMsg { // msgget(key, flags)
			return o.get(kind, int32(args[0]), 0, int(int32(args[1])))
		}
		return o.get(kind, int32(args[0]), args[1], int(int32(args[2])))
	case c.shmctl, c.msgctl:
		return o.control(kind, id, int(int32(args[1])))
	case c.semctl:
		return o.control(kind, id, int(int32(args[2])))
	case c.shmdt:
		return 0, 0, true // the filter lets it through; an address, no object
	}
	// shmat, semop, semtimedop, msgsnd, msgrcv: on the id in args[0].
	if _, ok := o.ids[kind][id]; !ok {
		return 0, unix.EINVAL, false
	}
	return 0, 0, true
}

// get is shmget, semget or msgget of key, with size the segment's size or
// the set's number of semaphores.
func (o *sysvObjects) get(kind sysvKind, key int32, size uint64, flags int) (int64, unix.Errno, bool) {
	allowed := sysvGetFlags
	if kind == sysvShm {
		allowed |= shmNoReserve
	}
	if flags&^allowed != 0 {
		// SHM_HUGETLB and its sizes: stockade may hold the capability
		// the command has not.
		return 0, unix.EPERM, false
	}
	if key != unix.IPC_PRIVATE {
		if id, ok := o.keys[kind][key]; ok {
			mode, have, err := sysvStat(kind, id)
			if err == nil {
				switch {
				case flags&unix.IPC_CREAT != 0 && flags&unix.IPC_EXCL != 0:
					return 0, unix.EEXIST, false
				case (flags>>6|flags>>3|flags)&^(mode>>6)&0o7 != 0:
					// The rights asked for are checked against the owner's,
					// as the kernel does for the command's user.
					return 0, unix.EACCES, false
				case kind != sysvMsg && size > have:
					return 0, unix.EINVAL, false
				}
				return int64(id), 0, false
			}
			// Removed from outside: forget it.
			delete(o.keys[kind], key)
			delete(o.ids[kind], id)
		}
		if flags&unix.IPC_CREAT == 0 {
			return 0, unix.ENOENT, false
		}
	}
	id, err := sysvMake(kind, size, unix.IPC_CREAT|flags&(0o777|shmNoReserve))
	if err != nil {
		return 0, errnoOf(err), false
	}
	o.ids[kind][id] = key
	if key != unix.IPC_PRIVATE {
		o.keys[kind][key] = id
	}
	return int64(id), 0, false
}

// control is shmctl, semctl or msgctl of cmd on id.
func (o *sysvObjects) control(kind sysvKind, id, cmd int) (int64, unix.Errno, bool) {
	ok := false
	switch c := cmd &^ ipc64; {
	case c == ipcRMID, c == ipcSet, c == ipcStat:
		ok = true
	case kind == sysvShm:
		ok = c == shmLock || c == shmUnlock
	case kind == sysvSem:
		ok = c >= semGetPid && c <= semSetAll
	}
	if !ok {
		// IPC_INFO, *_INFO, *_STAT and *_STAT_ANY read objects by index
		// or the whole namespace's use.
		return 0, unix.EPERM, false
	}
	key, mine := o.ids[kind][id]
	if !mine {
		return 0, unix.EINVAL, false
	}
	if cmd&^ipc64 != ipcRMID {
		return 0, 0, true
	}
	if err := sysvRemove(kind, id); err != nil {
		return 0, errnoOf(err), false
	}
	o.forget(kind, id, key)
	return 0, 0, false
}

func (o *sysvObjects) forget(kind sysvKind, id int, key int32) {
	delete(o.ids[kind], id)
	if key != unix.IPC_PRIVATE && o.keys[kind][key] == id {
		delete(o.keys[kind], key)
	}
}

// removeAll removes every object made for this sandbox, and makes no more.
func (o *sysvObjects) removeAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	for kind := range sysvKinds {
		for id, key := range o.ids[kind] {
			sysvRemove(kind, id)
			o.forget(kind, id, key)
		}
	}
}

// count is how many objects are made for this sandbox and not removed.
func (o *sysvObjects) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.ids[sysvShm]) + len(o.ids[sysvSem]) + len(o.ids[sysvMsg])
}

// sysvMake makes a private object of kind.
func sysvMake(kind sysvKind, size uint64, flags int) (int, error) {
	var r uintptr
	var e unix.Errno
	switch kind {
	case sysvShm:
		r, _, e = unix.Syscall(unix.SYS_SHMGET, unix.IPC_PRIVATE, uintptr(size), uintptr(flags))
	case sysvSem:
		r, _, e = unix.Syscall(unix.SYS_SEMGET, unix.IPC_PRIVATE, uintptr(size), uintptr(flags))
	default:
		r, _, e = unix.Syscall(unix.SYS_MSGGET, unix.IPC_PRIVATE, uintptr(flags), 0)
	}
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// sysvRemove removes object id of kind.
func sysvRemove(kind sysvKind, id int) error {
	var e unix.Errno
	switch kind {
	case sysvShm:
		_, _, e = unix.Syscall(unix.SYS_SHMCTL, uintptr(id), ipcRMID, 0)
	case sysvSem:
		_, _, e = unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, ipcRMID, 0, 0, 0)
	default:
		_, _, e = unix.Syscall(unix.SYS_MSGCTL, uintptr(id), ipcRMID, 0)
	}
	if e != 0 {
		return e
	}
	return nil
}

// semNsemsWord is the 8-byte word of struct semid64_ds that holds sem_nsems.
var semNsemsWord = map[string]int{"amd64": 10, "arm64": 8}[runtime.GOARCH]

// sysvStat reads the mode of object id, and a segment's size or a set's
// number of semaphores; an error when it no longer exists.
func sysvStat(kind sysvKind, id int) (mode int, size uint64, err error) {
	// struct shmid64_ds, semid64_ds, msqid64_ds: struct ipc64_perm first (its
	// mode at byte 20 on amd64 and arm64, 48 bytes long), then the segment's
	// size, or the set's times and its number of semaphores: after two
	// times on arm64 (asm-generic), after two times and two unused words on
	// amd64.
	var buf [32]uint64
	p := uintptr(unsafe.Pointer(&buf[0]))
	var e unix.Errno
	switch kind {
	case sysvShm:
		_, _, e = unix.Syscall(unix.SYS_SHMCTL, uintptr(id), ipcStat, p)
		size = buf[6]
	case sysvSem:
		_, _, e = unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, ipcStat, p, 0, 0)
		size = buf[semNsemsWord]
	default:
		_, _, e = unix.Syscall(unix.SYS_MSGCTL, uintptr(id), ipcStat, p)
	}
	runtime.KeepAlive(&buf)
	if e != 0 {
		return 0, 0, e
	}
	return int(uint32(buf[2] >> 32)), size, nil
}
