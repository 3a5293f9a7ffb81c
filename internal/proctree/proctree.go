//go:build linux

// Package proctree reads the process tree from /proc, for the code that must find
// and stop every process a command left behind.
package proctree

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/stockade/stockade/internal/kfile"
	"golang.org/x/sys/unix"
)

// Proc is what the tree needs to know of a process.
type Proc struct {
	PPid int // parent
	Pgid int // process group
}

// Table maps every live (non-zombie) process to its parent and group.
func Table() map[int]Proc {
	parents := map[int]Proc{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := read(e.Name()); ok {
			parents[pid] = p
		}
	}
	return parents
}

// read reads /proc/PID/stat; false for zombies, which are dead already and
// wait only for their parent to reap them.
func read(pid string) (Proc, bool) {
	stat, err := kfile.Read("/proc/" + pid + "/stat")
	if err != nil {
		return Proc{}, false
	}
	// The command name is in parentheses and may itself contain ") ".
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return Proc{}, false
	}
	// state ppid pgrp ...
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 3 || fields[0] == "Z" {
		return Proc{}, false
	}
	ppid, err1 := strconv.Atoi(fields[1])
	pgid, err2 := strconv.Atoi(fields[2])
	return Proc{PPid: ppid, Pgid: pgid}, err1 == nil && err2 == nil
}

// DirectChildren lists the children of pid (zombies included) from
// /proc/PID/task/*/children, which costs a few reads instead of a scan of every
// process. ok is false where the kernel does not offer those files. A
// zygote calls it at the end of every command, so it reads into buffers on
// its stack rather than allocating for each file and name.
func DirectChildren(pid int) (children []int, ok bool) {
	dir, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/task", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(dir)
	var dirents [2048]byte
	var path [32]byte
	for {
		n, err := unix.ReadDirent(dir, dirents[:])
		if err != nil {
			return nil, false
		}
		if n == 0 {
			return children, true
		}
		// struct linux_dirent64: ino (8 bytes), off (8), reclen (2),
		// type (1), then the name, NUL-terminated.
		for b := dirents[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, false
			}
			name := b[19:reclen]
			b = b[reclen:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if len(name) == 0 || name[0] == '.' {
				continue
			}
			p := append(append(path[:0], name...), "/children"...)
			if children, ok = appendPids(children, dir, string(p)); !ok {
				return nil, false
			}
		}
	}
}

// appendPids appends the numbers in the file at name, under the directory
// dir, to pids.
func appendPids(pids []int, dir int, name string) ([]int, bool) {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	var buf [512]byte
	pid, digits := 0, false
	for {
		n, err := unix.Read(fd, buf[:])
		if err != nil {
			return nil, false
		}
		for _, c := range buf[:n] {
			if '0' <= c && c <= '9' {
				pid, digits = pid*10+int(c-'0'), true
			} else if digits {
				pids, pid, digits = append(pids, pid), 0, false
			}
		}
		if n == 0 {
			if digits {
				pids = append(pids, pid)
			}
			return pids, true
		}
	}
}

// Children lists the processes whose parent is pid.
func Children(table map[int]Proc, pid int) []int {
	var out []int
	for p, proc := range table {
		if proc.PPid == pid {
			out = append(out, p)
		}
	}
	return out
}

// Subtree returns root and every process below it.
func Subtree(table map[int]Proc, root int) []int {
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, Children(table, out[i])...)
	}
	return out
}

// Group lists the processes of process group pgid.
func Group(table map[int]Proc, pgid int) []int {
	var out []int
	for p, proc := range table {
		if proc.Pgid == pgid {
			out = append(out, p)
		}
	}
	return out
}

// Kill sends SIGKILL to the processes victims picks from the process table,
// again and again until it picks none that are alive: a process forked
// between two looks is found by the next. pause runs between rounds, so a
// killed process is gone (or reaped) before the next look. It returns how many
// processes it killed.
func Kill(victims func(map[int]Proc) []int, pause func()) int {
	killed := map[int]bool{}
	for round := 0; round < 100; round++ {
		fresh := 0
		for _, pid := range victims(Table()) {
			if syscall.Kill(pid, syscall.SIGKILL) == nil && !killed[pid] {
				killed[pid] = true
				fresh++
			}
		}
		if fresh == 0 {
			break
		}
		pause()
	}
	return len(killed)
}

// Environ returns the value of the environment variable name in process pid as it
// was when the process started, and whether it could be read and was set.
func Environ(pid int, name string) (string, bool) {
	env, err := kfile.Read("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", false
	}
	prefix := []byte(name + "=")
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return string(v), true
		}
	}
	return "", false
}

// Cmdline returns the command line of pid, for messages.
func Cmdline(pid int) string {
	b, _ := kfile.Read("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
