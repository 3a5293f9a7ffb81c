//go:build linux

package proctree

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDirectChildren starts children from two threads (each thread's
// children are listed in a file of its own) and checks that DirectChildren
// finds them all, and agrees with the scan of every process.
func TestDirectChildren(t *testing.T) {
	var cmds []*exec.Cmd
	start := func() {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	t.Cleanup(func() {
		for _, cmd := range cmds {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	start()
	started, checked := make(chan struct{}), make(chan struct{})
	defer close(checked)
	go func() {
		runtime.LockOSThread() // the thread, with its children file, lives until checked
		start()
		start()
		close(started)
		<-checked
	}()
	<-started
	got, ok := DirectChildren(os.Getpid())
	if !ok {
		t.Fatal("DirectChildren: not ok")
	}
	for _, cmd := range cmds {
		if !slices.Contains(got, cmd.Process.Pid) {
			t.Errorf("child %d missing from DirectChildren = %v", cmd.Process.Pid, got)
		}
	}
	for _, pid := range Children(Table(), os.Getpid()) {
		if !slices.Contains(got, pid) {
			t.Errorf("child %d (from the scan of /proc) missing from DirectChildren = %v", pid, got)
		}
	}
}

// TestAppendPids reads a list of pids longer than one read.
func TestAppendPids(t *testing.T) {
	var want []int
	var text strings.Builder
	for pid := 1; pid < 2000; pid += 7 {
		want = append(want, pid*1013)
		text.WriteString(strconv.Itoa(pid*1013) + " ")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "children"), []byte(text.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	got, ok := appendPids([]int{7}, fd, "children")
	if !ok || !slices.Equal(got, append([]int{7}, want...)) {
		t.Errorf("appendPids = %v, %v; want %v", got, ok, append([]int{7}, want...))
	}
	if _, ok := appendPids(nil, fd, "missing"); ok {
		t.Error("appendPids of a missing file: ok")
	}
}
