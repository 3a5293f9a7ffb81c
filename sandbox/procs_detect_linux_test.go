//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/internal/testexe"
	"golang.org/x/sys/unix"
)

// TestProcLimitWhereDetected: Apply sets the process bound exactly where
// detection (what `stockade doctor` and the planner read) says there is a pids
// cgroup, in a cgroup of its own below the one detection names; where
// detection says there is none, Apply refuses the bound rather than set one
// elsewhere. Either way round, a disagreement is a report that lies. It runs
// as this user and, when that is root, as the unprivileged user nobody too:
// the child detects and applies, the parent compares.
func TestProcLimitWhereDetected(t *testing.T) {
	if inChild() {
		h := hostfacts.Detect()
		fmt.Printf("DETECTED=%s\nREASON=%s\n", h.PidsCgroup, h.PidsReason)
		a, err := Apply(Spec{FS: FSOff, MaxProcs: 50})
		if err != nil {
			fmt.Printf("APPLY-ERROR=%v\n", err)
			return
		}
		fmt.Printf("PROCLIMIT=%s\n", a.ProcLimit)
		return
	}
	t.Run("this user", func(t *testing.T) { checkProcLimitWhereDetected(t, os.Args[0], nil) })
	if os.Geteuid() != 0 {
		return
	}
	t.Run("nobody", func(t *testing.T) {
		checkProcLimitWhereDetected(t, testexe.ReachableCopy(t), &syscall.Credential{Uid: 65534, Gid: 65534})
	})
}

func checkProcLimitWhereDetected(t *testing.T, exe string, cred *syscall.Credential) {
	cmd := exec.Command(exe, "-test.run=^TestProcLimitWhereDetected$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envChild+"=sandboxed")
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	b, err := cmd.CombinedOutput()
	out := string(b)
	made := procLimitOf(out)
	if made != "" {
		if err := RemoveProcLimit(made); err != nil {
			t.Errorf("RemoveProcLimit: %v", err)
		}
	}
	if err != nil || !strings.Contains(out, "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	detected, reason := lineValue(out, "DETECTED="), lineValue(out, "REASON=")
	t.Logf("detected %q (%s); Apply made %q", detected, reason, made)
	switch {
	case detected != "" && made == "":
		t.Errorf("detection reports the pids cgroup %s, but Apply set no bound:\n%s", detected, out)
	case detected != "" && filepath.Dir(made) != detected:
		t.Errorf("detection reports the pids cgroup %s, but Apply made %s", detected, made)
	case detected == "" && made != "":
		t.Errorf("detection reports no pids cgroup (%s), but Apply made %s", reason, made)
	case detected == "" && !strings.Contains(out, "APPLY-ERROR=process bound"):
		t.Errorf("detection reports no pids cgroup (%s); want Apply to refuse the bound:\n%s", reason, out)
	}
}

func lineValue(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			return v
		}
	}
	return ""
}

// TestProcLimitCgroupMountedElsewhere moves the pids cgroup's hierarchy to a
// mount point of its own choosing, in a mount namespace of a copy of the test
// binary, and checks there that detection finds the cgroup at its new place
// and Apply bounds the processes below it. Guessing the mount point
// (/sys/fs/cgroup/...) instead of reading mountinfo fails here.
func TestProcLimitCgroupMountedElsewhere(t *testing.T) {
	const envMoved = "STOCKADE_TEST_CGROUP_MOVED"
	if os.Getenv(envMoved) != "" {
		movedChild(t)
		return
	}
	requireRoot(t)
	dir, why := hostfacts.FindPidsCgroup()
	if dir == "" {
		t.Skip(why)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestProcLimitCgroupMountedElsewhere$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envMoved+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	b, err := cmd.CombinedOutput()
	out := string(b)
	for _, l := range strings.Split(out, "\n") {
		if d, ok := strings.CutPrefix(l, "ELSEWHERE="); ok {
			os.Remove(d) // its mount went with the child's namespace
		}
	}
	if made := procLimitOf(out); made != "" {
		t.Logf("Apply made %s", made)
		if err := RemoveProcLimit(made); err != nil {
			t.Errorf("RemoveProcLimit: %v", err)
		}
	}
	if err != nil || !strings.Contains(out, "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if strings.Contains(out, "--- SKIP") {
		t.Skipf("child skipped:\n%s", out)
	}
}

// movedChild runs in its own mount namespace: it mounts the hierarchy of the
// pids cgroup again at a new place, unmounts it from the old one, then
// detects and applies a process bound.
func movedChild(t *testing.T) {
	dir, why := hostfacts.FindPidsCgroup()
	if dir == "" {
		t.Skip(why)
	}
	// The mount the cgroup is under: the longest cgroup mount point that is
	// a prefix of dir.
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var point, fstype, opts string
	for _, line := range strings.Split(string(mi), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if !ok || len(pf) < 5 || len(qf) < 3 || pf[3] != "/" || (qf[0] != "cgroup" && qf[0] != "cgroup2") {
			continue
		}
		if p := pf[4]; (dir == p || strings.HasPrefix(dir, p+"/")) && len(p) > len(point) {
			point, fstype = p, qf[0]
			if fstype == "cgroup" {
				opts = "pids"
			}
		}
	}
	if point == "" {
		t.Skipf("no cgroup mount with root / holds %s", dir)
	}
	elsewhere, err := os.MkdirTemp("", "cgroup-elsewhere-")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ELSEWHERE=%s\n", elsewhere)
	if err := unix.Mount("none", elsewhere, fstype, 0, opts); err != nil {
		t.Skipf("mount %s at %s: %v", fstype, elsewhere, err)
	}
	if err := unix.Unmount(point, unix.MNT_DETACH); err != nil {
		t.Fatalf("unmount %s: %v", point, err)
	}
	want := filepath.Join(elsewhere, strings.TrimPrefix(dir, point))
	h := hostfacts.Detect()
	if h.PidsCgroup != want {
		t.Fatalf("with the hierarchy moved from %s to %s, detection reports %q (%s); want %s", point, elsewhere, h.PidsCgroup, h.PidsReason, want)
	}
	a, err := Apply(Spec{FS: FSOff, MaxProcs: 50})
	if err != nil {
		t.Fatalf("detection reports %s, but Apply: %v", h.PidsCgroup, err)
	}
	if filepath.Dir(a.ProcLimit) != want {
		t.Errorf("Apply made %s, want a cgroup below %s", a.ProcLimit, want)
	}
	// The parent removes the cgroup where it sees it.
	fmt.Printf("PROCLIMIT=%s\n", filepath.Join(point, strings.TrimPrefix(a.ProcLimit, elsewhere)))
}
