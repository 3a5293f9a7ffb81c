package supervise

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Session state (the private TMPDIR, full-output files, background task logs,
// the shell's init file) lives in
//
//	ROOT/INSTANCE/SESSION
//
// ROOT is the one directory stockade owns: $XDG_RUNTIME_DIR/stockade, else
// /run/stockade as root, else $TMPDIR/stockade-UID. It must be a directory of
// this user, mode 0700, not a symbolic link; one that is not (another user
// created it first, or a link to somewhere else) is refused, never used or fixed.
//
// INSTANCE belongs to one stockade process (a server or a `stockade run`),
// which holds ROOT/INSTANCE.lock locked (flock) for as long as it lives. The
// lock goes with the process however it dies, so a later start that can take
// it knows the owner is dead: it stops any process still working in the
// directory and removes it. A live owner's lock cannot be taken, and its
// directory is left alone.
//
// The sandbox hides ROOT from every command but for its own session's
// directory (sandbox.Spec.PrivateRoot and SessionDir): sessions share a user,
// so file modes alone would not keep them apart.

// StateRoot returns the directory stockade keeps session state in, creating it
// (mode 0700) if needed, after checking that this user owns it alone.
func StateRoot() (string, error) {
	root := stateRootPath()
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("state directory %s: %w", root, err)
	}
	if err := checkPrivateDir(root); err != nil {
		return "", err
	}
	return root, nil
}

// stateRootPath is where the state root is, or would be.
func stateRootPath() string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		if checkPrivateDir(x) == nil {
			return filepath.Join(x, "stockade")
		}
	}
	if os.Geteuid() == 0 {
		if fi, err := os.Stat("/run"); err == nil && fi.IsDir() {
			return "/run/stockade"
		}
	}
	return filepath.Join(os.TempDir(), "stockade-"+strconv.Itoa(os.Geteuid()))
}

// Instance is this process's directory under the state root.
type Instance struct {
	Root string // the state root, hidden from commands
	Dir  string // this process's directory in it
	lock *os.File
}

// defaultInstance is the instance every session of this process uses.
var defaultInstance = sync.OnceValues(OpenInstance)

// DefaultInstance returns this process's instance, opening it on first use.
func DefaultInstance() (*Instance, error) { return defaultInstance() }

// OpenInstance checks the state root, cleans up after dead instances, and
// creates a new one, held by this process until Close or its death.
func OpenInstance() (*Instance, error) {
	root, err := StateRoot()
	if err != nil {
		return nil, err
	}
	CleanDeadInstances(root)
	for range 10 {
		var b [6]byte
		rand.Read(b[:])
		name := strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
		lock, err := createLocked(filepath.Join(root, name+".lock"))
		if errors.Is(err, errLockLost) || errors.Is(err, fs.ErrExist) {
			continue // taken by a cleaner between create and lock; try a new name
		}
		if err != nil {
			return nil, fmt.Errorf("state directory %s: %w", root, err)
		}
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			os.Remove(lock.Name())
			lock.Close()
			return nil, fmt.Errorf("state directory %s: %w", root, err)
		}
		return &Instance{Root: root, Dir: dir, lock: lock}, nil
	}
	return nil, fmt.Errorf("state directory %s: could not create a directory of this process in it", root)
}

// NewDir creates a private directory for one session (or run) of this instance.
func (in *Instance) NewDir(prefix string) (string, error) {
	return os.MkdirTemp(in.Dir, prefix)
}

// Close removes the instance's directory and releases it.
func (in *Instance) Close() error {
	err := os.RemoveAll(in.Dir)
	os.Remove(in.lock.Name())
	in.lock.Close()
	return err
}

// CleanDeadInstances removes the directories of instances whose process is
// gone, after stopping any process still working in them (in a dead
// stockade's process-bound cgroup, or with its cwd or TMPDIR in such a
// directory); the instances and cgroups of live processes are left alone.
func CleanDeadInstances(root string) {
	cleanDeadProcLimits()
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	type dead struct {
		dir  string
		lock *os.File
	}
	var found []dead
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || e.IsDir() {
			continue
		}
		if lock, ok := lockIfDead(filepath.Join(root, e.Name())); ok {
			found = append(found, dead{filepath.Join(root, name), lock})
		}
	}
	if len(found) == 0 {
		return
	}
	dirs := make([]string, len(found))
	for i, d := range found {
		dirs[i] = d.dir
	}
	if n := killProcessesIn(dirs); n > 0 {
		slog.Warn("stopped processes a dead stockade left running", "processes", n)
	}
	for _, d := range found {
		if err := os.RemoveAll(d.dir); err != nil {
			slog.Warn("could not remove a dead stockade's state", "dir", d.dir, "error", err)
		} else {
			os.Remove(d.dir + ".lock")
		}
		d.lock.Close()
	}
}
