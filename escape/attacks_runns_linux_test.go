//go:build linux

package escape

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What a killed `stockade run` leaves, and what a plain user's run gets.

// procLimitOf is the directory of the process-bound cgroup stockade put pid
// in (a cgroup named stockade-*), or "" when it is in none.
func procLimitOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatalf("the cgroups of pid %d: %v", pid, err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(filepath.Base(parts[2]), "stockade-") {
			continue
		}
		for _, mnt := range []string{"/sys/fs/cgroup/pids", "/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
			dir := filepath.Join(mnt, parts[2])
			if _, err := os.Stat(filepath.Join(dir, "pids.max")); err == nil {
				return dir
			}
		}
	}
	return ""
}

// TestKilledRunCgroup: `stockade run` is SIGKILLed while its command has
// left a setsid process that changed both its cwd and TMPDIR (so nothing
// ties it to the dead run's state directory). Where the run had a
// process-bound cgroup (root here), the next start kills what is in it and
// removes it, and leaves a live run's cgroup and process alone; a plain
// user's run in a user namespace loses the process with its supervisor, and
// root's with its PID namespace. Without stockade, the same process outlives
// its killed parent.
func TestKilledRunCgroup(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		const spawn = `setsid sh -c 'cd /; TMPDIR=/ exec sleep 1000' & echo $! > pid; echo $$ >> pid; wait`

		// Control: a parent SIGKILLed the same way leaves it running.
		control := id.dir(t)
		parent := id.command("bash", "-c", spawn)
		parent.Dir = control
		must(t, parent.Start())
		cpids := waitPids(t, filepath.Join(control, "pid"), 2)
		parent.Process.Kill()
		parent.Wait()
		survived := alive(cpids[0])
		kill(cpids[0])
		if !survived {
			t.Fatal("without stockade the setsid process did not outlive its killed parent; the test proves nothing")
		}

		// Each run has a mark of its own: the pids their commands record are
		// their PID namespaces', which may be the same numbers.
		state, policy := id.dir(t), id.policy(t)
		runCmd := func(work, mark string, args ...string) *exec.Cmd {
			cmd := id.command(id.stockade, append([]string{"run", "--policy", policy}, args...)...)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+state, "HOME="+id.dir(t), runVar+"="+mark)
			return cmd
		}
		liveWork, victimWork := id.dir(t), id.dir(t)
		liveMark, victimMark := randHex(8), randHex(8)
		live := runCmd(liveWork, liveMark, "-c", spawn)
		must(t, live.Start())
		defer func() {
			live.Process.Signal(syscall.SIGTERM)
			live.Wait()
		}()
		livePids := hostPids(t, liveMark, waitPids(t, filepath.Join(liveWork, "pid"), 2))
		liveCgroup := procLimitOf(t, livePids[0])

		victim := runCmd(victimWork, victimMark, "-c", spawn)
		must(t, victim.Start())
		pids := hostPids(t, victimMark, waitPids(t, filepath.Join(victimWork, "pid"), 2))
		cgroup := procLimitOf(t, pids[0])
		t.Logf("the run's process-bound cgroup: %q", cgroup)
		victim.Process.Signal(syscall.SIGKILL)
		victim.Wait()
		waitFor(t, "the command's shell to die with stockade run", func() bool { return !alive(pids[1]) })

		must(t, runCmd(id.dir(t), randHex(8), "--", "true").Run())
		if alive(pids[0]) {
			t.Errorf("ESCAPE: pid %d (%s), which changed its cwd and TMPDIR, outlived the killed stockade run and the next start", pids[0], cmdline(pids[0]))
			kill(pids[0])
		}
		if cgroup != "" {
			if _, err := os.Stat(cgroup); !os.IsNotExist(err) {
				t.Errorf("the next start left the dead run's cgroup %s (%v)", cgroup, err)
			}
		}
		if !alive(livePids[0]) {
			t.Errorf("the next start stopped a live run's process")
		}
		if liveCgroup != "" {
			if _, err := os.Stat(liveCgroup); err != nil {
				t.Errorf("the next start removed a live run's cgroup: %v", err)
			}
		}
	})
}

// userRun runs script through a plain user's `stockade run --json` in work,
// and returns its result.
func userRun(t *testing.T, work, script string) userRunResult {
	t.Helper()
	id := plainUser()
	cmd := id.command(id.stockade, "run", "--json", "--policy", id.policy(t), "-c", script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+id.dir(t), "XDG_RUNTIME_DIR="+id.dir(t), "TOOL="+tool)
	cmd.Env = append(cmd.Env, gitIdentity...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	var r userRunResult
	if err := json.Unmarshal(out, &r); err != nil || r.Status == "" {
		t.Fatalf("no JSON result from stockade run (%v):\n%s\n%s", err, out, stderr.String())
	}
	return r
}

type userRunResult struct {
	Status   string         `json:"status"`
	ExitCode int            `json:"exit_code"`
	Stdout   string         `json:"stdout"`
	Stderr   string         `json:"stderr"`
	Applied  map[string]any `json:"applied"`
	Notes    []string       `json:"notes"`
}

// TestUserRunNamespaces: a plain user's `stockade run`, where the host allows
// unprivileged user namespaces, runs its command through a sandbox
// supervisor in one, as a session's are: System V shared memory with itself
// works and a segment of the same user outside is out of reach, git hooks and
// config cannot be planted while ordinary git work goes on, its own loopback
// works and the host's is out of reach, and a SIGKILLed run leaves no process
// running, before any later start. Each attack works as the same user
// without the sandbox.
func TestUserRunNamespaces(t *testing.T) {
	id := plainUser()
	requireUserNS(t, id)
	work := id.dir(t)
	if _, err := exec.LookPath("git"); err == nil {
		gitRepo(t, id, work)
	}
	r := userRun(t, work, `"$TOOL" shm-self && echo shm=ok`)
	for _, k := range []string{"userns", "caps_dropped", "ipc_namespace", "netns", "read_only_mounts", "seccomp", "no_new_privs", "pid_namespace"} {
		if r.Applied[k] != true {
			t.Fatalf("the plain user's run did not get %s: %v", k, r.Applied)
		}
	}
	if !strings.Contains(r.Stdout, "shm=ok") {
		t.Errorf("System V shared memory with itself failed in the run: %q %q", r.Stdout, r.Stderr)
	}

	t.Run("outside segment", func(t *testing.T) {
		k, shm, secret := victimSegment(t, userUID)
		if out, err := runToolAs(t, userUID, "shm-read", strconv.Itoa(k)); !strings.Contains(out, secret) {
			t.Fatalf("without the sandbox the user does not read its segment (%v); the test proves nothing", err)
		}
		writeSegment(t, shm, secret)
		if r := userRun(t, work, `"$TOOL" shm-read `+strconv.Itoa(k)); strings.Contains(r.Stdout+r.Stderr, secret) {
			t.Errorf("ESCAPE: the run read a segment outside: %q", r.Stdout)
		}
		if segmentText(t, shm) != secret {
			t.Errorf("ESCAPE: the run overwrote a segment outside")
		}
	})

	t.Run("protected files", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git")
		}
		for _, a := range plantAttacks {
			if a.name == "policy rewritten" || a.name == "a path the policy protects" {
				continue // TestPlantedForLater covers them; this policy protects no path
			}
			control := id.dir(t)
			gitRepo(t, id, control)
			cmd := id.command("bash", "-c", a.script)
			cmd.Dir = control
			if out, _ := cmd.CombinedOutput(); !a.worked(control) {
				t.Fatalf("%s: without the sandbox the attack did not work; it proves nothing:\n%s", a.name, out)
			}
			userRun(t, work, a.script)
			if a.worked(work) {
				t.Errorf("ESCAPE: the run planted code for later: %s", a.name)
			}
		}
		r := userRun(t, work, `set -e
git status --short >/dev/null
echo a > a.txt; git add a.txt; git commit -qm a
git branch topic; git checkout -q topic; echo b > b.txt; git add b.txt; git commit -qm b
git checkout -q -; echo c > c.txt; git add c.txt; git commit -qm c
echo dirty >> a.txt; git stash -q; git stash pop -q; git checkout -q a.txt
git merge -q --no-edit topic
git checkout -q topic; git rebase -q -; git checkout -q -
git log --oneline | wc -l`)
		if r.ExitCode != 0 {
			t.Errorf("ordinary git work failed in the run (exit %d):\n%s\n%s", r.ExitCode, r.Stdout, r.Stderr)
		}
	})

	t.Run("loopback", func(t *testing.T) {
		if python == "" {
			t.Skip("no python3 in /usr/bin, /usr/local/bin or /bin")
		}
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		must(t, err)
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		connect := `(exec 3<>/dev/tcp/127.0.0.1/` + port + `) 2>/dev/null && echo host=connected || echo host=refused`
		if out, _ := id.command("bash", "-c", connect).Output(); !strings.Contains(string(out), "host=connected") {
			t.Fatalf("without the sandbox the user cannot reach the host's listener (%q); the test proves nothing", out)
		}
		dev := freePort(t, "127.0.0.1")
		r := userRun(t, work, connect+`
`+python+` -m http.server `+dev+` --bind 127.0.0.1 >/dev/null 2>&1 &
for i in $(seq 100); do
  if exec 3<>/dev/tcp/127.0.0.1/`+dev+`; then printf 'GET / HTTP/1.0\r\n\r\n' >&3; head -1 <&3; exit; fi 2>/dev/null
  sleep 0.1
done; echo never up`)
		if !strings.Contains(r.Stdout, "host=refused") {
			t.Errorf("ESCAPE: the run reached a listener of the host on loopback: %q", r.Stdout)
		}
		if !strings.Contains(r.Stdout, "200") {
			t.Errorf("a server the run started on its own loopback is not reachable from it: %q %q", r.Stdout, r.Stderr)
		}
	})

	t.Run("exec failures", func(t *testing.T) {
		// As from a shell, and as root's run says them: 127 when there is no
		// such command, 126 when it cannot be executed.
		for _, c := range []struct {
			argv   []string
			status int
			stderr string
		}{
			{[]string{"no-such-command-xyz"}, 127, "stockade: no-such-command-xyz: command not found\n"},
			{[]string{"./sub"}, 126, "stockade: ./sub: is a directory\n"},
			{[]string{"./Makefile"}, 126, "stockade: ./Makefile: permission denied\n"},
		} {
			if _, err := os.Stat(filepath.Join(work, c.argv[0])); c.argv[0] != "no-such-command-xyz" && err != nil {
				continue // no git: gitRepo made no repository
			}
			cmd := id.command(id.stockade, append([]string{"run", "--policy", id.policy(t), "--"}, c.argv...)...)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "HOME="+id.dir(t), "XDG_RUNTIME_DIR="+id.dir(t))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			cmd.Run()
			if got := cmd.ProcessState.ExitCode(); got != c.status || stderr.String() != c.stderr {
				t.Errorf("stockade run -- %s: exit %d, stderr %q; want %d, %q", c.argv[0], got, stderr.String(), c.status, c.stderr)
			}
		}
	})

	t.Run("killed", func(t *testing.T) {
		const spawn = `sleep 1000 & echo $! >> pids; setsid sh -c 'cd /; TMPDIR=/ exec sleep 1001' & echo $! >> pids; (sleep 1002 & echo $! >> pids) ; echo $$ >> pids; wait`
		kwork, mark := id.dir(t), randHex(8)
		run := id.command(id.stockade, "run", "--policy", id.policy(t), "-c", spawn)
		run.Dir = kwork
		run.Env = append(os.Environ(), "HOME="+id.dir(t), "XDG_RUNTIME_DIR="+id.dir(t), runVar+"="+mark)
		must(t, run.Start())
		pids := hostPids(t, mark, waitPids(t, filepath.Join(kwork, "pids"), 4))
		run.Process.Signal(syscall.SIGKILL)
		run.Wait()
		deadline := time.Now().Add(10 * time.Second)
		for _, pid := range pids {
			for alive(pid) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if alive(pid) {
				t.Errorf("pid %d (%s) outlived the killed stockade run", pid, cmdline(pid))
				kill(pid)
			}
		}
	})
}

// TestUserRunRefused: where the plain user cannot make a user namespace (a
// namespace of the test's whose user.max_user_namespaces is 0), its `stockade
// run` forks the command from a thread, as before: no namespaces, System V
// IPC refused, a hook written and then named in the result's notes.
func TestUserRunRefused(t *testing.T) {
	requireSuite(t)
	id := plainUser()
	if exec.Command("setpriv", "--reuid", "0", "--regid", "0", "--clear-groups", "--", "true").Run() != nil {
		t.Skip("no setpriv that changes ids (util-linux's; busybox's cannot)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	work := id.dir(t)
	gitRepo(t, id, work)
	u := strconv.Itoa(id.uid)
	cmd := exec.Command("sh", "-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --reuid `+u+` --regid `+u+` --clear-groups -- "$@"`, "sh",
		id.stockade, "run", "--json", "--policy", id.policy(t), "-c", `"$TOOL" shm-self && echo shm=ok; cd .git/hooks && echo planted > pre-commit; echo wrote=$?`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: id.uid, HostID: id.uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: id.uid, HostID: id.uid, Size: 1}},
		GidMappingsEnableSetgroups: true}
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+id.dir(t), "XDG_RUNTIME_DIR="+id.dir(t), "TOOL="+tool)
	out, err := cmd.Output()
	var r userRunResult
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("no JSON result from stockade run (%v, %v):\n%s", err, jerr, out)
	}
	for _, k := range []string{"userns", "ipc_namespace", "netns", "read_only_mounts"} {
		if r.Applied[k] == true {
			t.Errorf("%s applied without a user namespace: %v", k, r.Applied)
		}
	}
	checkSysVWithoutNamespace(t, r.Applied["sysv_ipc"], r.Stdout)
	if !strings.Contains(r.Stdout, "wrote=0") {
		t.Errorf("without read-only mounts the hook write should succeed and be reported: %q %q", r.Stdout, r.Stderr)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, filepath.Join(".git", "hooks")) {
		t.Errorf("the result does not name the changed hook: %s", notes)
	}
}
