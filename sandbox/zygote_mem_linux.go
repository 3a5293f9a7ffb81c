//go:build linux

package sandbox

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The zygote of every session stays resident for as long as the session
// lives, mostly idle, so its memory is kept small: the packet buffer is
// outside the Go heap, the collector runs early, what the heap no longer
// uses goes back to the system once no command runs, and so do, once, the
// pages of the binary that setting up read (package initialisation, the
// sandbox).

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
// garbage). Call the function it returns after each event: a second after
// the last one, the freed heap goes back to the system (the runtime keeps it
// otherwise), whether or not a command still runs (the shell a session keeps
// prepared for its next call waits as a running command). The binary's
// pages are dropped only here: the spawn path maps its own again at the next
// command, which cost about 2 ms a call when they were dropped at each idle.
func idleRelease() func() {
	debug.SetGCPercent(10)
	debug.FreeOSMemory()
	dropBinaryPages()
	t := time.AfterFunc(time.Hour, debug.FreeOSMemory)
	t.Stop()
	return func() { t.Reset(time.Second) }
}

// dropBinaryPages unmaps, from this process only, the resident pages of the
// read-only mappings of its own binary (code and read-only data): they stay
// in the page cache, shared with the server, and the next access maps them
// again with a minor fault. A mapping with a page of its own (anonymous: the
// relocated data a dynamic linker made read-only after writing it, in a cgo
// or race build) is left alone, since dropping it would bring back the
// file's content; so are the writable ones.
func dropBinaryPages() {
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
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 6 && strings.Contains(fields[0], "-") {
			// start-end perms offset dev inode path
			start, end = 0, 0
			if fields[1] != "r-xp" && fields[1] != "r--p" {
				continue
			}
			if inode, err := strconv.ParseUint(fields[4], 10, 64); err != nil || inode != exe.Ino {
				continue
			}
			lo, hi, _ := strings.Cut(fields[0], "-")
			s, err1 := strconv.ParseUint(lo, 16, 64)
			e, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil && e > s {
				start, end = s, e
			}
			continue
		}
		if end > start && len(fields) == 3 && fields[0] == "Anonymous:" {
			if fields[1] == "0" {
				unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
			}
			start, end = 0, 0
		}
	}
}
