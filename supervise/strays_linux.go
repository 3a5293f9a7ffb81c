//go:build linux

package supervise

import (
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/stockade/stockade/internal/proctree"
	"golang.org/x/sys/unix"
)

// This process is the subreaper of every command it runs: an orphan whose
// supervisor died is reparented here, and killStrays stops it. A process that
// serves sessions starts nothing but sandbox children, so every child it did
// not start (knownChildren) is a command's leftover, whatever it did to its
// environment.

// knownChildren are the processes this package started and still waits for.
var knownChildren sync.Map

// strayMu keeps a child from being started while killStrays looks for
// unknown children: between fork and knownChildren.Store a new sandbox child
// would look like a stray.
var strayMu sync.Mutex

// becomeSubreaper makes this process the reaper of every orphan below it, so a
// command's processes cannot escape by losing their parent.
var becomeSubreaper = sync.OnceFunc(func() {
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
})

// startKnown starts cmd and records it as one of ours.
func startKnown(cmd *exec.Cmd) error {
	strayMu.Lock()
	defer strayMu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	knownChildren.Store(cmd.Process.Pid, true)
	return nil
}

// killStrays kills, with their descendants, the children of this process that
// it did not start, and reaps them. It returns how many processes it killed.
//
// It looks again after every reap, because a stray's children are reparented
// here only as it dies: a stray seen alive, then found dead, may have handed
// us children the first look could not see.
func killStrays() int {
	strayMu.Lock()
	defer strayMu.Unlock()
	self := os.Getpid()
	killed := 0
	deadline := time.Now().Add(5 * time.Second)
	for {
		children, ok := proctree.DirectChildren(self)
		if ok && allKnown(children) {
			return killed // the common case, without reading every process
		}
		killed += proctree.Kill(func(table map[int]proctree.Proc) []int {
			var victims []int
			for _, pid := range proctree.Children(table, self) {
				if _, ok := knownChildren.Load(pid); !ok {
					victims = append(victims, proctree.Subtree(table, pid)...)
				}
			}
			return victims
		}, func() { reapStrays(time.Millisecond) })
		reapStrays(time.Second)
		if !ok || time.Now().After(deadline) {
			return killed // without the children files the table scan is all we have
		}
	}
}

// reapStrays waits, at most d, until no child of this process but the known
// ones is left, reaping the stray ones: a killed process is gone only once its
// parent has waited for it, and a caller that returns before would leave it
// behind as a zombie.
func reapStrays(d time.Duration) {
	deadline := time.Now().Add(d)
	for {
		children, ok := proctree.DirectChildren(os.Getpid())
		left := 0
		for _, pid := range children {
			if _, known := knownChildren.Load(pid); known {
				continue
			}
			var ws unix.WaitStatus
			if got, _ := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got != pid {
				left++
			}
		}
		if !ok || left == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func allKnown(pids []int) bool {
	for _, pid := range pids {
		if _, ok := knownChildren.Load(pid); !ok {
			return false
		}
	}
	return true
}
