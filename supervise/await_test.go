//go:build linux

package supervise

import (
	"bufio"
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestAwait runs real commands through the one supervision path: one that
// ends on its own, one that SIGTERM stops, one that ignores SIGTERM and is
// killed after the grace period, one whose caller gives up, and one that
// exits 0 when told to stop (it timed out: 124).
func TestAwait(t *testing.T) {
	for _, tt := range []struct {
		name      string
		script    string
		timeout   time.Duration
		cancel    bool
		code      int
		signal    string
		timedOut  bool
		cancelled bool
	}{
		{"exits", "echo; exit 3", 0, false, 3, "", false, false},
		{"terminated", "echo; sleep 30", 200 * time.Millisecond, false, 128 + 15, "SIGTERM", true, false},
		{"killed after grace", "trap '' TERM; echo; sleep 30 & wait", 200 * time.Millisecond, false, 128 + 9, "SIGKILL", true, false},
		{"cancelled", "echo; sleep 30", 0, true, 128 + 15, "SIGTERM", false, true},
		{"exits 0 on TERM", "trap 'exit 0' TERM; echo; sleep 30 & wait", 200 * time.Millisecond, false, 124, "", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The timeout starts once the script has set its traps and said so.
			cmd := exec.Command("bash", "-c", tt.script)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			defer syscall.Kill(-pid, syscall.SIGKILL)
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				time.AfterFunc(200*time.Millisecond, cancel)
			}
			group := func(sig syscall.Signal) { syscall.Kill(-pid, sig) }
			end := await(ctx, command[error]{exited: waited, signal: group}, tt.timeout, 300*time.Millisecond, nil)
			var res OnceResult
			if err := finish(&res, end); err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tt.code || res.Signal != tt.signal || end.timedOut != tt.timedOut || end.cancelled != tt.cancelled {
				t.Errorf("exit %d %q timedOut %v cancelled %v, want %d %q %v %v",
					res.ExitCode, res.Signal, end.timedOut, end.cancelled, tt.code, tt.signal, tt.timedOut, tt.cancelled)
			}
		})
	}
}
