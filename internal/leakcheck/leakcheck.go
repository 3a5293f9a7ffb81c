//go:build linux

// Package leakcheck fails a test binary that leaves a process behind.
//
// Main makes the test binary a child subreaper, so every process its tests start
// stays in its tree even when the process in between exits (double forks, setsid,
// daemons). After the tests, any such process still alive is reported, killed,
// and turns the run into a failure.
package leakcheck

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stockade/stockade/internal/proctree"
	"golang.org/x/sys/unix"
)

// Main runs the tests, then fails if processes started by them are still alive.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a TestMain that has clean-up of its own to do after the
// tests: it returns the exit code instead of exiting.
func Run(m *testing.M) int {
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	code := m.Run()
	if left := waitForNone(5 * time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "leakcheck: %d process(es) left behind by the tests:\n", len(left))
		for _, p := range left {
			fmt.Fprintf(os.Stderr, "  pid %d: %s\n", p, proctree.Cmdline(p))
			unix.Kill(p, unix.SIGKILL)
		}
		code = 1
	}
	return code
}

// Children lists the live processes whose parent is this process, reaping the
// dead ones on the way.
func Children() []int {
	for {
		var ws unix.WaitStatus
		if pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil); err != nil || pid <= 0 {
			break
		}
	}
	return proctree.Children(proctree.Table(), os.Getpid())
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
