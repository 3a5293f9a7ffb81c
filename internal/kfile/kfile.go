//go:build linux

// Package kfile reads and writes the small files of the kernel's own
// filesystems (/proc, /sys, cgroupfs) with plain system calls.
//
// os.ReadFile and os.WriteFile first try to register every file with Go's
// network poller, which the kernel refuses for these files: four fcntl calls,
// an epoll_ctl and an fstat that change nothing. Under a hypervisor where a
// system call is dear, that is most of the cost of reading a /proc file, and
// stockade run reads and writes a few dozen of them before and after the
// command (cgroup, thread status, children).
package kfile

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// Read returns the content of the file at path, as os.ReadFile does; its
// errors are *fs.PathError, so errors.Is(err, fs.ErrNotExist) holds as with
// os.ReadFile.
func Read(path string) ([]byte, error) {
	fd, err := open(path, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, 2048) // most of these files are shorter: one read, then EOF
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// Write writes data to the existing file at path in one write, as a kernel
// file wants it (one value per write); it never creates the file.
func Write(path string, data []byte) error {
	fd, err := open(path, unix.O_WRONLY)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Write(fd, data)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return &fs.PathError{Op: "write", Path: path, Err: err}
		case n < len(data):
			return &fs.PathError{Op: "write", Path: path, Err: unix.EIO}
		}
		return nil
	}
}

func open(path string, mode int) (int, error) {
	for {
		fd, err := unix.Open(path, mode|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}
