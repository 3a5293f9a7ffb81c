//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Landlock (up to ABI 7 at least) has no access right for file metadata: a
// command may chmod, chown, utimes and setxattr any file it owns wherever it
// can reach it, and as uid 0 it owns most of the system. Without capabilities
// chown fails, but `chmod 4777 /usr/bin/x`, `chmod 000 /etc/passwd`, `touch -d`
// and user.* xattrs would not, nor, worse, a chmod of root-owned files in /proc
// and /sys that the kernel guards by their mode alone (/proc/sysrq-trigger,
// cgroup files). A read-only mount refuses all of these with EROFS.
//
// So when the child can (CAP_SYS_ADMIN, before the capability drop), the thread
// that starts commands gets a mount namespace of its own, private (nothing
// propagates in or out), in which every mount is read-only except the writable
// roots:
//
//  1. unshare(CLONE_NEWNS) on the calling thread (it also gives the thread a
//     root and cwd of its own; the Go runtime starts new threads from a clean
//     template thread, never from a locked one, so no other thread joins);
//  2. every mount private, recursively (mount_setattr);
//  3. each writable root cloned, with the mounts below it, as a detached
//     tree that keeps their flags (open_tree OPEN_TREE_CLONE|AT_RECURSIVE);
//  4. every mount read-only, recursively (mount_setattr MOUNT_ATTR_RDONLY),
//     which keeps each mount's other flags (nosuid, nodev, noexec, atime) as
//     they are, so no /proc/self/mountinfo walk is needed;
//  5. the clones moved onto the writable roots (move_mount), and the cwd
//     taken again so that a cwd inside a writable root is on its clone.
//
// Device files stay writable on a read-only mount (/dev/null works), as do
// FIFOs and sockets; a read-only mount refuses only changes to the filesystem.
// The capability drop that follows makes it permanent (no remount without
// CAP_SYS_ADMIN), and so does Landlock, which refuses any mount change.
//
// It costs about 0.1 ms (unshare copies the mount table). What changes for a
// command: writes outside the writable roots fail with EROFS rather than
// EACCES; rename and link between two writable roots fail with EXDEV (each is
// a mount of its own; mv copies instead); mounts made on the host later (an
// automounted directory included) are not seen.

// readOnlyMountsRoots is what stays writable under spec, real paths, outermost
// only; ok is false when the whole filesystem is (a writable root "/").
func readOnlyMountsRoots(spec Spec) (roots []string, ok bool, err error) {
	for _, p := range writableRoots(spec) {
		if p == "" {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, false, fmt.Errorf("writable root %s: %w", p, err)
		}
		if real == "/" {
			return nil, false, nil
		}
		roots = append(roots, real)
	}
	// Outermost first; a root inside another is already on its clone.
	slices.SortFunc(roots, func(a, b string) int { return len(a) - len(b) })
	var outer []string
	for _, r := range roots {
		inside := false
		for _, o := range outer {
			if r == o || strings.HasPrefix(r, o+"/") {
				inside = true
				break
			}
		}
		if !inside {
			outer = append(outer, r)
		}
	}
	return outer, true, nil
}

// errNoMountNS is readOnlyMounts failing before it changed anything, because
// the system calls it needs are missing (ENOSYS) or refused (EPERM, from a
// container's seccomp profile for one): the mounts are as they were, and the
// command may run with Landlock alone.
var errNoMountNS = errors.New("read-only mounts unavailable")

// readOnlyMounts makes every mount read-only for the calling thread, and the
// processes it starts, except roots (see above). It must run on the locked
// thread that starts commands, with CAP_SYS_ADMIN, before Landlock is enforced.
// An error that wraps errNoMountNS changed nothing; any other may leave the
// mounts half changed, and the command must not run.
func readOnlyMounts(roots []string) error {
	_, err := readOnlyMountsProtecting(roots, nil)
	return err
}

// readOnlyMountsProtecting is readOnlyMounts, and then makes the protected
// paths inside the writable roots read-only mounts of their own (see
// protectPaths). It returns the paths it protected.
func readOnlyMountsProtecting(roots, protected []string) ([]string, error) {
	if err := readOnlyMountsOnly(roots); err != nil {
		return nil, err
	}
	return protectPaths(roots, protected)
}

func readOnlyMountsOnly(roots []string) error {
	unavailable := func(err error) bool { return errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) }
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		if unavailable(err) {
			return fmt.Errorf("%w: unshare(CLONE_NEWNS): %w", errNoMountNS, err)
		}
		return fmt.Errorf("read-only mounts: unshare(CLONE_NEWNS): %w", err)
	}
	// From here on the thread has a mount namespace of its own: a failure
	// changes nothing outside it.
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE,
		&unix.MountAttr{Propagation: unix.MS_PRIVATE}); err != nil {
		if unavailable(err) {
			return fmt.Errorf("%w: mount_setattr: %w", errNoMountNS, err)
		}
		return fmt.Errorf("read-only mounts: making / private: %w", err)
	}
	clones := make([]int, 0, len(roots))
	defer func() {
		for _, fd := range clones {
			unix.Close(fd)
		}
	}()
	for _, r := range roots {
		fd, err := unix.OpenTree(unix.AT_FDCWD, r, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("read-only mounts: cloning writable root %s: %w", r, err)
		}
		clones = append(clones, fd)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE,
		&unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("read-only mounts: making / read-only: %w", err)
	}
	for i, r := range roots {
		if err := unix.MoveMount(clones[i], "", unix.AT_FDCWD, r, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("read-only mounts: mounting writable root %s: %w", r, err)
		}
	}
	// The cwd still refers to the mount below a clone: look it up again.
	if wd, err := unix.Getwd(); err == nil {
		for _, r := range roots {
			if wd == r || strings.HasPrefix(wd, r+"/") {
				unix.Chdir(wd)
				break
			}
		}
	}
	// Check: / is read-only now, each writable root is not (unless it was
	// read-only to begin with, which statfs cannot tell apart; Landlock's
	// grant is what makes a root writable, and it is checked by the tests).
	var st unix.Statfs_t
	if err := unix.Statfs("/", &st); err != nil {
		return fmt.Errorf("read-only mounts: statfs /: %w", err)
	}
	if st.Flags&unix.ST_RDONLY == 0 {
		return errors.New("read-only mounts: / is still writable after the remount")
	}
	return nil
}

// openProcSelf opens /proc/self for the Landlock probe before the mounts are
// made read-only: the probe opens a file in it for writing and wants Landlock's
// EACCES, which a read-only /proc would pre-empt with EROFS. The descriptor
// keeps the mount it was opened on, outside the new namespace.
func openProcSelf() (int, error) {
	fd, err := unix.Open("/proc/self", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening /proc/self: %w", err)
	}
	return fd, nil
}

// protectPaths makes each protected path that exists inside a writable root
// a read-only bind mount of itself: writing, replacing (rename onto a mount
// point is EBUSY), removing and, in a directory, creating files there all
// fail. Every directory between the writable root and the path becomes a
// mount point too, so the path cannot be moved away with its parent
// (`mv .git .git.old; mkdir .git`) either: a mount point cannot be renamed
// or removed. Paths that do not exist are left to the snapshot the caller
// compares after each command. It returns the paths it protected.
func protectPaths(roots, protected []string) ([]string, error) {
	var done []string
	pinned := map[string]bool{}
	for _, p := range protected {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // not there (yet)
		}
		root := ""
		for _, r := range roots {
			if strings.HasPrefix(real, r+"/") {
				root = r
				break
			}
		}
		if root == "" {
			continue // outside the writable roots: read-only already
		}
		// The directories on the way, outermost first.
		var way []string
		for d := filepath.Dir(real); d != root && strings.HasPrefix(d, root+"/"); d = filepath.Dir(d) {
			way = append([]string{d}, way...)
		}
		for _, d := range way {
			if pinned[d] {
				continue
			}
			if err := bindSelf(d, false); err != nil {
				return done, fmt.Errorf("protecting %s: %w", p, err)
			}
			pinned[d] = true
		}
		if err := bindSelf(real, true); err != nil {
			return done, fmt.Errorf("protecting %s: %w", p, err)
		}
		pinned[real] = true
		done = append(done, p)
	}
	return done, nil
}

// bindSelf mounts a clone of path (with the mounts below it) onto path,
// read-only if readOnly.
func bindSelf(path string, readOnly bool) error {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return fmt.Errorf("open_tree %s: %w", path, err)
	}
	defer unix.Close(fd)
	if readOnly {
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE,
			&unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
			return fmt.Errorf("mount_setattr %s: %w", path, err)
		}
	}
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount %s: %w", path, err)
	}
	return nil
}
