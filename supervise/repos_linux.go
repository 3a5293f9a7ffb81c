package supervise

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A session's watch learns from inotify which directories had entries
// added, removed or renamed since its previous look, and reads only those:
// a look then costs nothing for a large tree that did not change, instead
// of an lstat a directory. A directory it could not watch (the user's
// inotify limits) is checked by its ctime, as without inotify; a queue
// that overflowed makes the next look check every directory that way.

// dirEvents is an inotify instance that watches directories for changes of
// their entries.
type dirEvents struct {
	fd      int
	paths   map[int32][]string // watch descriptor -> the directories it watches
	watched map[string]bool
	dirty   map[string]bool // directories changed since the last drain
	all     bool            // the queue overflowed: trust no watch
}

const dirEventMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

func newDirEvents() *dirEvents {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil // no instance left for this user: ctime alone
	}
	return &dirEvents{fd: fd, paths: map[int32][]string{}, watched: map[string]bool{}, dirty: map[string]bool{}}
}

// watch starts watching dir; false if it cannot.
func (e *dirEvents) watch(dir string) bool {
	if e == nil {
		return false
	}
	wd, err := unix.InotifyAddWatch(e.fd, dir, dirEventMask)
	if err != nil {
		return false
	}
	if !e.watched[dir] {
		e.watched[dir] = true
		e.paths[int32(wd)] = append(e.paths[int32(wd)], dir)
	}
	return true
}

// drain reads what happened since the last drain.
func (e *dirEvents) drain() {
	if e == nil {
		return
	}
	var buf [64 << 10]byte
	for {
		n, err := unix.Read(e.fd, buf[:])
		if err != nil || n <= 0 {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return // EAGAIN: nothing more
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				e.all = true
				continue
			}
			for _, p := range e.paths[ev.Wd] {
				e.dirty[p] = true
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				for _, p := range e.paths[ev.Wd] {
					delete(e.watched, p)
				}
				delete(e.paths, ev.Wd)
			}
		}
	}
}

// unchanged says whether dir is watched and no event came for it since the
// last drain before the previous look.
func (e *dirEvents) unchanged(dir string) bool {
	if e == nil || e.all || e.dirty[dir] {
		return false
	}
	return e.watched[dir]
}

// looked forgets the events a look has taken into account.
func (e *dirEvents) looked() {
	if e != nil {
		clear(e.dirty)
		e.all = false
	}
}

func (e *dirEvents) close() {
	if e != nil {
		unix.Close(e.fd)
	}
}

// eachEntry calls fn with the name and type (fs.ModeDir, fs.ModeSymlink or
// 0) of every entry of the directory p but . and ..; name is valid only
// during the call. It reads with plain system calls into buf: os.ReadDir
// would first try the poller on each directory and allocate an entry for
// each file, which a look of a large tree (a node_modules) pays thousands
// of times for the few entries it wants.
func eachEntry(p string, buf []byte, fn func(name []byte, typ fs.FileMode)) error {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "getdents", Path: p, Err: err}
		}
		if n <= 0 {
			return nil
		}
		// struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return &fs.PathError{Op: "getdents", Path: p, Err: unix.EIO}
			}
			kind, name := buf[off+18], buf[off+19:off+reclen]
			off += reclen
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if string(name) == "." || string(name) == ".." {
				continue
			}
			fn(name, entryType(fd, name, kind))
		}
	}
}

// entryType is the type of a directory entry, asked of the file system where
// the entry does not say (DT_UNKNOWN).
func entryType(dir int, name []byte, kind uint8) fs.FileMode {
	if kind == unix.DT_UNKNOWN {
		var st unix.Stat_t
		if unix.Fstatat(dir, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return 0
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			kind = unix.DT_DIR
		case unix.S_IFLNK:
			kind = unix.DT_LNK
		}
	}
	switch kind {
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	}
	return 0
}
