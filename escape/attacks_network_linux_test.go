//go:build linux

package escape

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stockade/stockade/degrade"
)

// requireNetNS skips where stockade cannot give a session a network
// namespace of its own (not root with CAP_SYS_ADMIN).
func requireNetNS(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if python == "" {
		t.Skip("no python3")
	}
	if !degrade.Detect().CanNetNS() {
		t.Skip("no network namespace for a session on this host (needs root with CAP_SYS_ADMIN)")
	}
}

// stockadeRun runs a script through `stockade run --json` with the escape
// suite's policy, in dir, with extra environment; it returns the JSON result
// and the stderr.
func stockadeRun(t *testing.T, ctx context.Context, dir, script string, vars ...string) (*runJSON, string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, stockade, "run", "--json", "--policy", filepath.Join(dataDir, "allow-all.toml"), "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"PY=" + python}, vars...)...)
	// Stopped as a user stops it: stockade run stops its command on SIGTERM.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 20 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	var j runJSON
	if err := json.Unmarshal(out, &j); err != nil || j.Enforcement == nil {
		t.Fatalf("no JSON result from stockade run (%v):\n%s\n%s", err, out, stderr.String())
	}
	return &j, stderr.String()
}

// TestOwnLoopback: with the network off, a command serves and calls its
// session's own loopback, over IPv4 and IPv6.
func TestOwnLoopback(t *testing.T) {
	requireNetNS(t)
	j, stderr := stockadeRun(t, context.Background(), t.TempDir(), readScript(t, "netns-own-loopback"))
	if j.ExitCode != 0 || !strings.Contains(stderr, "127.0.0.1 pong") || !strings.Contains(stderr, "::1 pong") {
		t.Fatalf("the session's own loopback does not work: exit %d, error %q\n%s", j.ExitCode, j.Error, stderr)
	}
	if j.Applied == nil || !j.Applied.NetNS {
		t.Fatalf("applied says no network namespace: %+v", j.Applied)
	}
}

// TestOtherSessionLoopback: a server that one session runs on loopback is
// out of reach of another session's commands; without the sandbox, the same
// two processes meet.
func TestOtherSessionLoopback(t *testing.T) {
	requireNetNS(t)
	for _, sandboxed := range []bool{false, true} {
		name := map[bool]string{false: "unsandboxed", true: "sandboxed"}[sandboxed]
		t.Run(name, func(t *testing.T) {
			victimDir, attackerDir := t.TempDir(), t.TempDir()
			port := freePort(t, "127.0.0.1")
			vars := []string{"PORT=" + port, "VICTIM=" + victimDir}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			victimDone := make(chan struct{})
			go func() {
				defer close(victimDone)
				if sandboxed {
					stockadeRun(t, ctx, victimDir, readScript(t, "netns-victim"), vars...)
					return
				}
				cmd := exec.CommandContext(ctx, "bash", "-c", readScript(t, "netns-victim"))
				cmd.Dir, cmd.Env = victimDir, append(os.Environ(), append([]string{"PY=" + python}, vars...)...)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
				cmd.Run()
			}()
			for {
				if _, err := os.Stat(filepath.Join(victimDir, "ready")); err == nil {
					break
				}
				select {
				case <-victimDone:
					t.Fatal("the victim ended before it listened")
				case <-time.After(20 * time.Millisecond):
				}
			}
			attack := readScript(t, "netns-other-session")
			exit := 0
			if sandboxed {
				j, _ := stockadeRun(t, ctx, attackerDir, attack, vars...)
				exit = j.ExitCode
			} else {
				cmd := exec.CommandContext(ctx, "bash", "-c", attack)
				cmd.Dir, cmd.Env = attackerDir, append(os.Environ(), append([]string{"PY=" + python}, vars...)...)
				if cmd.Run() != nil {
					exit = cmd.ProcessState.ExitCode()
				}
			}
			// Let the victim see a connection that got through, then stop it.
			time.Sleep(200 * time.Millisecond)
			_, hitErr := os.Stat(filepath.Join(victimDir, "hit"))
			hit := hitErr == nil
			cancel()
			<-victimDone
			switch {
			case !sandboxed && !hit:
				t.Fatalf("the attack is broken: without the sandbox it did not reach the victim (exit %d)", exit)
			case sandboxed && hit:
				t.Fatalf("ESCAPE: a command reached another session's loopback server")
			case sandboxed && exit == 0:
				t.Fatalf("inconclusive: the attack exited 0 without reaching the victim")
			}
		})
	}
}
