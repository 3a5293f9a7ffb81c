//go:build linux

package escape

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What a session of `stockade serve` leaves when its supervisor (the
// zygote that forks its commands) is SIGKILLed, alone or with the server:
// the OOM killer, an operator's kill -9, systemd's KillMode. With a PID
// namespace of the session's own, whose init is the zygote, the kernel
// kills every process of the session when the zygote dies, before any
// later start of stockade.

// zygotesOf lists the children of a server: its sessions' zygotes.
func zygotesOf(server int) []int {
	var out []int
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(server) + "/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(s); err == nil && alive(pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// sessionSleepers starts a server as id, with its processes marked, and a
// background task of it that leaves the detached sleepers of detach, and
// waits until all four run. It returns the server and the mark.
func sessionSleepers(t *testing.T, id ident) (*server, string) {
	t.Helper()
	mark := randHex(8)
	work := id.dir(t)
	cmd := id.command(id.stockade, "serve", "--policy", id.policy(t), "--workdir", work)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+id.dir(t), "HOME="+id.dir(t), runVar+"="+mark)
	s := startServerCmd(t, cmd)
	s.bash(map[string]any{"command": detach, "run_in_background": true})
	waitSleepers(t, mark)
	return s, mark
}

// TestKilledSessionNamespace: a session's background task left sleepers by
// setsid, nohup and disown, and a double fork; then its zygote is
// SIGKILLed, alone, or with the server at once. No sleeper may outlive it,
// with no later start of stockade to find them. Without stockade the same
// sleepers outlive their killed parent (TestKilledRunNamespace's control).
func TestKilledSessionNamespace(t *testing.T) {
	requireSuite(t)
	for _, id := range []ident{{name: "root", uid: 0, stockade: stockade}, plainUser()} {
		t.Run(id.name, func(t *testing.T) {
			if id.uid != 0 {
				requireUserNS(t, id)
			}
			for _, c := range []struct {
				name   string
				server bool
			}{{"zygote", false}, {"server and zygote", true}} {
				t.Run(c.name, func(t *testing.T) {
					s, mark := sessionSleepers(t, id)
					zygotes := zygotesOf(s.cmd.Process.Pid)
					if len(zygotes) == 0 {
						t.Fatal("the server has no zygote")
					}
					for _, z := range zygotes {
						syscall.Kill(z, syscall.SIGKILL)
					}
					if c.server {
						syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
						s.cmd.Wait()
					}
					// No stockade starts from here on: the kernel, or the
					// live server, must stop them.
					deadline := time.Now().Add(10 * time.Second)
					for len(sleepers(mark)) > 0 && time.Now().Before(deadline) {
						time.Sleep(10 * time.Millisecond)
					}
					for n, pid := range sleepers(mark) {
						t.Errorf("ESCAPE: sleep %s (pid %d) outlived the killed session", n, pid)
						kill(pid)
					}
				})
			}
		})
	}
}

// sessionNS is the PID namespace (its /proc/PID/ns/pid link) of a server's
// only session: its zygote's.
func sessionNS(t *testing.T, s *server) string {
	t.Helper()
	zygotes := zygotesOf(s.cmd.Process.Pid)
	if len(zygotes) != 1 {
		t.Fatalf("the server has %d zygotes, want 1", len(zygotes))
	}
	ns, err := os.Readlink("/proc/" + strconv.Itoa(zygotes[0]) + "/ns/pid")
	must(t, err)
	return ns
}

// inNamespace translates pids seen inside the PID namespace ns (see
// sessionNS) into the host's, through NSpid; 0 for one not found (the
// host's own namespace translates each pid to itself).
func inNamespace(ns string, inner []int) []int {
	host := map[int]int{}
	for _, pid := range pids(func(pid string) bool {
		l, _ := os.Readlink("/proc/" + pid + "/ns/pid")
		return l == ns
	}) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		for line := range strings.SplitSeq(string(b), "\n") {
			if f := strings.Fields(strings.TrimPrefix(line, "NSpid:")); strings.HasPrefix(line, "NSpid:") && len(f) > 0 {
				if n, err := strconv.Atoi(f[len(f)-1]); err == nil {
					host[n] = pid
				}
			}
		}
	}
	out := make([]int, len(inner))
	for i, p := range inner {
		out[i] = host[p]
	}
	return out
}

// TestSessionNamespaceWork: ordinary work in a session whose commands share
// a PID namespace: git, a dev server started as a background task and
// reached by a later call, a Go test with an httptest server, task_kill of
// the dev server (which stops it), and /proc shows the session's processes
// only, with the zygote as pid 1. applied says pid_namespace.
func TestSessionNamespaceWork(t *testing.T) {
	requireSuite(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	bin := buildHTTPTest(t)
	for _, id := range []ident{{name: "root", uid: 0, stockade: stockade}, plainUser()} {
		t.Run(id.name, func(t *testing.T) {
			if id.uid != 0 {
				requireUserNS(t, id)
			}
			work := id.dir(t)
			must(t, exec.Command("cp", filepath.Join(bin, "httptest.test"), work).Run())
			id.chownAll(t, work)
			mark := randHex(8)
			port := freePort(t, "127.0.0.1")
			cmd := id.command(id.stockade, "serve", "--policy", id.policy(t), "--workdir", work)
			cmd.Env = append(append(os.Environ(), "XDG_RUNTIME_DIR="+id.dir(t), "HOME="+id.dir(t), runVar+"="+mark,
				"PY="+python, "PORT="+port), gitIdentity...)
			s := startServerCmd(t, cmd)

			r := s.bash(map[string]any{"command": `git init -q repo && cd repo && echo a > a && git add a && git commit -qm a && git log --oneline | wc -l && cd ..`})
			if out, _ := r["stdout"].(string); strings.TrimSpace(out) != "1" {
				t.Errorf("git in the session: %v", r)
			}
			// A push to a repository on disk: git links the objects it
			// received into another directory (a second Landlock layer that
			// granted no LANDLOCK_ACCESS_FS_REFER made that EXDEV).
			if out := s.run(`git init -q --bare bare.git && git -C repo push -q ../bare.git HEAD:main 2>&1 && git -C bare.git log --oneline main | wc -l`); strings.TrimSpace(out) != "1" {
				t.Errorf("a push to a local bare repository in the session: %q", out)
			}
			if applied, _ := r["applied"].(map[string]any); applied["pid_namespace"] != true {
				t.Errorf("applied says no pid namespace: %v", applied)
			}
			if out := s.run(`./httptest.test -test.v 2>&1`); !strings.Contains(out, "--- PASS: TestServer") {
				t.Errorf("the httptest test failed in the session: %q", out)
			}

			task := s.bash(map[string]any{"command": `exec "$PY" -m http.server "$PORT" --bind 127.0.0.1`, "run_in_background": true})
			taskID, _ := task["task_id"].(string)
			const get = `for i in $(seq 100); do c=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/") && break; sleep 0.1; done; echo "code=$c"`
			if out := s.run(get); !strings.Contains(out, "code=200") {
				t.Errorf("a later call did not reach the dev server: %q", out)
			}
			inner, err := strconv.Atoi(strings.TrimSpace(s.run(`for p in /proc/[0-9]*; do if grep -q http.server $p/cmdline 2>/dev/null; then echo ${p#/proc/}; fi; done`)))
			if err != nil {
				t.Fatalf("the dev server is not in the session's /proc: %v", err)
			}
			if got := int(task["pid"].(float64)); got != inner {
				t.Errorf("the task's pid is %d, and its /proc says %d", got, inner)
			}
			host := inNamespace(sessionNS(t, s), []int{inner})[0]
			if host == 0 || !strings.Contains(cmdline(host), "http.server") {
				t.Fatalf("no host pid for the dev server (pid %d inside): %d", inner, host)
			}

			// /proc: the session's processes only; pid 1 is the zygote.
			comms := s.run(`cat /proc/[0-9]*/comm; echo "init=$(cat /proc/1/comm)"`)
			init := readText("/proc/" + strconv.Itoa(zygotesOf(s.cmd.Process.Pid)[0]) + "/comm")
			self := readText("/proc/self/comm")
			for _, line := range strings.SplitAfter(comms, "\n") {
				if line == self || line == readText("/proc/"+strconv.Itoa(s.cmd.Process.Pid)+"/comm") && line != init {
					t.Errorf("ESCAPE: a host process (%s) is in the session's /proc:\n%s", strings.TrimSpace(line), comms)
				}
			}
			if !strings.Contains(comms, "init="+init) || strings.Count(comms, init) != 2 {
				t.Errorf("the session's /proc lacks its zygote (%q) as its init, or has more of them:\n%s", init, comms)
			}

			raw := s.request("tools/call", map[string]any{"name": "task_kill", "arguments": map[string]any{"task_id": taskID}})
			if strings.Contains(string(raw), `"isError":true`) {
				t.Errorf("task_kill: %s", raw)
			}
			waitFor(t, "the killed dev server to go", func() bool { return !alive(host) })
			if out := s.run(`curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/"; echo " exit=$?"`); !strings.Contains(out, "exit=7") {
				t.Errorf("the dev server answers after task_kill: %q", out)
			}
			s.stop()
			for _, pid := range marked(mark) {
				t.Errorf("pid %d (%s) outlived the session", pid, cmdline(pid))
				kill(pid)
			}
		})
	}
}

// TestSessionWithoutPIDNamespace: where the host refuses a PID namespace
// (here a user namespace of the test's whose user.max_pid_namespaces is 0,
// in which the plain user's sessions still get a user namespace), the
// session starts without one, works as before, and its applied says so.
func TestSessionWithoutPIDNamespace(t *testing.T) {
	id := plainUser()
	requireUserNS(t, id)
	if exec.Command("setpriv", "--reuid", "0", "--regid", "0", "--clear-groups", "--", "true").Run() != nil {
		t.Skip("no setpriv that changes ids (util-linux's; busybox's cannot)")
	}
	work := id.dir(t)
	u := strconv.Itoa(id.uid)
	cmd := exec.Command("sh", "-c", `echo 0 > /proc/sys/user/max_pid_namespaces && exec setpriv --reuid `+u+` --regid `+u+` --clear-groups -- "$@"`, "sh",
		id.stockade, "serve", "--policy", id.policy(t), "--workdir", work)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: id.uid, HostID: id.uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: id.uid, HostID: id.uid, Size: 1}},
		GidMappingsEnableSetgroups: true}
	cmd.Env = append(os.Environ(), "HOME="+id.dir(t), "XDG_RUNTIME_DIR="+id.dir(t))
	s := startServerCmd(t, cmd)
	r := s.bash(map[string]any{"command": `echo "supervisor=$PPID"`})
	applied, _ := r["applied"].(map[string]any)
	if applied["pid_namespace"] != nil || applied["userns"] != true {
		t.Errorf("applied: %v; want the user namespace, and no pid namespace", applied)
	}
	// In a PID namespace the supervisor would be its init, pid 1.
	if out, _ := r["stdout"].(string); !strings.HasPrefix(out, "supervisor=") || out == "supervisor=1\n" {
		t.Errorf("the session's command: %q (exit %v)", out, r["exit_code"])
	}
}
