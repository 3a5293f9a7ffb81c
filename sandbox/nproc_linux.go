//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The weaker process bound, for a user without a writable pids cgroup.
// RLIMIT_NPROC counts every task (process or thread) of the real uid on the
// host, so the limit is what the user runs now plus the bound: the command
// can start at most n more, fewer if the user starts others meanwhile. The
// kernel does not apply it to uid 0. Soft and hard limit alike, so the
// command cannot raise it again.

// setNprocLimit sets RLIMIT_NPROC to the user's tasks now plus n, never above
// the hard limit the process already has, and returns the limit set.
func setNprocLimit(n int) (int, error) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
		return 0, fmt.Errorf("process bound: %w", err)
	}
	want := uint64(userTasks(os.Getuid()) + n)
	if want > lim.Max {
		want = lim.Max
	}
	lim = unix.Rlimit{Cur: want, Max: want}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
		return 0, fmt.Errorf("process bound: setrlimit(RLIMIT_NPROC): %w", err)
	}
	return int(want), nil
}

// userTasks counts the tasks whose real uid is uid. The owner of /proc/PID is
// its effective uid, which for the user's own processes is the real one; the
// link count of /proc/PID/task is 2 plus its threads.
func userTasks(uid int) int {
	d, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	n := 0
	for _, name := range names {
		if _, err := strconv.Atoi(name); err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+name, &st) != nil || int(st.Uid) != uid {
			continue
		}
		if unix.Stat("/proc/"+name+"/task", &st) == nil && st.Nlink > 2 {
			n += int(st.Nlink) - 2
		} else {
			n++
		}
	}
	return n
}
