//go:build unix

package supervise

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// errLockLost: the lock file was removed (by a cleaner that took it first)
// before this process could lock it.
var errLockLost = errors.New("lock file removed before it was locked")

// checkPrivateDir refuses dir unless it is a directory (not a symbolic link)
// owned by this user with no access for anyone else.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	var why string
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		why = "is a symbolic link"
	case !fi.IsDir():
		why = "is not a directory"
	case !ok:
		why = "has no owner this system reports"
	case int(st.Uid) != os.Geteuid():
		why = fmt.Sprintf("belongs to uid %d, not to this user (uid %d)", st.Uid, os.Geteuid())
	case fi.Mode().Perm()&0o077 != 0:
		why = fmt.Sprintf("has mode %04o, not 0700", fi.Mode().Perm())
	default:
		return nil
	}
	return &StateDirError{Dir: dir, Why: why}
}

// createLocked creates the file path (it must not exist) and locks it.
func createLocked(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	if !samePath(f, path) {
		f.Close()
		return nil, errLockLost
	}
	return f, nil
}

// lockIfDead takes the lock at path if no live process holds it; ok is false
// when one does (or the file is gone).
func lockIfDead(path string) (*os.File, bool) {
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil || !samePath(f, path) {
		f.Close()
		return nil, false
	}
	return f, true
}

// samePath reports whether path still names the file f is open on.
func samePath(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
