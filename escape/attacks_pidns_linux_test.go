//go:build linux

package escape

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What root's `stockade run` (which forks its command from a thread of its
// own) leaves when it is SIGKILLed, and what its command sees of the PID
// namespace it runs in.

// detach leaves three sleepers that lost their parent and their session:
// setsid and a fork (with the cwd and TMPDIR changed), nohup and disown, a
// double fork in a new session. The shell then waits in the foreground.
const detach = `setsid sh -c 'cd /; TMPDIR=/ exec sleep 1000 </dev/null >/dev/null 2>&1' &
(nohup sleep 1001 </dev/null >/dev/null 2>&1 & disown)
setsid bash -c '(sleep 1002 </dev/null >/dev/null 2>&1 &)'
sleep 1003`

// sleepers lists the live processes marked with run (see marked) that are
// `sleep N`, by N.
func sleepers(run string) map[string]int {
	out := map[string]int{}
	for _, pid := range marked(run) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if args := bytes.Split(bytes.TrimSuffix(b, []byte{0}), []byte{0}); len(args) == 2 && string(args[0]) == "sleep" {
			out[string(args[1])] = pid
		}
	}
	return out
}

// waitSleepers waits until the four sleepers of detach run, and returns them.
func waitSleepers(t *testing.T, run string) map[string]int {
	t.Helper()
	var s map[string]int
	waitFor(t, "the sleepers of the command", func() bool { s = sleepers(run); return len(s) == 4 })
	return s
}

// TestKilledRunNamespace: root's `stockade run` is SIGKILLed while its command
// has detached sleepers (setsid, nohup, a double fork). With a PID namespace
// of its own, they die with stockade at once, before any later start of
// stockade (which used to be what stopped them). Without stockade, the same
// sleepers outlive their killed parent.
func TestKilledRunNamespace(t *testing.T) {
	requireSuite(t)
	root := ident{name: "root", uid: 0, stockade: stockade}

	control := randHex(8)
	parent := exec.Command("bash", "-c", detach)
	parent.Dir = root.dir(t)
	parent.Env = append(os.Environ(), runVar+"="+control)
	parent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	must(t, parent.Start())
	before := waitSleepers(t, control)
	parent.Process.Kill()
	parent.Wait()
	survived := len(sleepers(control))
	for _, pid := range before {
		kill(pid)
	}
	if survived < 3 {
		t.Fatalf("without stockade only %d sleepers outlived their killed parent; the test proves nothing", survived)
	}

	run := randHex(8)
	cmd := root.command(stockade, "run", "--policy", root.policy(t), "-c", detach)
	cmd.Dir = root.dir(t)
	cmd.Env = append(os.Environ(), runVar+"="+run, "XDG_RUNTIME_DIR="+root.dir(t), "HOME="+root.dir(t))
	must(t, cmd.Start())
	waitSleepers(t, run)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// No other stockade starts from here on: the kernel alone must stop them.
	deadline := time.Now().Add(10 * time.Second)
	for len(sleepers(run)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for n, pid := range sleepers(run) {
		t.Errorf("ESCAPE: sleep %s (pid %d) outlived the killed stockade run", n, pid)
		kill(pid)
	}
}

// hostPids translates pids that processes of a run marked with run (see
// marked) recorded from inside, where root's `stockade run` gives its command
// a PID namespace of its own, into the host's pids, through NSpid; a pid no
// marked process has is kept as it is. The processes must be alive.
func hostPids(run string, recorded []int) []int {
	inner := map[int]int{}
	for _, pid := range marked(run) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		for line := range strings.SplitSeq(string(b), "\n") {
			if f := strings.Fields(strings.TrimPrefix(line, "NSpid:")); strings.HasPrefix(line, "NSpid:") && len(f) > 0 {
				if n, err := strconv.Atoi(f[len(f)-1]); err == nil {
					inner[n] = pid
				}
			}
		}
	}
	out := make([]int, len(recorded))
	for i, p := range recorded {
		out[i] = p
		if h, ok := inner[p]; ok {
			out[i] = h
		}
	}
	return out
}
