package supervise

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/sandbox"
)

// TestPreparedShellIsSandboxed: a prepared shell is in the session's sandbox
// like any command: it writes in the workdir, not beside it.
func TestPreparedShellIsSandboxed(t *testing.T) {
	abi, _ := hostfacts.LandlockVersion()
	if abi == 0 {
		t.Skip("no Landlock here")
	}
	root := t.TempDir()
	work := filepath.Join(root, "work")
	os.Mkdir(work, 0o755)
	s, err := NewSession(Config{Workdir: work, preparedIdle: time.Hour,
		Env:  []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + work},
		Spec: sandbox.Spec{FS: sandbox.FSWorkspaceWrite, LandlockABI: abi}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	got := prepRun(t, s, "touch inside && touch ../outside; echo $?")
	if got.Stdout.Text != "1\n" || !strings.Contains(got.Stderr.Text, "outside") {
		t.Errorf("stdout %q stderr %q", got.Stdout.Text, got.Stderr.Text)
	}
	if _, err := os.Stat(filepath.Join(work, "inside")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(root, "outside")); err == nil {
		t.Error("the prepared shell wrote beside the workdir")
	}
}

// TestPreparedScriptCannotBeInjected: another command of the session (a
// background task) cannot write into the descriptor on which the prepared
// shell waits for its script, so what the next call runs is the script the
// call sent, and nothing before it.
func TestPreparedScriptCannotBeInjected(t *testing.T) {
	s := newPreparedSession(t)
	waitPrepared(t, s)
	s.mu.Lock()
	pid := s.prep.cmd.Pid
	s.mu.Unlock()
	task, err := s.Start(Request{Script: fmt.Sprintf("printf ':echo injected; ' >/proc/%d/fd/4; echo rc=$?", pid)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Output(context.Background(), task.ID, nil, time.Minute)
	if err != nil || st.Status != "completed" {
		t.Fatalf("the task: %v %+v", err, st)
	}
	if !strings.Contains(st.Output.Text, "rc=1") {
		t.Errorf("the task opened the prepared shell's script descriptor: %q", st.Output.Text)
	}
	got := prepRun(t, s, "echo mine")
	if got.Stdout.Text != "mine\n" || got.Stderr.Text != "" {
		t.Errorf("the call ran %q %q", got.Stdout.Text, got.Stderr.Text)
	}
}
