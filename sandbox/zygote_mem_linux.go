//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// The zygote of every session stays resident for as long as the session
// lives, mostly idle, so its memory is kept small: it runs with one P and
// without heap profiling (zygoteEnv), the packet buffer is outside the Go
// heap, the collector runs early, what the heap no longer uses goes back to
// the system once no command runs, and so do the pages of the binary that
// it read (package initialisation, the sandbox, the last commands).

// zygoteEnv is the zygote's whole environment, read by its Go runtime at
// start (the commands get theirs from each spawn, never this one). One P:
// the zygote runs one thing at a time, and each P holds spans and a mark
// worker of its own. No heap profile: nothing reads it, and its sampled
// stacks and buckets stay resident.
var zygoteEnv = []string{"GOMAXPROCS=1", "GODEBUG=memprofilerate=0,profstackdepth=0"}

// packetBuffer returns a buffer for one protocol packet (maxPacket bytes),
// mapped outside the Go heap: only the pages a packet reaches become
// resident, and it does not count as live heap, which would let the
// collector leave as much garbage again before it runs.
func packetBuffer() []byte {
	buf, err := unix.Mmap(-1, 0, maxPacket, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, maxPacket)
	}
	return buf
}

// idleRelease is called once the zygote is set up and waits for commands:
// what setting up allocated, and the pages of the binary it read, go back to
// the system; from then on the collector runs when the heap has grown by a
// tenth (each spawn allocates little; the default would keep 4 MiB of
// garbage). Call the function it returns after each event, saying whether a
// command still runs: a second after the last event, the freed heap goes
// back to the system (the runtime keeps it otherwise), when there is enough
// of it to be worth a collection, which itself brings back metadata and
// pages of the binary (idleGarbage). Only once no command runs are the
// binary's pages dropped again: the spawn path maps its own again at the
// next command, which cost about 2 ms a call when they were dropped at each
// idle, and the shell a session keeps prepared for its next call waits as a
// running command, so a session in use does not pay that. A session idle
// for idleDropAfter, prepared shell or not, drops them too: its memory is
// then the 2 MiB a waiting session may keep, and its next call pays the 2 ms.
//
// stop stops both timers (the zygote never does; it exits).
func idleRelease() (event func(running bool), stop func()) {
	debug.SetGCPercent(10)
	debug.FreeOSMemory()
	dropBinaryPages()
	var running atomic.Bool
	var allocated atomic.Uint64 // by the last collection
	allocated.Store(totalAlloc())
	t := time.AfterFunc(time.Hour, func() {
		if totalAlloc()-allocated.Load() >= idleGarbage {
			debug.FreeOSMemory()
			allocated.Store(totalAlloc())
		}
		if !running.Load() {
			dropBinaryPages()
		}
	})
	t.Stop()
	long := time.AfterFunc(time.Hour, dropBinaryPages)
	long.Stop()
	event = func(r bool) {
		running.Store(r)
		t.Reset(time.Second)
		long.Reset(idleDropAfter)
	}
	return event, func() { t.Stop(); long.Stop() }
}

// idleDropAfter is how long a session waits for its next call before the
// zygote drops the binary's pages even with a command running (the prepared
// shell, a background task): longer than an agent's calls in a burst are
// apart, shorter than its pauses to think.
const idleDropAfter = 3 * time.Second

// idleGarbage is how much the zygote allocates before an idle moment
// collects: a call (its spawn and its end) allocates about 10 KiB, and a
// collection touches more than that again (mark bits, span sets, the
// binary's type data).
const idleGarbage = 128 << 10

// totalAlloc is the bytes allocated on the heap so far.
func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// binaryDrops counts the calls of dropBinaryPages.
var binaryDrops atomic.Int64

// dropBinaryPages unmaps, from this process only, the resident pages of the
// read-only mappings of its own binary (code and read-only data): they stay
// in the page cache, shared with the server, and the next access maps them
// again with a minor fault. A mapping with a page of its own (anonymous: the
// relocated data a dynamic linker made read-only after writing it, in a cgo
// or race build) is left alone, since dropping it would bring back the
// file's content; so are the writable ones.
func dropBinaryPages() {
	binaryDrops.Add(1)
	var exe unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &exe); err != nil {
		return
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer f.Close()
	var start, end uint64 // the current mapping, when it is one to drop
	// The lines are split in place: copies of the ~800 lines would be
	// garbage (~70 KiB) that the idle zygote keeps until its next collection.
	var fields [6][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n := splitFields(sc.Bytes(), fields[:])
		if n == 6 && bytes.IndexByte(fields[0], '-') > 0 {
			// start-end perms offset dev inode path
			start, end = 0, 0
			if perms := string(fields[1]); perms != "r-xp" && perms != "r--p" {
				continue
			}
			if inode, ok := parseUint(fields[4], 10); !ok || inode != exe.Ino {
				continue
			}
			lo, hi, _ := bytes.Cut(fields[0], []byte("-"))
			s, ok1 := parseUint(lo, 16)
			e, ok2 := parseUint(hi, 16)
			if ok1 && ok2 && e > s {
				start, end = s, e
			}
			continue
		}
		if end > start && n == 3 && string(fields[0]) == "Anonymous:" {
			if string(fields[1]) == "0" {
				unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
			}
			start, end = 0, 0
		}
	}
}

// splitFields puts the space-separated fields of line into f, as many as
// fit, and returns how many it put.
func splitFields(line []byte, f [][]byte) (n int) {
	for n < len(f) {
		line = bytes.TrimLeft(line, " \t")
		if len(line) == 0 {
			break
		}
		i := bytes.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		f[n], line = line[:i], line[i:]
		n++
	}
	return n
}

// parseUint reads a number in base 10 or 16 (lowercase, as /proc writes it).
func parseUint(b []byte, base uint64) (v uint64, ok bool) {
	for _, c := range b {
		d := base
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
	}
	return v, len(b) > 0
}
