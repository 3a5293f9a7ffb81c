//go:build linux

package supervise

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/stockade/stockade/internal/proctree"
)

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
