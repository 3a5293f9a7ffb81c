//go:build linux

package escape

// Attacks on other processes and on shared kernel objects that Landlock does
// not cover (issue 8, items 1-3): resource limits, scheduling and I/O
// priority of other processes, the user's keyring, System V IPC. Each runs as
// root and as the plain user.

import (
	"sync/atomic"
	"time"

	"encoding/json"
	"fmt"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/sandbox"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// victimState reads one property of the victim; victimChanged turns a change
// of it into a finding.
func victimChanged(what string, read func(pid int) string) func(*testing.T, *env, *result) []string {
	return func(t *testing.T, e *env, r *result) []string {
		before := e.vars["VICTIM_"+what]
		if now := read(e.victim.Process.Pid); now != before {
			return []string{fmt.Sprintf("the %s of the victim process %d outside the command changed: %q -> %q", what, e.victim.Process.Pid, before, now)}
		}
		return nil
	}
}

// recordVictim saves the victim's property before the run.
func recordVictim(what string, read func(pid int) string) func(*testing.T, *env) map[string]string {
	return func(t *testing.T, e *env) map[string]string {
		return map[string]string{"VICTIM_" + what: read(e.victim.Process.Pid)}
	}
}

func victimNoFile(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "Max open files") {
			return strings.Join(strings.Fields(line)[3:5], " ")
		}
	}
	return "?"
}

func victimNice(pid int) string {
	n, err := unix.Getpriority(unix.PRIO_PROCESS, pid)
	if err != nil {
		return err.Error()
	}
	return strconv.Itoa(20 - n) // the raw value is 20 - nice
}

func victimIOPrio(pid int) string {
	r, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(pid), 0)
	if e != 0 {
		return e.Error()
	}
	return strconv.Itoa(int(r))
}

func victimSched(pid int) string {
	r, _, e := unix.Syscall(unix.SYS_SCHED_GETSCHEDULER, uintptr(pid), 0, 0)
	if e != 0 {
		return e.Error()
	}
	return strconv.Itoa(int(r))
}

func TestOtherProcesses(t *testing.T) {
	victim := func(name, what string, read func(int) string) attack {
		return attack{name: name, expect: "the " + what + " of the victim", as: rootAndUser,
			vars: recordVictim(what, read), check: victimChanged(what, read)}
	}
	user := victim("renice-user", "nice value", victimNice)
	// As root, PRIO_USER would renice every root process of the host.
	user.as = []identity{asUser}
	run(t, []attack{
		victim("prlimit-victim", "open-files limit", victimNoFile),
		victim("renice-victim", "nice value", victimNice),
		user,
		victim("ioprio-victim", "I/O priority", victimIOPrio),
		victim("sched-victim", "scheduling policy", victimSched),
	})
}

// tool runs escape-tool as uid, outside any sandbox.
func runToolAs(t *testing.T, uid int, args ...string) (string, error) {
	cmd := exec.Command(tool, args...)
	cmd.SysProcAttr = &unix.SysProcAttr{Credential: credential(uid)}
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("%v: %s", err, ee.Stderr)
	}
	return strings.TrimSpace(string(out)), err
}

func TestKeyrings(t *testing.T) {
	// key makes the description of a key of this run, and removes the key after.
	key := func(t *testing.T, e *env) string {
		desc := "escape-" + randHex(6)
		t.Cleanup(func() { runToolAs(t, e.uid, "key-unlink", desc) })
		return desc
	}
	run(t, []attack{
		{name: "keyring-read", expect: "a key in the user keyring", as: rootAndUser,
			vars: func(t *testing.T, e *env) map[string]string {
				desc, secret := key(t, e), "KEY-"+randHex(12)
				if _, err := runToolAs(t, e.uid, "key-add", desc, secret); err != nil {
					t.Skipf("this kernel keeps no keyrings for the test (add_key: %v)", err)
				}
				e.secrets["a key in the user keyring"] = secret
				return map[string]string{"KEYDESC": desc}
			}},
		{name: "keyring-plant", expect: "planted", as: rootAndUser,
			vars: func(t *testing.T, e *env) map[string]string { return map[string]string{"KEYDESC": key(t, e)} },
			check: func(t *testing.T, e *env, r *result) []string {
				if v, err := runToolAs(t, e.uid, "key-read", e.vars["KEYDESC"]); err == nil {
					return []string{fmt.Sprintf("a key planted in the user keyring outlived the command: %q", v)}
				}
				return nil
			}},
	})
}

func TestSysVIPC(t *testing.T) {
	// segment makes a SysV key of this run, and removes its segment after.
	segment := func(t *testing.T) int {
		n, _ := strconv.ParseUint(randHex(3), 16, 32)
		k := int(0x5e000000 | n)
		t.Cleanup(func() {
			if id, err := unix.SysvShmGet(k, 0, 0); err == nil {
				unix.SysvShmCtl(id, unix.IPC_RMID, nil)
			}
		})
		return k
	}
	run(t, []attack{
		{name: "shm-read", expect: "a segment outside", as: rootAndUser,
			vars: func(t *testing.T, e *env) map[string]string {
				k, secret := segment(t), "SHM-"+randHex(12)
				id, err := unix.SysvShmGet(k, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
				must(t, err)
				var ds unix.SysvShmDesc
				_, err = unix.SysvShmCtl(id, unix.IPC_STAT, &ds)
				must(t, err)
				ds.Perm.Uid, ds.Perm.Gid = uint32(e.uid), uint32(e.uid)
				_, err = unix.SysvShmCtl(id, unix.IPC_SET, &ds)
				must(t, err)
				b, err := unix.SysvShmAttach(id, 0, 0)
				must(t, err)
				copy(b, secret+"\x00")
				unix.SysvShmDetach(b)
				e.secrets["a segment outside the sandbox"] = secret
				return map[string]string{"SHMKEY": strconv.Itoa(k)}
			},
			check: func(t *testing.T, e *env, r *result) []string {
				k, _ := strconv.Atoi(e.vars["SHMKEY"])
				id, err := unix.SysvShmGet(k, 0, 0)
				must(t, err)
				b, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
				must(t, err)
				defer unix.SysvShmDetach(b)
				if got := string(b[:len("OVERWRITTEN")]); got == "OVERWRITTEN" {
					return []string{"a segment outside the sandbox was overwritten"}
				}
				return nil
			}},
		{name: "shm-plant", expect: "outlived", as: rootAndUser,
			vars: func(t *testing.T, e *env) map[string]string {
				return map[string]string{"SHMKEY": strconv.Itoa(segment(t))}
			},
			check: func(t *testing.T, e *env, r *result) []string {
				k, _ := strconv.Atoi(e.vars["SHMKEY"])
				if _, err := unix.SysvShmGet(k, 0, 0); err == nil {
					return []string{fmt.Sprintf("a segment made by the command (key %#x) outlived it", k)}
				}
				return nil
			}},
	})
}

// TestOwnKernelObjects: what a command does with its own process and its own
// objects keeps working in the sandbox: its own resource limits and priority,
// and System V shared memory with itself, where stockade gives it an IPC
// namespace (as root) or holds it in the supervisor. Without either, System
// V IPC is refused, and the report says so.
func TestOwnKernelObjects(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	for _, id := range rootAndUser {
		t.Run(id.name, func(t *testing.T) {
			requireStrict(t, id.uid())
			home := ownedDir(t, id.uid())
			work := ownedDir(t, id.uid()) // not HOME: stockade refuses HOME as a workdir
			script := `set -e
ulimit -n 64; test "$(ulimit -n)" = 64
u=$(ulimit -u); [ "$u" = unlimited ] || ulimit -S -u $((u - 1))
if command -v nice >/dev/null; then nice -n 5 sh -c 'test "$(nice)" -ge 5'; fi
if command -v ionice >/dev/null; then ionice -c 3 true; fi
if command -v taskset >/dev/null; then taskset -c 0 true; fi
"$TOOL" rlimit-self
if "$TOOL" shm-self; then echo shm=ok; else echo shm=refused; fi`
			cmd := exec.Command(stockade, "run", "--json", "--policy", dataDir+"/allow-all.toml", "-c", script)
			cmd.Dir = work
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TOOL=" + tool}
			cmd.SysProcAttr = &unix.SysProcAttr{Credential: credential(id.uid())}
			out, _ := cmd.Output()
			var r struct {
				ExitCode int    `json:"exit_code"`
				Stdout   string `json:"stdout"`
				Stderr   string `json:"stderr"`
				Applied  struct {
					IPCNamespace bool   `json:"ipc_namespace"`
					SysVIPC      string `json:"sysv_ipc"`
				} `json:"applied"`
			}
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("no JSON result: %v\n%s", err, out)
			}
			if r.ExitCode != 0 {
				t.Fatalf("the command failed (exit %d):\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
			}
			var report, by string
			for _, p := range reportOf(t, id.uid(), work, home) {
				if p.Name == "kernel-objects" {
					report, by = p.Status+" by "+p.By+": "+p.Note, p.By
				}
			}
			_, shm, _ := strings.Cut(r.Stdout, "shm=")
			shm = "shm=" + strings.TrimSpace(shm)
			t.Logf("%s; kernel-objects %s", shm, report)
			switch {
			case r.Applied.IPCNamespace && shm != "shm=ok":
				t.Errorf("System V shared memory with itself failed in an IPC namespace of its own:\n%s", r.Stderr)
			case r.Applied.SysVIPC == sandbox.SysVSupervised && (shm != "shm=ok" || !strings.Contains(report, "System V IPC goes through stockade's supervisor")):
				t.Errorf("under the supervisor, System V shared memory with itself should work and the report should say so: %s, report %q", shm, report)
			case r.Applied.SysVIPC == sandbox.SysVRefused && (shm != "shm=refused" || !strings.Contains(report, "System V IPC is refused")):
				t.Errorf("without an IPC namespace, System V IPC should be refused and the report should say so: %s, report %q", shm, report)
			case strings.Contains(by, "ipc namespace") != r.Applied.IPCNamespace:
				t.Errorf("the report (%q) and what was applied (ipc namespace %v) differ", report, r.Applied.IPCNamespace)
			}
		})
	}
}

// TestForkBombDefault: under a policy that says nothing of processes (the
// built-in sandbox), a command that starts 1100 processes meets the default
// bound of 1024: a pids cgroup as root here, RLIMIT_NPROC for the plain user
// without one. Without the sandbox all of them run.
func TestForkBombDefault(t *testing.T) {
	// The sleepers are /bin/sleep named $MARK: busybox (the kernel-matrix
	// guests' sleep) picks its applet by that name, and would not sleep.
	if real, err := filepath.EvalSymlinks("/bin/sleep"); err == nil && filepath.Base(real) == "busybox" {
		t.Skip("/bin/sleep is busybox, which runs the applet its argv[0] names: the sleepers cannot carry the run's mark")
	}
	var most atomic.Int64
	run(t, []attack{{name: "fork-default", as: rootAndUser, expect: "processes at once", before: requireDefaultBound,
		during: func(e *env, stop <-chan struct{}) {
			most.Store(0)
			for {
				if n := int64(len(named(e.mark))); n > most.Load() {
					most.Store(n)
				}
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		},
		check: func(t *testing.T, e *env, r *result) []string {
			t.Logf("at most %d processes at once; %s", most.Load(), strings.TrimSpace(r.stdout))
			// Slack for RLIMIT_NPROC, which counts from what the user ran when
			// the command started: the sandbox child's own threads, counted
			// then, go with its execve.
			if most.Load() > policy.DefaultMaxProcesses+16 {
				return []string{fmt.Sprintf("%d processes at once, over the default bound of %d", most.Load(), policy.DefaultMaxProcesses)}
			}
			return nil
		},
	}})
}

// requireDefaultBound skips the test unless stockade reports a process bound
// for the built-in sandbox to this test's identity, with the reason it gives.
func requireDefaultBound(t *testing.T) {
	uid := identityOf(t).uid()
	home, work := ownedDir(t, uid), ownedDir(t, uid) // stockade refuses HOME as a workdir
	cmd := exec.Command(stockade, "run", "--json", "--policy", dataDir+"/allow-all.toml", "-c", "true")
	cmd.Dir, cmd.Env = work, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	cmd.SysProcAttr = &unix.SysProcAttr{Credential: credential(uid)}
	out, _ := cmd.Output()
	var r struct {
		Applied struct {
			MaxProcs   int `json:"max_procs"`
			NprocLimit int `json:"nproc_limit"`
		} `json:"applied"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("no JSON result: %v\n%s", err, out)
	}
	for _, p := range reportOf(t, uid, work, home) {
		if p.Name != "process-bound" {
			continue
		}
		switch {
		case p.Status == "enforced" && r.Applied.MaxProcs != policy.DefaultMaxProcesses:
			t.Fatalf("process-bound is enforced by %s, but the applied bound is %d", p.By, r.Applied.MaxProcs)
		case p.Status == "partial" && r.Applied.NprocLimit == 0:
			t.Fatalf("process-bound is partial by %s, but no RLIMIT_NPROC was applied", p.By)
		case p.Status != "enforced" && p.Status != "partial":
			t.Skipf("stockade bounds no processes for uid %d on this host: %s", uid, p.Note)
		}
		t.Logf("process-bound %s by %s: %s", p.Status, p.By, p.Note)
		return
	}
	t.Fatalf("no process-bound in the report:\n%s", out)
}

// protection is one line of stockade's enforcement report.
type protection struct{ Name, Status, By, Note string }

// reportOf is the enforcement report of the suite's policy (the built-in
// sandbox) for uid, from stockade doctor --json: a run's result carries it
// only when something the policy requires is missing.
func reportOf(t *testing.T, uid int, work, home string) []protection {
	t.Helper()
	cmd := exec.Command(stockade, "doctor", "--json", "--policy", dataDir+"/allow-all.toml")
	cmd.Dir, cmd.Env = work, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	cmd.SysProcAttr = &unix.SysProcAttr{Credential: credential(uid)}
	out, _ := cmd.Output()
	var d struct {
		Report struct {
			Protections []protection `json:"protections"`
		} `json:"report"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("stockade doctor --json as uid %d: %v\n%s", uid, err, out)
	}
	return d.Report.Protections
}
