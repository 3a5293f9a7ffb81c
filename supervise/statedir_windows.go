package supervise

import (
	"errors"
	"fmt"
	"os"
)

var errLockLost = errors.New("lock file removed before it was locked")

// checkPrivateDir: Windows has no modes to check; the directory must at least
// be a directory and not a link.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return &StateDirError{Dir: dir, Why: "is not a plain directory"}
	}
	return nil
}

// createLocked: an open file cannot be removed on Windows, which is the lock.
func createLocked(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// lockIfDead: a live owner's lock file cannot be removed; the caller's removal
// fails, so nothing of a live instance is cleaned. The directory of a dead
// one is left to the next start that can remove its lock file.
func lockIfDead(path string) (*os.File, bool) {
	if err := os.Remove(path); err != nil {
		return nil, false
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	return f, err == nil
}
