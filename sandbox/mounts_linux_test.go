//go:build linux

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttackMetadata changes the metadata of files outside the writable roots,
// which Landlock has no right for: as root, who owns them, chmod, utimes and
// setxattr need no capability. The read-only mounts refuse them.
func TestAttackMetadata(t *testing.T) {
	requireRoot(t)
	requireABI(t, 1)
	file := func(v map[string]string) string { return filepath.Join(v["out"], "file") }
	cases := map[string]attack{
		"chmod outside": {do: func(t *testing.T, v map[string]string) error {
			return os.Chmod(file(v), 0o4777)
		}},
		"chmod a directory outside": {do: func(t *testing.T, v map[string]string) error {
			return os.Chmod(filepath.Join(v["out"], "dir"), 0o777)
		}},
		"utimes outside": {do: func(t *testing.T, v map[string]string) error {
			return unix.UtimesNano(file(v), []unix.Timespec{{Sec: 978307200}, {Sec: 978307200}})
		}},
		"utimes now outside": {do: func(t *testing.T, v map[string]string) error {
			return unix.UtimesNano(file(v), nil)
		}},
		"setxattr outside": {setup: xattrVars, do: func(t *testing.T, v map[string]string) error {
			return unix.Setxattr(file(v), "user.escape", []byte("pwned"), 0)
		}},
		"chmod in /proc": {do: func(t *testing.T, v map[string]string) error {
			// Its own mode again: changes nothing without the sandbox. A mode
			// of 0222 would let any user write it (and crash the host).
			fi, err := os.Stat("/proc/sysrq-trigger")
			if err != nil {
				t.Skip(err)
			}
			return os.Chmod("/proc/sysrq-trigger", fi.Mode().Perm())
		}},
	}
	for name, a := range cases {
		if a.setup == nil {
			a.setup = fsVars
		}
		a.spec, a.want = wsSpec, unix.EROFS
		a.after = func(t *testing.T, v map[string]string, sandboxed bool, out string) {
			// Put back what the run without the sandbox changed.
			os.Chmod(file(v), 0o644)
			os.Chmod(filepath.Join(v["out"], "dir"), 0o755)
		}
		t.Run(name, a.run)
		ro := a
		ro.spec = roSpec
		t.Run(name+" (read-only)", ro.run)
	}
}

// xattrVars is fsVars where the outside file takes user xattrs: tmpfs has
// them from Linux 6.6 on (the 6.1 guest of the kernel matrix has none).
func xattrVars(t *testing.T) map[string]string {
	v := fsVars(t)
	f := filepath.Join(v["out"], "file")
	if err := unix.Setxattr(f, "user.probe", []byte("1"), 0); errors.Is(err, unix.EOPNOTSUPP) {
		t.Skipf("no user xattrs on %s: %v", v["out"], err)
	}
	unix.Removexattr(f, "user.probe")
	return v
}

// TestReadOnlyMountsAllow checks what must keep working as root with the
// read-only mounts: chmod +x, utimes and xattrs in the workdir and TMPDIR,
// from this process and from a command it starts; a cwd inside the workdir
// taken before Apply; the devices.
func TestReadOnlyMountsAllow(t *testing.T) {
	requireRoot(t)
	requireABI(t, 1)
	if inChild() {
		var v map[string]string
		if err := jsonVars(&v); err != nil {
			t.Fatal(err)
		}
		// Taken before the mounts change: Apply must move it onto the
		// writable clone of the workdir.
		must(t, os.Chdir(v["work"]))
		a := applyFromEnv(t)
		if !a.ReadOnlyMounts {
			t.Fatalf("no read-only mounts: %+v", a)
		}
		for _, dir := range []string{v["work"], v["tmp"]} {
			s := filepath.Join(dir, "script.sh")
			must(t, os.WriteFile(s, []byte("#!/bin/sh\necho ran\n"), 0o644))
			must(t, os.Chmod(s, 0o755))
			must(t, unix.UtimesNano(s, nil))
			if err := unix.Setxattr(s, "user.ok", []byte("1"), 0); err != nil && !errors.Is(err, unix.EOPNOTSUPP) {
				t.Error(err)
			}
			must(t, os.Chmod(dir, 0o755))
		}
		cmd := exec.Command("sh", "-c", "chmod -x ./script.sh && chmod +x ./script.sh && ./script.sh && touch -d 2001-01-01 script.sh && echo x > /dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "ran" {
			t.Errorf("a command in the workdir: %v\n%s", err, out)
		}
		for _, dev := range []string{"/dev/null", "/dev/full"} {
			f, err := os.OpenFile(dev, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Errorf("opening %s for writing: %v", dev, err)
				continue
			}
			_, err = f.Write([]byte("x"))
			if dev == "/dev/full" && errors.Is(err, unix.ENOSPC) {
				err = nil
			}
			must(t, err)
			f.Close()
		}
		if _, err := os.ReadFile("/proc/self/status"); err != nil {
			t.Errorf("reading /proc: %v", err)
		}
		return
	}
	v := fsVars(t)
	if out, err := runChild(t, "sandboxed", wsSpec(v), v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if fi, err := os.Stat(filepath.Join(v["work"], "script.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("script.sh after the run: %v, %v", fi, err)
	}
}

// TestAttackMetadataThroughOtherThreads goes around the read-only mounts
// through /proc/PID/task/TID/root of the process that started the command:
// its other threads never entered the mount namespace (Apply enters it on the
// thread that starts commands only), so their root is the host's, writable.
// What stops it: below Landlock ABI 8 each thread has a Landlock domain of its
// own (see restrict), and a domain may not look into a sibling's; from ABI 8
// on, all share one, and it is that the zygote makes itself non-dumpable after
// Apply (as this test does), so a process without capabilities may not look
// into it. For `stockade run` (Start), the other threads of stockade have no
// Landlock domain at all, and a command in a domain may not look into a
// process outside it.
func TestAttackMetadataThroughOtherThreads(t *testing.T) {
	requireRoot(t)
	requireABI(t, 1)
	attack{setup: fsVars, spec: wsSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
		startThreads(2)
		unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		script := `for t in /proc/$PPID/task/*; do chmod 0777 "$t/root$1" && echo CHANGED; done; true`
		out, err := exec.Command("sh", "-c", script, "sh", filepath.Join(v["out"], "file")).CombinedOutput()
		switch {
		case err != nil:
			t.Fatalf("%v\n%s", err, out)
		case strings.Contains(string(out), "CHANGED"):
			return nil
		case strings.Contains(string(out), "Permission denied"):
			return unix.EACCES
		}
		t.Fatalf("unexpected output:\n%s", out)
		return nil
	}, after: func(t *testing.T, v map[string]string, sandboxed bool, out string) {
		os.Chmod(filepath.Join(v["out"], "file"), 0o644)
	}}.run(t)
}
