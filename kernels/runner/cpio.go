package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
)

// An archive is an initramfs in the cpio "newc" format the kernel unpacks: each
// entry is a 110-byte ASCII header, the NUL-terminated name padded to 4 bytes,
// then the data padded to 4 bytes; the archive ends with "TRAILER!!!".
type archive struct {
	entries map[string]entry
}

type entry struct {
	mode         uint32 // file type and permissions, as in stat(2)
	data         []byte // regular file contents, or the symlink target
	src          string // regular file contents from this host path
	rmajor, rmin uint32 // device nodes
}

const (
	modeDir     = 0o040000
	modeFile    = 0o100000
	modeSymlink = 0o120000
	modeChar    = 0o020000
)

func newArchive() *archive { return &archive{entries: map[string]entry{}} }

// dir adds p and its parents.
func (a *archive) dir(p string) {
	for ; p != "/" && p != "."; p = path.Dir(p) {
		if _, ok := a.entries[p]; !ok {
			a.entries[p] = entry{mode: modeDir | 0o755}
		}
	}
}

func (a *archive) file(p string, perm uint32, data []byte) {
	a.dir(path.Dir(p))
	a.entries[p] = entry{mode: modeFile | perm, data: data}
}

func (a *archive) copy(p string, perm uint32, src string) {
	a.dir(path.Dir(p))
	a.entries[p] = entry{mode: modeFile | perm, src: src}
}

func (a *archive) symlink(p, target string) {
	a.dir(path.Dir(p))
	a.entries[p] = entry{mode: modeSymlink | 0o777, data: []byte(target)}
}

func (a *archive) chardev(p string, perm, major, minor uint32) {
	a.dir(path.Dir(p))
	a.entries[p] = entry{mode: modeChar | perm, rmajor: major, rmin: minor}
}

// copyTree adds the regular files, directories and symlinks under host dir src
// at p.
func (a *archive) copyTree(p, src string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	a.dir(p)
	for _, e := range ents {
		s, d := src+"/"+e.Name(), p+"/"+e.Name()
		info, err := os.Lstat(s)
		if err != nil {
			return err
		}
		switch {
		case info.IsDir():
			if err := a.copyTree(d, s); err != nil {
				return err
			}
		case info.Mode()&os.ModeSymlink != 0:
			t, err := os.Readlink(s)
			if err != nil {
				return err
			}
			a.symlink(d, t)
		case info.Mode().IsRegular():
			a.copy(d, uint32(info.Mode().Perm()), s)
		}
	}
	return nil
}

// writeTo writes the archive to w, parents before children.
func (a *archive) writeTo(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	names := make([]string, 0, len(a.entries))
	for n := range a.entries {
		names = append(names, n)
	}
	sort.Strings(names) // "/a" sorts before "/a/b"
	for i, n := range names {
		e := a.entries[n]
		data := e.data
		if e.src != "" {
			var err error
			if data, err = os.ReadFile(e.src); err != nil {
				return err
			}
		}
		if err := writeEntry(bw, uint32(i+1), n[1:], e, data); err != nil {
			return err
		}
	}
	if err := writeEntry(bw, 0, "TRAILER!!!", entry{}, nil); err != nil {
		return err
	}
	return bw.Flush()
}

func writeEntry(w *bufio.Writer, ino uint32, name string, e entry, data []byte) error {
	nlink := uint32(1)
	if e.mode&0o170000 == modeDir {
		nlink = 2
	}
	// magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor,
	// rdevmajor, rdevminor, namesize, check
	_, err := fmt.Fprintf(w, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		ino, e.mode, 0, 0, nlink, 0, len(data), 0, 0, e.rmajor, e.rmin, len(name)+1, 0)
	if err != nil {
		return err
	}
	w.WriteString(name)
	w.WriteByte(0)
	pad(w, 110+len(name)+1)
	w.Write(data)
	pad(w, len(data))
	return nil
}

func pad(w *bufio.Writer, n int) {
	for ; n%4 != 0; n++ {
		w.WriteByte(0)
	}
}
