//go:build linux

// Package proctree reads the process tree from /proc, for the code that must find
// and stop every process a command left behind.
package proctree

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Table maps every live (non-zombie) process to its parent.
func Table() map[int]int {
	parents := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(e.Name()); ok {
			parents[pid] = ppid
		}
	}
	return parents
}

// parentOf reads the parent pid from /proc/PID/stat; false for zombies, which are
// dead already and wait only for their parent to reap them.
func parentOf(pid string) (int, bool) {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name is in parentheses and may itself contain ") ".
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 2 || fields[0] == "Z" {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

// Children lists the processes whose parent is pid.
func Children(table map[int]int, pid int) []int {
	var out []int
	for p, pp := range table {
		if pp == pid {
			out = append(out, p)
		}
	}
	return out
}

// Subtree returns root and every process below it.
func Subtree(table map[int]int, root int) []int {
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, Children(table, out[i])...)
	}
	return out
}

// Environ returns the value of the environment variable name in process pid as it
// was when the process started, and whether it could be read and was set.
func Environ(pid int, name string) (string, bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
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
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
