//go:build linux

package refusal

import (
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// hostReadOnly reports whether path (or its nearest existing ancestor) is
// on a mount that is read-only for stockade itself, outside the sandbox.
func hostReadOnly(path string) bool {
	var st unix.Statfs_t
	for p := path; ; p = filepath.Dir(p) {
		if err := unix.Statfs(p, &st); err == nil {
			return st.Flags&unix.ST_RDONLY != 0
		}
		if p == "/" {
			return true // cannot tell: claim nothing
		}
	}
}

// hostWritable reports whether the file modes let the command's user (with
// no capabilities, as in the sandbox) read and write path if it exists, or
// create it in its nearest existing ancestor. Only then is a refusal the
// sandbox's, not the file's mode.
func hostWritable(path string) bool {
	for p := path; ; p = filepath.Dir(p) {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err == nil {
			if p == path {
				return modeAllows(st, 6) // read and write: which one failed is not known
			}
			return modeAllows(st, 3) // write and search the directory
		}
		if p == "/" {
			return false
		}
	}
}

// modeAllows checks the permission bits (want: 4 read, 2 write, 1 search)
// for this process's uid and groups, as a process without capabilities
// would be checked (root in the sandbox has none). ACLs are not read.
func modeAllows(st unix.Stat_t, want uint32) bool {
	bits := st.Mode & 0o7
	groups, _ := os.Getgroups()
	switch {
	case st.Uid == uint32(os.Geteuid()):
		bits = st.Mode >> 6 & 0o7
	case st.Gid == uint32(os.Getegid()) || slices.Contains(groups, int(st.Gid)):
		bits = st.Mode >> 3 & 0o7
	}
	return bits&want == want
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
