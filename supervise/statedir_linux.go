//go:build linux

package supervise

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/stockade/stockade/internal/proctree"
	"github.com/stockade/stockade/sandbox"
)

// cleanDeadProcLimits stops every process left in the process-bound cgroup
// of a dead stockade, and removes the cgroup. The cgroup holds whatever a
// command started, however it detached and wherever it went (cwd and
// TMPDIR included), so this finds what killProcessesIn can miss.
func cleanDeadProcLimits() {
	if n, procs := sandbox.RemoveDeadProcLimits(ownerAlive); n > 0 {
		slog.Warn("removed the process-bound cgroups a dead stockade left", "cgroups", n, "processes", procs)
	}
}

// ownerAlive says whether the owner a process-bound cgroup is named after
// still lives. An instance (PID-RANDOM) lives while its lock is held, which
// is while its process has ROOT/INSTANCE.lock open (the lock goes with the
// last descriptor): the same fact lockIfDead asks the kernel, asked of the
// process, since the state root it is in may be another (another
// XDG_RUNTIME_DIR). A pid that is dead, or now another process's, is not
// the instance's. A bare pid (a cgroup made with no state directory) lives
// while that process does. When it cannot tell, it says alive.
func ownerAlive(owner string) bool {
	pid, instance, _ := strings.Cut(owner, "-")
	if n, err := strconv.Atoi(pid); err != nil || n <= 0 {
		return true
	}
	fds, err := os.ReadDir("/proc/" + pid + "/fd")
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil || instance == "" {
		return true
	}
	for _, fd := range fds {
		target, _ := os.Readlink("/proc/" + pid + "/fd/" + fd.Name())
		if strings.Contains(target, "/"+owner+".lock") {
			return true
		}
	}
	return false
}

// killProcessesIn kills, with their descendants, the processes that work in
// one of dirs: their cwd or TMPDIR is in it. It is for the state of a dead
// stockade, whose own supervisors would have stopped them had they lived.
func killProcessesIn(dirs []string) int {
	self := os.Getpid()
	inside := func(p string) bool {
		for _, dir := range dirs {
			if p == dir || strings.HasPrefix(p, dir+"/") {
				return true
			}
		}
		return false
	}
	return proctree.Kill(func(table map[int]proctree.Proc) []int {
		var victims []int
		for pid := range table {
			if pid == self {
				continue
			}
			cwd, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
			tmp, _ := proctree.Environ(pid, "TMPDIR")
			if inside(cwd) || inside(tmp) {
				victims = append(victims, proctree.Subtree(table, pid)...)
			}
		}
		return victims
	}, func() { time.Sleep(time.Millisecond) })
}
