// Package leakcheck fails a test binary that leaves a process behind.
//
// Main makes the test binary a child subreaper, so every process its tests start
// stays in its tree even when the process in between exits (double forks, setsid,
// daemons). After the tests, any such process still alive is reported, killed,
// and turns the run into a failure.
package leakcheck

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Main runs the tests, then fails if processes started by them are still alive.
func Main(m *testing.M) {
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	code := m.Run()
	if left := waitForNone(5 * time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "leakcheck: %d process(es) left behind by the tests:\n", len(left))
		for _, p := range left {
			fmt.Fprintf(os.Stderr, "  pid %d: %s\n", p, cmdline(p))
			unix.Kill(p, unix.SIGKILL)
		}
		code = 1
	}
	os.Exit(code)
}

// Children lists the live processes whose parent is this process.
func Children() []int {
	self := os.Getpid()
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 || f[0] == "Z" {
			if len(f) >= 2 && f[0] == "Z" {
				var ws unix.WaitStatus
				unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			}
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == self {
			out = append(out, pid)
		}
	}
	return out
}

// waitForNone gives processes that are already being stopped a moment to exit.
func waitForNone(d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := Children()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
