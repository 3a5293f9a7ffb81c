//go:build linux

package hostfacts

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPidsCgroup finds the pids cgroup from mountinfo and /proc/self/cgroup
// texts of the layouts stockade meets; the cgroup files are in a temporary
// directory standing for the cgroup mounts.
func TestPidsCgroup(t *testing.T) {
	root := t.TempDir()
	mk := func(dir, controllers string) {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if controllers != "" {
			os.WriteFile(filepath.Join(root, dir, "cgroup.controllers"), []byte(controllers), 0o644)
		}
	}
	mk("pids/ci", "")
	mk("cpu,pids/ci", "")
	mk("v2/user.slice/app", "cpu memory pids\n")
	mk("v2/nopids", "cpu memory\n")
	mk("unified", "\n")
	mk("ctr/sub", "pids\n")
	writableDirs := map[string]bool{}
	for _, d := range []string{"pids/ci", "cpu,pids/ci", "v2/user.slice/app", "v2/nopids", "unified", "ctr", "ctr/sub"} {
		writableDirs[filepath.Join(root, d)] = true
	}
	canWrite := func(d string) bool { return writableDirs[d] }
	mount := func(fstype, mroot, point, super string) string {
		return "30 22 0:27 " + mroot + " " + filepath.Join(root, point) + " rw,relatime - " + fstype + " " + fstype + " " + super + "\n"
	}
	v2 := mount("cgroup2", "/", "v2", "rw")
	hybrid := mount("cgroup", "/", "pids", "rw,pids") + mount("cgroup2", "/", "unified", "rw")
	tests := []struct {
		name, mountinfo, self, dir, why string
	}{
		{name: "v1", mountinfo: hybrid, self: "12:pids:/ci\n0::/\n", dir: "pids/ci"},
		// Where the pids hierarchy shares a mount with another controller,
		// the mount point is not .../pids: only mountinfo knows.
		{name: "v1 co-mounted", mountinfo: mount("cgroup", "/", "cpu,pids", "rw,cpu,pids"), self: "3:cpu,pids:/ci\n", dir: "cpu,pids/ci"},
		{name: "v1 not writable", mountinfo: hybrid, self: "12:pids:/other\n", why: "(v1) is not writable"},
		{name: "v2", mountinfo: v2, self: "0::/user.slice/app\n", dir: "v2/user.slice/app"},
		{name: "v2 no controllers file", mountinfo: v2, self: "0::/user.slice\n", why: "cgroup " + filepath.Join(root, "v2/user.slice")},
		{name: "v2 without pids", mountinfo: v2, self: "0::/nopids\n", why: "the pids controller is not enabled for cgroup"},
		{name: "v2 not mounted", mountinfo: "", self: "0::/app\n", why: "no cgroup v2 mount"},
		// A container that got its own subtree bind-mounted: the cgroup path
		// is taken relative to the mount's root.
		{name: "v2 subtree mount", mountinfo: mount("cgroup2", "/docker/abc", "ctr", "rw"), self: "0::/docker/abc/sub\n", dir: "ctr/sub"},
		{name: "v2 outside the mount", mountinfo: mount("cgroup2", "/docker/abc", "ctr", "rw"), self: "0::/other\n", why: "no cgroup v2 mount"},
		// Hybrid: the pids controller is bound to v1, so v2 lacks it.
		{name: "hybrid", mountinfo: hybrid, self: "12:pids:/ci\n0::/\n", dir: "pids/ci"},
		{name: "no pids", mountinfo: mount("cgroup", "/", "memory", "rw,memory"), self: "4:memory:/x\n", why: "no pids cgroup controller"},
		{name: "nothing", why: "no pids cgroup controller"},
	}
	for _, tt := range tests {
		dir, why := pidsCgroup(tt.mountinfo, tt.self, os.ReadFile, canWrite)
		wantDir := ""
		if tt.dir != "" {
			wantDir = filepath.Join(root, tt.dir)
		}
		if dir != wantDir || !strings.Contains(why, tt.why) || (tt.why == "") != (why == "") {
			t.Errorf("%s: pidsCgroup = %q, %q; want %q, %q", tt.name, dir, why, wantDir, tt.why)
		}
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{
		`/sys/fs/cgroup`:      "/sys/fs/cgroup",
		`/mnt/a\040b`:         "/mnt/a b",
		`/mnt/tab\011x\134y`:  "/mnt/tab\tx\\y",
		`/mnt/short\04`:       `/mnt/short\04`,
		`/mnt/notoctal\999zz`: `/mnt/notoctal\999zz`,
	} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFindPidsCgroupThisHost checks the answer on this machine against an
// independent reading: the directory is a writable cgroup directory that holds
// this process.
func TestFindPidsCgroupThisHost(t *testing.T) {
	dir, why := FindPidsCgroup()
	t.Logf("pids cgroup %q %s", dir, why)
	if (dir == "") == (why == "") {
		t.Fatalf("dir %q with reason %q: want exactly one", dir, why)
	}
	if dir == "" {
		return
	}
	if !writable(dir) {
		t.Errorf("%s is not writable", dir)
	}
	procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		t.Fatalf("%s is not a cgroup: %v", dir, err)
	}
	if !hasWord(string(procs), strconv.Itoa(os.Getpid())) {
		t.Errorf("%s does not hold this process (%d)", dir, os.Getpid())
	}
}
