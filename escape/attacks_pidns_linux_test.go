//go:build linux

package escape

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
// stockade (which used to be what stopped them). Also on a host without a
// pids cgroup, where no later start (of this test or another) could find
// them by their cgroup. Without stockade, the same sleepers outlive their
// killed parent.
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

	for _, c := range []struct {
		name string
		args []string
	}{
		{"pids cgroup", nil},
		{"no pids cgroup", []string{"--simulate-host", hostWithoutPidsCgroup(t, root)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := randHex(8)
			args := append(append([]string{"run", "--policy", root.policy(t)}, c.args...), "-c", detach)
			cmd := root.command(stockade, args...)
			cmd.Dir = root.dir(t)
			cmd.Env = append(os.Environ(), runVar+"="+run, "XDG_RUNTIME_DIR="+root.dir(t), "HOME="+root.dir(t))
			must(t, cmd.Start())
			waitSleepers(t, run)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			// No stockade of this test starts from here on: the kernel
			// alone must stop them.
			deadline := time.Now().Add(10 * time.Second)
			for len(sleepers(run)) > 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			for n, pid := range sleepers(run) {
				t.Errorf("ESCAPE: sleep %s (pid %d) outlived the killed stockade run", n, pid)
				kill(pid)
			}
		})
	}
}

// hostWithoutPidsCgroup writes, for --simulate-host, this host as `stockade
// doctor --json` sees it, without its pids cgroup.
func hostWithoutPidsCgroup(t *testing.T, id ident) string {
	t.Helper()
	cmd := id.command(stockade, "doctor", "--json", "--policy", id.policy(t))
	cmd.Dir = id.dir(t)
	out, _ := cmd.Output()
	var d struct {
		Host map[string]any `json:"host"`
	}
	if err := json.Unmarshal(out, &d); err != nil || d.Host == nil {
		t.Fatalf("stockade doctor --json: %v\n%s", err, out)
	}
	delete(d.Host, "pids_cgroup")
	b, _ := json.Marshal(d.Host)
	file := filepath.Join(id.dir(t), "host.json")
	must(t, os.WriteFile(file, b, 0o644))
	return file
}

// hostPids translates pids that processes of a run marked with run (see
// marked) recorded from inside, where root's `stockade run` gives its command
// a PID namespace of its own, into the host's pids, through NSpid. The
// processes must be alive; it waits until each is seen (a process in the
// middle of an exec may not show its environment).
func hostPids(t *testing.T, run string, recorded []int) []int {
	t.Helper()
	out := make([]int, len(recorded))
	waitFor(t, "the recorded processes", func() bool {
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
		for i, p := range recorded {
			h, ok := inner[p]
			if !ok {
				return false
			}
			out[i] = h
		}
		return true
	})
	return out
}

// TestRunNamespaceWork: ordinary work in one root `stockade run`, in its PID
// namespace: git, a Go test that serves and calls its loopback with
// httptest, and a dev server started in the background with & and called.
// /proc is the namespace's: the shell's $! is there, the host's processes
// are not, and its init (pid 1) is stockade, forked. The result says the namespace was applied, the dev server that
// was left running is stopped when the shell exits, and nothing of the run
// is left when stockade returns.
func TestRunNamespaceWork(t *testing.T) {
	requireNetNS(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := buildHTTPTest(t)
	const script = `set -e
git init -q repo && cd repo && echo a > a && git add a && git commit -qm a && echo "commits=$(git log --oneline | wc -l)" && cd ..
./httptest.test -test.v
"$PY" -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1 &
server=$!
for i in $(seq 100); do
  if exec 3<>/dev/tcp/127.0.0.1/$PORT; then printf 'GET / HTTP/1.0\r\n\r\n' >&3; echo "dev=$(head -1 <&3)"; break; fi 2>/dev/null
  sleep 0.1
done
echo "server=$(tr '\0' ' ' < /proc/$server/cmdline)"
echo "init=$(cat /proc/1/comm)"
if test -e /proc/$HOSTPID; then echo "host-""visible"; fi`
	mark := randHex(8)
	vars := append([]string{"PORT=" + freePort(t, "127.0.0.1"), "HOSTPID=" + strconv.Itoa(os.Getpid()), runVar + "=" + mark}, gitIdentity...)
	j, stderr := stockadeRun(t, t.Context(), dir, script, vars...)
	for _, want := range []string{"commits=1", "--- PASS: TestServer", "dev=HTTP/1.0 200", "server=" + python + " -m http.server", "init=stockade\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the run's output lacks %q (exit %d):\n%s", want, j.ExitCode, stderr)
		}
	}
	switch left := marked(mark); {
	case j.ExitCode != 0:
		t.Errorf("exit %d:\n%s", j.ExitCode, stderr)
	case strings.Contains(stderr, "host-visible"):
		t.Errorf("ESCAPE: the host's processes are in the command's /proc")
	case j.Applied == nil || !j.Applied.PIDNamespace:
		t.Errorf("applied says no pid namespace: %+v", j.Applied)
	case j.Leftovers < 1:
		t.Errorf("the dev server left running is not counted as stopped: %d", j.Leftovers)
	case len(left) > 0:
		t.Errorf("processes of the run outlived it: %v", left)
		for _, pid := range left {
			kill(pid)
		}
	}
}

// TestRunNamespaceEnds: in root's `stockade run`, with its PID namespace,
// the exit statuses are a shell's (127, 126, the command's own, 128+N for a
// signal: the shell is not the namespace's init, which ignores what it has
// no handler for), and a timeout and an interrupt (Ctrl-C) still stop the
// whole tree, a detached sleeper included, before stockade returns.
func TestRunNamespaceEnds(t *testing.T) {
	requireSuite(t)
	root := ident{name: "root", uid: 0, stockade: stockade}
	work, policy := root.dir(t), root.policy(t)
	must(t, os.Mkdir(filepath.Join(work, "sub"), 0o755))
	runCmd := func(mark string, args ...string) *exec.Cmd {
		cmd := root.command(stockade, append([]string{"run", "--policy", policy}, args...)...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+root.dir(t), "HOME="+root.dir(t), runVar+"="+mark)
		return cmd
	}
	for _, c := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"--", "no-such-command-xyz"}, 127, "stockade: no-such-command-xyz: command not found\n"},
		{[]string{"--", "./sub"}, 126, "stockade: ./sub: is a directory\n"},
		{[]string{"-c", "exit 3"}, 3, ""},
		{[]string{"-c", "kill -TERM $$; sleep 5"}, 128 + int(syscall.SIGTERM), ""},
		{[]string{"-c", "kill -KILL $$; sleep 5"}, 128 + int(syscall.SIGKILL), ""},
	} {
		cmd := runCmd(randHex(8), c.args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cmd.Run()
		if got := cmd.ProcessState.ExitCode(); got != c.status || !strings.HasPrefix(stderr.String(), c.stderr) {
			t.Errorf("stockade run %s: exit %d, stderr %q; want %d, %q", strings.Join(c.args, " "), got, stderr.String(), c.status, c.stderr)
		}
	}

	const detached = `setsid sh -c 'exec sleep 1000 </dev/null >/dev/null 2>&1' & sleep 1001`
	t.Run("timeout", func(t *testing.T) {
		mark := randHex(8)
		cmd := runCmd(mark, "--timeout", "2", "-c", detached)
		cmd.Run()
		if got := cmd.ProcessState.ExitCode(); got != 124 {
			t.Errorf("exit %d, want 124", got)
		}
		for _, pid := range marked(mark) {
			t.Errorf("pid %d (%s) outlived the timed-out run", pid, cmdline(pid))
			kill(pid)
		}
	})
	t.Run("interrupt", func(t *testing.T) {
		mark := randHex(8)
		cmd := runCmd(mark, "-c", detached)
		must(t, cmd.Start())
		waitFor(t, "the sleepers", func() bool { return len(sleepers(mark)) == 2 })
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		t.Logf("stockade run exited %d after SIGINT", cmd.ProcessState.ExitCode())
		for _, pid := range marked(mark) {
			t.Errorf("pid %d (%s) outlived the interrupted run", pid, cmdline(pid))
			kill(pid)
		}
	})
}

// TestRunNamespaceInit: the command of root's `stockade run` goes for the
// init of its PID namespace (pid 1, stockade forked: its environment is
// stockade's, secrets included, which the command's own lacks). It can
// neither kill nor stop it (which would end the namespace: its own
// processes only), nor read its environment, descriptors or memory. Without
// the sandbox, a process reads the environment of its parent, of the same
// user.
func TestRunNamespaceInit(t *testing.T) {
	requireSuite(t)
	secret := "PIDNS_CANARY_TOKEN=" + randHex(16)
	if out, _ := exec.Command("env", secret, "bash", "-c", `bash -c 'cat /proc/$PPID/environ'; true`).Output(); !bytes.Contains(out, []byte(secret)) {
		t.Fatalf("without the sandbox a process does not read its parent's environment; the test proves nothing")
	}
	const script = `kill -KILL 1; kill -TERM 1; kill -STOP 1; kill -INT 1
tr '\0' '\n' < /proc/1/environ
ls -l /proc/1/fd/ /proc/1/root/ /proc/1/cwd/
head -c 64 /proc/1/mem | od -c | head -2
echo "own=$(printenv PIDNS_CANARY_TOKEN)"
sleep 0.2; echo alive`
	j, stderr := stockadeRun(t, t.Context(), t.TempDir(), script, secret)
	switch {
	case strings.Contains(stderr, secret[len("PIDNS_CANARY_TOKEN="):]):
		t.Errorf("ESCAPE: the command read stockade's environment through its namespace's init:\n%s", stderr)
	case j.Applied == nil || !j.Applied.PIDNamespace:
		t.Errorf("applied says no pid namespace: %+v", j.Applied)
	case j.ExitCode != 0 || !strings.Contains(stderr, "alive"):
		t.Errorf("the command's namespace ended under it (exit %d, signal %q):\n%s", j.ExitCode, j.Signal, stderr)
	}
}
