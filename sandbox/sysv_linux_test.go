//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// envSysV makes a copy of the test binary use System V IPC: the segment of
// an outside key, and objects of its own (sysvProbe).
const envSysV = "STOCKADE_TEST_SYSV" // "OUTSIDE_KEY OWN_KEY"

func init() {
	if os.Getenv(envSysV) != "" {
		os.Exit(sysvProbe())
	}
	if os.Getenv(envSemopLoop) != "" {
		os.Exit(semopLoop())
	}
}

// envSemopLoop makes a copy of the test binary make a semaphore set and
// semop on it N times, and print the median time of one semop.
const envSemopLoop = "STOCKADE_TEST_SEMOP_LOOP" // "N"

func semopLoop() int {
	n, _ := strconv.Atoi(os.Getenv(envSemopLoop))
	sem, err := sysvCallErr(unix.SYS_SEMGET, unix.IPC_PRIVATE, 1, unix.IPC_CREAT|0o600)
	if err != nil {
		fmt.Println("semget:", err)
		return 1
	}
	defer sysvCallErr(unix.SYS_SEMCTL, sem, 0, ipcRMID)
	op := [3]uint16{0, 1, 0}
	took := make([]time.Duration, n)
	for i := range took {
		start := time.Now()
		if _, err := sysvCallErr(unix.SYS_SEMOP, sem, uintptr(unsafe.Pointer(&op)), 1); err != nil {
			fmt.Println("semop:", err)
			return 1
		}
		took[i] = time.Since(start)
	}
	slices.Sort(took)
	fmt.Printf("SEMOP_P50_NS=%d\n", took[n/2].Nanoseconds())
	return 0
}

// sysvProbe prints one line per step, NAME=RESULT: what it reached of the
// segment of the outside key, and what worked of its own objects. It leaves
// one object of each kind, whose ids it prints (left-shm=ID ...).
func sysvProbe() int {
	f := strings.Fields(os.Getenv(envSysV))
	outside, _ := strconv.Atoi(f[0])
	own, _ := strconv.Atoi(f[1])
	say := func(name string, err error) {
		if err == nil {
			fmt.Printf("%s=ok\n", name)
		} else {
			fmt.Printf("%s=%v\n", name, err)
		}
	}
	// The attack: the outside segment, by key, then by the id the
	// parent found for it.
	_, err := unix.SysvShmGet(outside, 0, 0)
	say("outside-get", err)
	id, _ := strconv.Atoi(os.Getenv("OUTSIDE_ID"))
	if b, err := unix.SysvShmAttach(id, 0, 0); err == nil {
		copy(b, "OVERWRITTEN")
		unix.SysvShmDetach(b)
		say("outside-attach", nil)
	} else {
		say("outside-attach", err)
	}
	var ds unix.SysvShmDesc
	_, err = unix.SysvShmCtl(id, unix.IPC_STAT, &ds)
	say("outside-stat", err)
	_, err = unix.SysvShmCtl(0, 15, &ds) // SHM_STAT_ANY
	say("stat-any", err)

	// Its own: a segment two gets of one key meet at, written through one
	// attachment and read through another.
	a, err := unix.SysvShmGet(own, 4096, unix.IPC_CREAT|0o600)
	say("own-create", err)
	b, err := unix.SysvShmGet(own, 0, 0)
	if err == nil && a != b {
		err = fmt.Errorf("the key gave %d, then %d", a, b)
	}
	say("own-get", err)
	if m1, err := unix.SysvShmAttach(a, 0, 0); err == nil {
		m2, err := unix.SysvShmAttach(b, 0, 0)
		if err == nil {
			copy(m1, "hello")
			if string(m2[:5]) != "hello" {
				err = fmt.Errorf("read %q", m2[:5])
			}
			unix.SysvShmDetach(m2)
		}
		unix.SysvShmDetach(m1)
		say("own-attach", err)
	} else {
		say("own-attach", err)
	}
	_, err = unix.SysvShmCtl(a, unix.IPC_STAT, &ds)
	if err == nil && ds.Segsz != 4096 {
		err = fmt.Errorf("size %d", ds.Segsz)
	}
	say("own-stat", err)
	_, err = unix.SysvShmCtl(a, unix.IPC_RMID, nil)
	say("own-remove", err)
	_, err = unix.SysvShmCtl(a, unix.IPC_STAT, &ds)
	say("removed-stat", err)

	// A semaphore set and a queue of its own.
	sem, err := sysvCallErr(unix.SYS_SEMGET, unix.IPC_PRIVATE, 1, unix.IPC_CREAT|0o600)
	say("sem-create", err)
	if err == nil {
		op := [3]uint16{0, 1, 0} // sem_num 0, +1, no flags
		_, err = sysvCallErr(unix.SYS_SEMOP, uintptr(sem), uintptr(unsafe.Pointer(&op)), 1)
		runtime.KeepAlive(&op)
		if err == nil {
			const getVal = 12
			var v uintptr
			v, err = sysvCallErr(unix.SYS_SEMCTL, uintptr(sem), 0, getVal)
			if err == nil && v != 1 {
				err = fmt.Errorf("value %d", v)
			}
		}
		say("sem-op", err)
	}
	q, err := sysvCallErr(unix.SYS_MSGGET, unix.IPC_PRIVATE, unix.IPC_CREAT|0o600, 0)
	say("msg-create", err)
	if err == nil {
		var msg [16]byte
		msg[0] = 1 // mtype 1
		copy(msg[8:], "note")
		_, err = sysvCallErr(unix.SYS_MSGSND, uintptr(q), uintptr(unsafe.Pointer(&msg)), 4)
		if err == nil {
			var got [16]byte
			_, err = sysvCallErr6(unix.SYS_MSGRCV, uintptr(q), uintptr(unsafe.Pointer(&got)), 8, 0, unix.IPC_NOWAIT)
			if err == nil && string(got[8:12]) != "note" {
				err = fmt.Errorf("received %q", got[8:12])
			}
		}
		say("msg-roundtrip", err)
	}
	left, _ := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	fmt.Printf("left-shm=%d\nleft-sem=%d\nleft-msg=%d\n", left, sem, q)
	return 0
}

func sysvCallErr(nr, a, b, c uintptr) (uintptr, error) {
	return sysvCallErr6(nr, a, b, c, 0, 0)
}

func sysvCallErr6(nr, a, b, c, d, e uintptr) (uintptr, error) {
	r, _, errno := unix.Syscall6(nr, a, b, c, d, e, 0)
	if errno != 0 {
		return r, errno
	}
	return r, nil
}

// outsideSegment is a 0600 segment of this process's, outside any sandbox,
// holding a secret; it is removed when the test ends.
func outsideSegment(t *testing.T) (key, id int, secret string) {
	t.Helper()
	key = 0x5f000000 | os.Getpid()&0xffffff
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	if err != nil {
		t.Fatalf("shmget: %v", err)
	}
	t.Cleanup(func() { unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	secret = "SECRET-" + strconv.Itoa(os.Getpid())
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	copy(b, secret)
	unix.SysvShmDetach(b)
	return key, id, secret
}

// segmentHolds reports whether segment id still begins with secret.
func segmentHolds(t *testing.T, id int, secret string) bool {
	t.Helper()
	b, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
	if err != nil {
		t.Fatalf("the outside segment: %v", err)
	}
	defer unix.SysvShmDetach(b)
	return string(b[:len(secret)]) == secret
}

func probeLines(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

// TestSysVSupervised: without an IPC namespace, under the supervisor, a
// command neither finds nor attaches nor reads the 0600 segment of an
// outside process of its user, which it does without the sandbox; its own
// segment (met by key), semaphore set and message queue work; and what it
// left is gone once the sandbox is released.
func TestSysVSupervised(t *testing.T) {
	requireSupervisor(t)
	key, id, secret := outsideSegment(t)
	ownKey := key ^ 0x00800000
	env := envSysV + "=" + strconv.Itoa(key) + " " + strconv.Itoa(ownKey)
	t.Setenv("OUTSIDE_ID", strconv.Itoa(id))

	out, err := startProbe(t, Spec{FS: FSOff}, env)
	got := probeLines(out)
	if err != nil || got["outside-get"] != "ok" || got["outside-attach"] != "ok" || segmentHolds(t, id, secret) {
		t.Fatalf("without the sandbox the probe did not find and overwrite the outside segment; it proves nothing (%v):\n%s", err, out)
	}
	for k, v := range got {
		if n, err := strconv.Atoi(v); err == nil && strings.HasPrefix(k, "left-") && n >= 0 {
			t.Cleanup(func() {
				sysvRemove(map[string]sysvKind{"left-shm": sysvShm, "left-sem": sysvSem, "left-msg": sysvMsg}[k], n)
			})
		}
	}
	b, _ := unix.SysvShmAttach(id, 0, 0)
	copy(b, secret)
	unix.SysvShmDetach(b)

	spec := Spec{FS: FSOff, NetworkOff: true, UnixSocketsOff: true, Seccomp: true, SysVSupervised: true}
	out, err = startProbe(t, spec, env)
	got = probeLines(out)
	if err != nil {
		t.Fatalf("the probe failed: %v\n%s", err, out)
	}
	want := map[string]string{
		"outside-get": "no such file or directory", "outside-attach": "invalid argument", "outside-stat": "invalid argument",
		"stat-any":   "operation not permitted",
		"own-create": "ok", "own-get": "ok", "own-attach": "ok", "own-stat": "ok", "own-remove": "ok", "removed-stat": "invalid argument",
		"sem-create": "ok", "sem-op": "ok", "msg-create": "ok", "msg-roundtrip": "ok",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if !segmentHolds(t, id, secret) {
		t.Errorf("ESCAPE: the outside segment was overwritten under the supervisor")
	}
	if _, err := unix.SysvShmGet(ownKey, 0, 0); err == nil {
		t.Errorf("the command's key %#x was made on the host's namespace", ownKey)
	}
	left := 0
	for _, c := range []struct {
		name string
		kind sysvKind
	}{{"left-shm", sysvShm}, {"left-sem", sysvSem}, {"left-msg", sysvMsg}} {
		n, err := strconv.Atoi(got[c.name])
		if err != nil || n < 0 {
			t.Errorf("%s: %q", c.name, got[c.name])
			continue
		}
		if _, _, err := sysvStat(c.kind, n); err == nil {
			left++
			t.Errorf("%s %d outlived the sandbox", c.name, n)
			sysvRemove(c.kind, n)
		}
	}
	t.Logf("%d left", left)
}

// TestSysVObjects: the supervisor's decisions, on the kernel's objects.
func TestSysVObjects(t *testing.T) {
	arch, _ := seccompArchFor(runtime.GOARCH)
	c := kernelCallsFor(arch).sysv
	o := newSysvObjects()
	defer o.removeAll()
	outsideKey, outsideID, _ := outsideSegment(t)
	key := outsideKey ^ 0x00400000
	call := func(nr uint32, args ...uint64) (int64, unix.Errno, bool) {
		var a [6]uint64
		copy(a[:], args)
		kind, ok := sysvCall(c, nr)
		if !ok {
			t.Fatalf("nr %d is no System V call", nr)
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.decide(c, kind, nr, a)
	}
	const creat, excl = unix.IPC_CREAT, unix.IPC_EXCL
	u := func(v int) uint64 { return uint64(uint32(int32(v))) }

	if _, e, _ := call(c.shmget, u(outsideKey), 0, 0); e != unix.ENOENT {
		t.Errorf("the outside key: %v, want ENOENT", e)
	}
	if own, e, _ := call(c.shmget, u(outsideKey), 4096, creat|0o600); e != 0 || own == int64(outsideID) {
		t.Errorf("the outside key with IPC_CREAT: %d %v, want a new segment of the sandbox's", own, e)
	}
	id, e, _ := call(c.shmget, u(key), 8192, creat|0o600)
	if e != 0 || id < 0 {
		t.Fatalf("shmget create: %d %v", id, e)
	}
	for _, tc := range []struct {
		name  string
		nr    uint32
		args  []uint64
		val   int64
		errno unix.Errno
		pass  bool
	}{
		{"get again", c.shmget, []uint64{u(key), 0, 0}, id, 0, false},
		{"get smaller", c.shmget, []uint64{u(key), 4096, 0o600}, id, 0, false},
		{"get larger", c.shmget, []uint64{u(key), 16384, 0}, 0, unix.EINVAL, false},
		{"get exclusive", c.shmget, []uint64{u(key), 0, creat | excl | 0o600}, 0, unix.EEXIST, false},
		{"get executable", c.shmget, []uint64{u(key), 0, 0o700}, 0, unix.EACCES, false},
		{"get hugetlb", c.shmget, []uint64{0, 4096, creat | 0o4000 | 0o600}, 0, unix.EPERM, false},
		{"attach", c.shmat, []uint64{uint64(id), 0, 0}, 0, 0, true},
		{"attach outside", c.shmat, []uint64{u(outsideID), 0, 0}, 0, unix.EINVAL, false},
		{"detach", c.shmdt, []uint64{0x1000}, 0, 0, true},
		{"stat", c.shmctl, []uint64{uint64(id), ipcStat, 0}, 0, 0, true},
		{"stat, ipc64", c.shmctl, []uint64{uint64(id), ipcStat | ipc64, 0}, 0, 0, true},
		{"set", c.shmctl, []uint64{uint64(id), ipcSet, 0}, 0, 0, true},
		{"lock", c.shmctl, []uint64{uint64(id), shmLock, 0}, 0, 0, true},
		{"stat outside", c.shmctl, []uint64{u(outsideID), ipcStat, 0}, 0, unix.EINVAL, false},
		{"remove outside", c.shmctl, []uint64{u(outsideID), ipcRMID, 0}, 0, unix.EINVAL, false},
		{"IPC_INFO", c.shmctl, []uint64{0, 3, 0}, 0, unix.EPERM, false},
		{"SHM_STAT", c.shmctl, []uint64{0, 13, 0}, 0, unix.EPERM, false},
		{"SHM_INFO", c.shmctl, []uint64{0, 14, 0}, 0, unix.EPERM, false},
		{"SHM_STAT_ANY", c.shmctl, []uint64{0, 15, 0}, 0, unix.EPERM, false},
		{"SHM_STAT_ANY, ipc64", c.shmctl, []uint64{0, 15 | ipc64, 0}, 0, unix.EPERM, false},
		{"SEM_STAT", c.semctl, []uint64{0, 0, 18}, 0, unix.EPERM, false},
		{"SEM_INFO", c.semctl, []uint64{0, 0, 19}, 0, unix.EPERM, false},
		{"SEM_STAT_ANY", c.semctl, []uint64{0, 0, 20}, 0, unix.EPERM, false},
		{"MSG_STAT", c.msgctl, []uint64{0, 11}, 0, unix.EPERM, false},
		{"MSG_INFO", c.msgctl, []uint64{0, 12}, 0, unix.EPERM, false},
		{"MSG_STAT_ANY", c.msgctl, []uint64{0, 13}, 0, unix.EPERM, false},
		{"unknown command", c.shmctl, []uint64{uint64(id), 99, 0}, 0, unix.EPERM, false},
		{"semop of a segment's id", c.semop, []uint64{uint64(id), 0, 1}, 0, unix.EINVAL, false},
		{"no key, no create", c.msgget, []uint64{u(key), 0}, 0, unix.ENOENT, false},
	} {
		val, errno, pass := call(tc.nr, tc.args...)
		if val != tc.val || errno != tc.errno || pass != tc.pass {
			t.Errorf("%s: (%d, %v, %v), want (%d, %v, %v)", tc.name, val, errno, pass, tc.val, tc.errno, tc.pass)
		}
	}

	// IPC_RMID is done by the supervisor, which forgets the id and the key.
	if _, e, pass := call(c.shmctl, uint64(id), ipcRMID, 0); e != 0 || pass {
		t.Fatalf("remove: %v %v", e, pass)
	}
	if _, _, err := sysvStat(sysvShm, int(id)); err == nil {
		t.Errorf("the segment was not removed")
	}
	if _, e, _ := call(c.shmat, uint64(id), 0, 0); e != unix.EINVAL {
		t.Errorf("attach after removal: %v, want EINVAL", e)
	}
	if _, e, _ := call(c.shmget, u(key), 0, 0); e != unix.ENOENT {
		t.Errorf("the key after removal: %v, want ENOENT", e)
	}

	// A semaphore set and a queue; removeAll takes every object left.
	sem, e, _ := call(c.semget, u(key), 2, creat|0o600)
	if e != 0 {
		t.Fatalf("semget: %v", e)
	}
	if _, e, _ := call(c.semget, u(key), 3, 0); e != unix.EINVAL {
		t.Errorf("semget of more semaphores than the set has: %v, want EINVAL", e)
	}
	if _, e, pass := call(c.semtimedop, uint64(sem), 0, 1, 0); e != 0 || !pass {
		t.Errorf("semtimedop: %v %v", e, pass)
	}
	q, e, _ := call(c.msgget, 0, creat|0o600)
	if e != 0 {
		t.Fatalf("msgget: %v", e)
	}
	if _, e, pass := call(c.msgrcv, uint64(q), 0, 8, 0, 0); e != 0 || !pass {
		t.Errorf("msgrcv: %v %v", e, pass)
	}
	if n := o.count(); n != 3 {
		t.Errorf("%d objects, want 3 (a segment, a set, a queue)", n)
	}
	o.removeAll()
	if _, _, err := sysvStat(sysvSem, int(sem)); err == nil {
		t.Errorf("the semaphore set outlived removeAll")
	}
	if _, _, err := sysvStat(sysvMsg, int(q)); err == nil {
		t.Errorf("the queue outlived removeAll")
	}
	if _, e, _ := call(c.shmget, 0, 4096, creat|0o600); e != unix.EPERM {
		t.Errorf("a get after removeAll: %v, want EPERM", e)
	}
	if _, _, err := sysvStat(sysvShm, outsideID); err != nil {
		t.Errorf("the outside segment is gone: %v", err)
	}
}

// BenchmarkSupervisedSemop is what the supervisor adds to one System V
// call: semop in an IPC namespace of the command's own (as root) and
// supervised, the median of 2000 in one command.
func BenchmarkSupervisedSemop(b *testing.B) {
	requireSupervisor(b)
	requireRoot(b)
	for _, mode := range []string{"namespace", "supervised"} {
		b.Run(mode, func(b *testing.B) {
			spec := Spec{FS: FSOff, Seccomp: true, IPCNamespace: true}
			if mode == "supervised" {
				spec = Spec{FS: FSOff, Seccomp: true, SysVSupervised: true}
			}
			var p50 []float64
			for b.Loop() {
				out, err := startProbe(b, spec, envSemopLoop+"=2000")
				_, v, ok := strings.Cut(out, "SEMOP_P50_NS=")
				ns, perr := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || !ok || perr != nil {
					b.Fatalf("%v\n%s", err, out)
				}
				p50 = append(p50, ns)
			}
			slices.Sort(p50)
			b.ReportMetric(p50[len(p50)/2]/1e3, "µs/semop-p50")
		})
	}
}
