//go:build linux

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/internal/kfile"
	"golang.org/x/sys/unix"
)

// The process bound. RLIMIT_NPROC does nothing for uid 0, so the child puts
// itself in a pids cgroup of its own, below the cgroup it was started in:
// a cgroup v2 one where the pids controller can be enabled there, else the
// cgroup v1 pids hierarchy. pids.max counts tasks, so the zygote's own threads
// count for as long as it lives; `stockade run` (Start) is in the cgroup only
// while it forks the command.
//
// The cgroup also holds every process the command starts, however it detaches
// (double fork, setsid, daemon), so the parent stops them all and removes the
// cgroup with RemoveProcLimit once the child is gone.

// procLimitPrefix starts the name of every cgroup stockade creates; RemoveProcLimit
// refuses anything else.
const procLimitPrefix = "stockade-"

// A cgroup's name is procLimitPrefix, its owner, a dash and a random suffix.
// The owner is the stockade instance whose state directory the command works
// in (PID-RANDOM, the name of its directory under Spec.PrivateRoot), so that
// a later start can tell whether the stockade that made it still lives (see
// RemoveDeadProcLimits); without a state directory, it is this process's pid.

// procLimitOwner is the owner a cgroup made for spec is named after.
func procLimitOwner(spec Spec) string {
	if spec.PrivateRoot != "" && spec.SessionDir != "" {
		instance := filepath.Dir(spec.SessionDir)
		if filepath.Dir(instance) == filepath.Clean(spec.PrivateRoot) {
			return filepath.Base(instance)
		}
	}
	return strconv.Itoa(os.Getpid())
}

// joinProcLimit creates the cgroup, named after owner, bounds it to max tasks
// and moves this process into it. It returns the cgroup's directory.
func joinProcLimit(max int, owner string) (string, error) {
	parent, err := pidsCgroupDir()
	if err != nil {
		return "", err
	}
	var rnd [4]byte
	rand.Read(rnd[:])
	dir := filepath.Join(parent, procLimitPrefix+owner+"-"+hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("process bound: %w", err)
	}
	fail := func(err error) (string, error) {
		os.Remove(dir)
		return "", fmt.Errorf("process bound: %w", err)
	}
	if err := kfile.Write(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max))); err != nil {
		return fail(err)
	}
	if err := kfile.Write(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid()))); err != nil {
		return fail(err)
	}
	return dir, nil
}

// pidsCgroupDir is the pids cgroup a child cgroup with the pids controller is
// made under: where hostfacts.FindPidsCgroup, which detection also reports,
// says it is. In cgroup v2 the pids controller is enabled for its children
// when it is not yet.
func pidsCgroupDir() (string, error) {
	dir, why := hostfacts.FindPidsCgroup()
	if dir == "" {
		return "", fmt.Errorf("process bound: %s", why)
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.subtree_control")); err == nil && !enablePidsV2(dir) {
		return "", fmt.Errorf("process bound: the pids controller cannot be enabled below cgroup %s", dir)
	}
	return dir, nil
}

// enablePidsV2 reports whether child cgroups of dir can have the pids
// controller, enabling it when dir allows.
func enablePidsV2(dir string) bool {
	ctl, err := kfile.Read(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return false
	}
	if slices.Contains(strings.Fields(string(ctl)), "pids") {
		return true
	}
	// Fails (EBUSY) when dir holds processes and is not the root: cgroup v2 has
	// no processes in inner nodes.
	return kfile.Write(filepath.Join(dir, "cgroup.subtree_control"), []byte("+pids")) == nil
}

// RemoveProcLimit stops every process left in the cgroup a child reported in
// Applied.ProcLimit, then removes the cgroup. The parent calls it once the
// child has exited. It refuses any directory stockade did not create.
func RemoveProcLimit(dir string) error { return removeProcLimitWithin(dir, 10*time.Second) }

// removeProcLimitWithin is RemoveProcLimit, giving up after d.
func removeProcLimitWithin(dir string, d time.Duration) error {
	if dir == "" {
		return nil
	}
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir || !strings.HasPrefix(filepath.Base(dir), procLimitPrefix) {
		return fmt.Errorf("remove process bound: %q is not a stockade cgroup", dir)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return fmt.Errorf("remove process bound: %w", err)
	}
	if fs.Type != unix.CGROUP_SUPER_MAGIC && fs.Type != unix.CGROUP2_SUPER_MAGIC {
		return fmt.Errorf("remove process bound: %s is not on a cgroup filesystem", dir)
	}
	// Never with this process inside: stockade run joins the cgroup for the
	// fork only, and one that failed to leave must not kill itself here.
	if holdsSelf(dir) {
		moveOutOfProcLimit(dir)
		if holdsSelf(dir) {
			return fmt.Errorf("remove process bound: this process is still in %s", dir)
		}
	}
	// cgroup v2 kills the whole cgroup at once; v1 needs a loop, since the
	// processes may fork while they are being killed (there are at most
	// pids.max of them, so it ends).
	kfile.Write(filepath.Join(dir, "cgroup.kill"), []byte("1"))
	deadline := time.Now().Add(d)
	for {
		err := unix.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			return fmt.Errorf("remove process bound: %w", err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("remove process bound: %s still holds processes after %s", dir, d)
		}
		procs, _ := kfile.Read(filepath.Join(dir, "cgroup.procs"))
		for _, f := range strings.Fields(string(procs)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 && pid != os.Getpid() {
				unix.Kill(pid, unix.SIGKILL)
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// holdsSelf reports whether this process is in the cgroup at dir.
func holdsSelf(dir string) bool {
	procs, _ := kfile.Read(filepath.Join(dir, "cgroup.procs"))
	self := strconv.Itoa(os.Getpid())
	for _, f := range strings.Fields(string(procs)) {
		if f == self {
			return true
		}
	}
	return false
}

// RemoveDeadProcLimits stops the processes in, and removes, the process-bound
// cgroups of this user that live says are no longer their owner's: those of
// a stockade that died without removing them (SIGKILL, the OOM killer), with
// whatever its command left there however it detached. It looks below the
// pids cgroup a new cgroup would be made under (where a stockade started from
// the same place made its own; detection, which the plan needs anyway, finds
// it), and returns how many cgroups it removed and how many processes were
// in them.
//
// Once deadProcLimitBudget has passed (50 ms more for each cgroup still to
// do), it gives up on a cgroup whose processes fork as fast as they are
// killed (cgroup v1 has no cgroup.kill): it is left, with fewer processes, to
// the next start, rather than hold this one up for long.
func RemoveDeadProcLimits(live func(owner string) bool) (cgroups, processes int) {
	deadline := time.Now().Add(deadProcLimitBudget)
	parent := hostfacts.Detect().PidsCgroup
	if parent == "" {
		return 0, 0
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0, 0
	}
	for _, e := range entries {
		owner, ok := procLimitOwnerOf(e.Name())
		if !ok || !e.IsDir() {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		var st unix.Stat_t
		if unix.Lstat(dir, &st) != nil || int(st.Uid) != os.Geteuid() || live(owner) {
			continue
		}
		procs, _ := kfile.Read(filepath.Join(dir, "cgroup.procs"))
		if err := removeProcLimitWithin(dir, max(time.Until(deadline), 50*time.Millisecond)); err != nil {
			slog.Warn("could not remove a dead stockade's process-bound cgroup yet; the next start tries again", "dir", dir, "error", err)
			continue
		}
		cgroups++
		processes += len(strings.Fields(string(procs)))
	}
	return cgroups, processes
}

// deadProcLimitBudget bounds the time one start spends removing dead
// stockades' cgroups.
const deadProcLimitBudget = 2 * time.Second

// procLimitOwnerOf is the owner a cgroup's name carries, if it is one of
// stockade's.
func procLimitOwnerOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, procLimitPrefix)
	i := strings.LastIndexByte(rest, '-')
	if !ok || i <= 0 {
		return "", false
	}
	return rest[:i], true
}
