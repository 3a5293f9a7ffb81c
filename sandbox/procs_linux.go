//go:build linux

package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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

// joinProcLimit creates the cgroup, bounds it to max tasks and moves this
// process into it. It returns the cgroup's directory.
func joinProcLimit(max int) (string, error) {
	parent, err := pidsCgroupDir()
	if err != nil {
		return "", err
	}
	var rnd [4]byte
	rand.Read(rnd[:])
	dir := filepath.Join(parent, fmt.Sprintf("%s%d-%s", procLimitPrefix, os.Getpid(), hex.EncodeToString(rnd[:])))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("process bound: %w", err)
	}
	fail := func(err error) (string, error) {
		os.Remove(dir)
		return "", fmt.Errorf("process bound: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
		return fail(err)
	}
	return dir, nil
}

// pidsCgroupDir finds the directory of the pids cgroup this process is in,
// where a child cgroup with the pids controller can be made.
func pidsCgroupDir() (string, error) {
	v1Mount, v2Mount, err := cgroupMounts()
	if err != nil {
		return "", err
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("process bound: %w", err)
	}
	var v1Path, v2Path string
	hasV2 := false
	for line := range strings.SplitSeq(strings.TrimSpace(string(own)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path, hasV2 = parts[2], true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" {
				v1Path = parts[2]
			}
		}
	}
	if v2Mount != "" && hasV2 {
		dir := filepath.Join(v2Mount, v2Path)
		if enablePidsV2(dir) {
			return dir, nil
		}
	}
	if v1Mount != "" && v1Path != "" {
		return filepath.Join(v1Mount, v1Path), nil
	}
	return "", errors.New("process bound: no pids cgroup controller is available (neither cgroup v2 with pids delegated nor a cgroup v1 pids hierarchy)")
}

// enablePidsV2 reports whether child cgroups of dir can have the pids
// controller, enabling it when dir allows.
func enablePidsV2(dir string) bool {
	ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return false
	}
	if slicesContains(strings.Fields(string(ctl)), "pids") {
		return true
	}
	avail, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil || !slicesContains(strings.Fields(string(avail)), "pids") {
		return false
	}
	// Fails (EBUSY) when dir holds processes and is not the root: cgroup v2 has
	// no processes in inner nodes.
	return os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+pids"), 0) == nil
}

func slicesContains(list []string, s string) bool { return contains(list, s) }

// cgroupMounts finds the mount points of the cgroup v1 pids hierarchy and of
// cgroup v2, from /proc/self/mountinfo.
func cgroupMounts() (v1Pids, v2 string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", fmt.Errorf("process bound: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		mnt := unescapeMountinfo(pf[4])
		switch qf[0] {
		case "cgroup2":
			if v2 == "" {
				v2 = mnt
			}
		case "cgroup":
			if v1Pids == "" && slicesContains(strings.Split(qf[2], ","), "pids") {
				v1Pids = mnt
			}
		}
	}
	return v1Pids, v2, sc.Err()
}

// unescapeMountinfo undoes the octal escapes (\040 for a space) of mountinfo.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// RemoveProcLimit stops every process left in the cgroup a child reported in
// Applied.ProcLimit, then removes the cgroup. The parent calls it once the
// child has exited. It refuses any directory stockade did not create.
func RemoveProcLimit(dir string) error {
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
	// cgroup v2 kills the whole cgroup at once; v1 needs a loop, since the
	// processes may fork while they are being killed (there are at most
	// pids.max of them, so it ends).
	os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := unix.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			return fmt.Errorf("remove process bound: %w", err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("remove process bound: %s still holds processes after 10s", dir)
		}
		procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		for _, f := range strings.Fields(string(procs)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				unix.Kill(pid, unix.SIGKILL)
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
}
