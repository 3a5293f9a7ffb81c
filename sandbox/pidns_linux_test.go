//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stockade/stockade/internal/proctree"
)

// startInNS starts script with Start and spec (with a PID namespace) the way
// stockade run does (its own process group, a parent-death signal), waits
// for its shell, ends the namespace and releases. It returns the output, how
// the shell ended, what was applied and how many processes the command left.
func startInNS(t *testing.T, spec Spec, script string) (string, *os.ProcessState, Applied, int) {
	t.Helper()
	spec.PIDNamespace = true
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Env = append(os.Environ(), "HOSTPID="+strconv.Itoa(os.Getpid()))
	cmd.Dir = spec.Workdir
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	a, release, err := Start(spec, cmd, nil)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer release()
	if !a.PIDNamespace || a.NamespaceInit() == 0 {
		t.Fatalf("no pid namespace: %+v", a)
	}
	cmd.Wait()
	init := a.NamespaceInit()
	below := proctree.Subtree(proctree.Table(), init)[1:]
	left := a.EndNamespace()
	for _, pid := range append(below, init) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			t.Errorf("pid %d (%s) of the namespace is still there after EndNamespace", pid, proctree.Cmdline(pid))
		}
	}
	return out.String(), cmd.ProcessState, a, left
}

// TestStartPIDNamespace: as root, Start runs the command in a PID namespace
// with a /proc of its own (the host's processes out of sight, the shell's
// pids and /proc in agreement, read-only where the other mounts are), under
// every filesystem mode and with the
// grant on / split around a deny-read path; the shell is not the
// namespace's init (a SIGTERM it has no handler for kills it), Go's
// parent-death check does not kill it, and EndNamespace stops and counts
// what it left. The host's /proc is left as it was.
func TestStartPIDNamespace(t *testing.T) {
	requireRoot(t)
	requireABI(t, 1)
	const script = `echo "shell=$$"
test -e /proc/$HOSTPID && echo "host-""visible"
sleep 30 & p=$!
for i in $(seq 200); do c=$(tr '\0' ' ' < /proc/$p/cmdline); [ "$c" = "sleep 30 " ] && break; sleep 0.01; done
echo "child=$c"; kill $p
if (echo bash > /proc/self/comm) 2>&1 | grep -q 'Read-only file system'; then echo proc=ro; fi
setsid sleep 1000 </dev/null >/dev/null 2>&1 &
echo done`
	for _, c := range []struct {
		name string
		spec func(work, tmp string) Spec
	}{
		{"workspace-write", strictSpec},
		{"fs off", func(work, tmp string) Spec {
			s := strictSpec(work, tmp)
			s.FS = FSOff
			return s
		}},
		{"deny-read", func(work, tmp string) Spec {
			s := strictSpec(work, tmp)
			s.DenyRead = []string{t.TempDir()}
			return s
		}},
		{"readable roots", func(work, tmp string) Spec {
			s := strictSpec(work, tmp)
			s.ReadableRoots = []string{work}
			return s
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, ps, a, left := startInNS(t, c.spec(t.TempDir(), t.TempDir()), script)
			shell, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(out, "\n", 2)[0], "shell="))
			switch {
			case !ps.Success() || !strings.Contains(out, "done"):
				t.Errorf("the command failed (%v):\n%s", ps, out)
			case shell < 2 || shell > 10:
				t.Errorf("the shell's pid is not one of a fresh namespace:\n%s", out)
			case strings.Contains(out, "host-visible"):
				t.Errorf("the host's processes are in the command's /proc:\n%s", out)
			case !strings.Contains(out, "child=sleep 30 "):
				t.Errorf("/proc/$! is not the shell's child:\n%s", out)
			case left != 1:
				t.Errorf("EndNamespace counted %d processes left, want 1 (the setsid sleep)", left)
			case !a.ReadOnlyMounts && c.name != "fs off":
				t.Errorf("no read-only mounts: %+v", a)
			case strings.Contains(out, "proc=ro") != a.ReadOnlyMounts:
				t.Errorf("the namespace's /proc is read-only: %v, the other mounts: %v\n%s", strings.Contains(out, "proc=ro"), a.ReadOnlyMounts, out)
			}
			if _, err := os.Stat("/proc/" + strconv.Itoa(os.Getpid())); err != nil {
				t.Errorf("the host's /proc changed: %v", err)
			}
		})
	}

	t.Run("signals", func(t *testing.T) {
		_, ps, _, _ := startInNS(t, strictSpec(t.TempDir(), t.TempDir()), `kill -TERM $$; sleep 5`)
		if ws := ps.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Errorf("the shell did not die of its SIGTERM: %v", ps)
		}
	})
}
