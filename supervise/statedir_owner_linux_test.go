//go:build linux

package supervise

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestOwnerAlive: a process-bound cgroup's owner lives while its process
// holds the instance's lock file open, and not once the pid is dead or
// belongs to a process that does not hold it.
func TestOwnerAlive(t *testing.T) {
	root := privateDir(t)
	const instance = "1-abcdef012345"
	lock, err := createLocked(filepath.Join(root, instance+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	self := strconv.Itoa(os.Getpid())
	if owner := self + "-abcdef012345"; ownerAlive(owner) {
		t.Errorf("%s is alive, though this process holds no lock of that name", owner)
	}
	// This process holds ROOT/1-abcdef012345.lock: as the instance of pid 1
	// it is not (pid 1 does not hold it); named with this pid, it is.
	if err := os.Rename(lock.Name(), filepath.Join(root, self+"-abcdef012345.lock")); err != nil {
		t.Fatal(err)
	}
	if owner := self + "-abcdef012345"; !ownerAlive(owner) {
		t.Errorf("%s is dead, though this process holds its lock", owner)
	}
	if ownerAlive("1-abcdef012345") {
		t.Errorf("pid 1 is said to hold a lock only this process holds")
	}
	if !ownerAlive(self) {
		t.Errorf("a bare pid of a live process is said to be dead")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if gone := strconv.Itoa(dead.Process.Pid); ownerAlive(gone) || ownerAlive(gone+"-abcdef012345") {
		t.Errorf("the owner %s is alive after its process exited", gone)
	}
}
