package supervise

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Protected paths (sandbox.Spec.Protected: git hooks and config, the policy
// file) are read-only mounts where the host can make them. Where it cannot
// (not root, no mount namespace, or a path created after the sandbox started),
// stockade compares what they hold before and after each command and says
// what changed. The comparison is of metadata, not contents: a write changes
// ctime, which no system call can set back, so it costs a few lstat calls
// rather than reading every hook.

// fileSig is what a snapshot keeps of one file.
type fileSig struct {
	mode         fs.FileMode
	size         int64
	mtime, ctime time.Time
	ino          uint64
	link         string
}

// ProtectedState is a snapshot of the protected paths: every file and
// directory at or below each of them, by path.
type ProtectedState map[string]fileSig

// SnapshotProtected lstat's each path and, for directories, what is below.
func SnapshotProtected(paths []string) ProtectedState {
	if len(paths) == 0 {
		return nil
	}
	st := ProtectedState{}
	for _, root := range paths {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // absent (or unreadable): absent from the snapshot
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			sig := fileSig{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime()}
			sig.ctime, sig.ino = statTimes(fi)
			if fi.Mode()&fs.ModeSymlink != 0 {
				sig.link, _ = os.Readlink(p)
			}
			if fi.IsDir() {
				sig.size, sig.mtime, sig.ctime = 0, time.Time{}, time.Time{} // its entries speak for it
			}
			st[p] = sig
			return nil
		})
	}
	return st
}

// ChangedProtected describes what differs between two snapshots, one line a
// file, paths inside workdir relative to it.
func ChangedProtected(before, after ProtectedState, workdir string) []string {
	var out []string
	name := func(p string) string {
		if rel, err := filepath.Rel(workdir, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
		return p
	}
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, name(p)+" (created)")
		case a != b:
			out = append(out, name(p)+" (changed)")
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, name(p)+" (removed)")
		}
	}
	slices.Sort(out)
	return out
}

// ProtectedNote is the note a result carries when protected files changed.
func ProtectedNote(changed []string) string {
	return "a protected file changed (it runs outside the sandbox later, for example when you run git; review it before you do): " + strings.Join(changed, ", ")
}
