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

// threadsAttack goes through every thread of the process $1 (stockade, seen
// from its command): a signal to one thread is checked against that thread's
// Landlock domain and acts on the whole process, and a thread's /proc files
// are checked against that thread too. It prints one line per thread it
// could signal or read.
const threadsAttack = `for t in /proc/$1/task/*; do
  tid=${t##*/}
  kill -0 "$tid" 2>/dev/null && echo "signal $tid"
  tr '\0' '\n' < "$t/environ" 2>/dev/null | grep -q STOCKADE_TEST_CANARY && echo "environ $tid"
  head -c 1 "$t/mem" > /dev/null 2>&1 && echo "mem $tid"
  readlink "$t/cwd" > /dev/null 2>&1 && echo "cwd $tid"
done; echo done`

// TestThreadsOfStockadeRun: stockade run restricts one of its threads and
// forks the command from it, so that thread shares the command's Landlock
// domain. Through it the command could stop or kill stockade (kill TID acts
// on the whole process) and read stockade's environment, with every secret the
// command's was scrubbed of, and its memory. Seen working before the fix: the
// restricted thread could be stopped and its environ read.
func TestThreadsOfStockadeRun(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		work := id.dir(t)
		cmd := id.command(id.stockade, "run", "--policy", id.policy(t), "-c", "bash -c '"+threadsAttack+"' attack $PPID")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+id.dir(t), "STOCKADE_TEST_CANARY=x")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "done") {
			t.Fatalf("the attack did not run (%v):\n%s", err, out)
		}
		if got := attackLines(string(out), signalScopeApplied(t)); len(got) > 0 {
			t.Fatalf("ESCAPE: the command reached stockade run through its threads: %v", got)
		}
	})
}

// TestThreadsOfTheSessionSupervisor: the same through the session's
// supervisor (the zygote, the command's parent), which is in the sandbox
// too: stopping it would hang the session, SIGTERM would end it. Seen working
// before the fix: kill -STOP $PPID stopped the supervisor.
func TestThreadsOfTheSessionSupervisor(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		work := id.dir(t)
		s := startServer(t, id, id.dir(t), work)
		scoped := signalScopeApplied(t)
		pid, err := strconv.Atoi(strings.TrimSpace(s.run(`echo "$PPID"`)))
		if err != nil || pid < 1 {
			t.Fatalf("no supervisor pid: %v", err)
		}
		if scoped {
			// The supervisor may be the init of the session's PID
			// namespace: the command signals it by the pid it sees, the
			// test looks at it by the host's.
			signalSupervisor(t, s, work, pid, inNamespace(sessionNS(t, s), []int{pid})[0])
		} else {
			t.Log("no Landlock signal scope on this kernel: signals to the supervisor are not refused (SECURITY.md)")
		}
		threads := s.run(`bash -c '` + threadsAttack + `' attack $PPID`)
		if !strings.Contains(threads, "done") {
			t.Fatalf("the attack did not run: %q", threads)
		}
		if got := attackLines(threads, scoped); len(got) > 0 {
			t.Fatalf("ESCAPE: the command reached its supervisor through its threads: %v", got)
		}
		if got := s.run("echo alive"); got != "alive\n" {
			t.Fatalf("the session's next command: %q", got)
		}
	})
}

// signalSupervisor stops and then terminates the supervisor (pid inner as
// the session sees it, pid here) from a background task of s, so that a supervisor stopped by the attack cannot hang
// the call that made it, and fails if either signal got through.
func signalSupervisor(t *testing.T, s *server, work string, inner, pid int) {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("the supervisor (pid %d inside) is not found", inner)
	}
	s.bash(map[string]any{"run_in_background": true, "command": `kill -STOP ` + strconv.Itoa(inner) +
		` 2>/dev/null; s=$?; kill -TERM ` + strconv.Itoa(inner) + ` 2>/dev/null; echo "stop $s term $?" > signalled`})
	deadline := time.Now().Add(10 * time.Second)
	for readText(filepath.Join(work, "signalled")) == "" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	out := readText(filepath.Join(work, "signalled"))
	if procState(pid) == "T" {
		syscall.Kill(pid, syscall.SIGCONT)
		t.Fatalf("ESCAPE: a command stopped its session's supervisor (pid %d): %q", pid, out)
	}
	if out != "stop 1 term 1\n" {
		t.Fatalf("ESCAPE: a command could signal its session's supervisor (pid %d): %q", pid, out)
	}
}

// attackLines are the lines of threadsAttack's output that report a
// success; signals count only where stockade applies Landlock's signal scope.
func attackLines(out string, scoped bool) []string {
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 2 && (scoped || f[0] != "signal") {
			got = append(got, line)
		}
	}
	return got
}

// readText is the content of path, "" if it cannot be read.
func readText(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// procState is the state letter of /proc/PID/stat ("" if pid is gone).
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i > 0 && len(s) > i+2 {
		return s[i+2 : i+3]
	}
	return ""
}

// signalScopeApplied says whether stockade applies Landlock's signal scope on
// this host, as its own report says.
func signalScopeApplied(t *testing.T) bool {
	cmd := exec.Command(stockade, "run", "--json", "--policy", filepath.Join(dataDir, "allow-all.toml"), "-c", "true")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	cmd.Dir = t.TempDir()
	out, _ := cmd.Output()
	return strings.Contains(string(out), `"scopes": true`)
}
