//go:build linux

package hostfacts

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stockade/stockade/internal/kfile"
	"golang.org/x/sys/unix"
)

// FindPidsCgroup finds the pids cgroup a process bound is made under: the
// cgroup this process is in, in the cgroup v2 hierarchy when the pids
// controller is available there, else in the cgroup v1 pids hierarchy. Both
// hierarchies are found where /proc/self/mountinfo says they are mounted,
// never guessed. The sandbox makes its bounded cgroup as a child of dir; when
// dir is empty, why says what is missing.
//
// Detection and the sandbox both call it, so what `stockade doctor` reports is
// the cgroup the sandbox then uses.
func FindPidsCgroup() (dir, why string) {
	mountinfo, err := kfile.Read("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Sprintf("reading /proc/self/mountinfo: %v", err)
	}
	self, err := kfile.Read("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Sprintf("reading /proc/self/cgroup: %v", err)
	}
	return pidsCgroup(string(mountinfo), string(self), kfile.Read, writable)
}

func writable(dir string) bool { return unix.Access(dir, unix.W_OK) == nil }

// pidsCgroup is FindPidsCgroup on the text of /proc/self/mountinfo and
// /proc/self/cgroup, reading cgroup files with read and asking canWrite
// whether a directory is writable.
func pidsCgroup(mountinfo, self string, read func(string) ([]byte, error), canWrite func(string) bool) (dir, why string) {
	var v1Path, v2Path string
	hasV1, hasV2 := false, false
	for _, line := range strings.Split(strings.TrimSpace(self), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path, hasV2 = parts[2], true
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" {
				v1Path, hasV1 = parts[2], true
			}
		}
	}
	v1, v2 := cgroupMounts(mountinfo)

	// cgroup v2, where its pids controller is available to this cgroup.
	if hasV2 {
		d, ok := v2.dir(v2Path)
		ctl, err := read(filepath.Join(d, "cgroup.controllers"))
		switch {
		case !ok:
			why = "no cgroup v2 mount with this process's cgroup"
		case err != nil:
			why = fmt.Sprintf("cgroup %s: %v", d, err)
		case !hasWord(string(ctl), "pids"):
			why = fmt.Sprintf("the pids controller is not enabled for cgroup %s", d)
		case !canWrite(d):
			return "", fmt.Sprintf("cgroup %s is not writable (not delegated to this user)", d)
		default:
			return d, ""
		}
	}
	// The cgroup v1 pids hierarchy.
	if hasV1 {
		d, ok := v1.dir(v1Path)
		switch {
		case !ok:
			return "", "no cgroup v1 pids mount with this process's cgroup"
		case !canWrite(d):
			return "", fmt.Sprintf("pids cgroup %s (v1) is not writable", d)
		}
		return d, ""
	}
	if why == "" {
		why = "no pids cgroup controller"
	}
	return "", why
}

// cgroupMount is where a cgroup hierarchy is mounted: root is the cgroup at
// the mount point (not "/" in a container that got a subtree bind-mounted).
type cgroupMount struct{ root, point string }

// dir is the directory of cgroup path (as /proc/self/cgroup gives it) under
// the mount; false when there is no mount, or the cgroup is not under it.
func (m cgroupMount) dir(path string) (string, bool) {
	if m.point == "" {
		return "", false
	}
	rel, ok := path, true
	if m.root != "/" {
		switch {
		case path == m.root:
			rel = "/"
		case strings.HasPrefix(path, m.root+"/"):
			rel = strings.TrimPrefix(path, m.root)
		default:
			ok = false
		}
	}
	return filepath.Join(m.point, rel), ok
}

// cgroupMounts finds, in the text of /proc/self/mountinfo, the first mount of
// the cgroup v1 pids hierarchy and of cgroup v2.
func cgroupMounts(mountinfo string) (v1Pids, v2 cgroupMount) {
	for _, line := range strings.Split(mountinfo, "\n") {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		m := cgroupMount{root: unescapeMountinfo(pf[3]), point: unescapeMountinfo(pf[4])}
		switch qf[0] {
		case "cgroup2":
			if v2.point == "" {
				v2 = m
			}
		case "cgroup":
			if v1Pids.point == "" && hasWord(strings.ReplaceAll(qf[2], ",", " "), "pids") {
				v1Pids = m
			}
		}
	}
	return v1Pids, v2
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

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}
