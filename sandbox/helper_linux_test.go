//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/stockade/stockade/hostfacts"
	"golang.org/x/sys/unix"
)

// Tests of what a sandboxed process can do run in a fresh copy of the test
// binary, started for just that test (-test.run), which calls Apply for real and
// then tries the attack. The environment tells the copy what it is.
const (
	envChild = "STOCKADE_TEST_CHILD" // "plain" or "sandboxed"
	envSpec  = "STOCKADE_TEST_SPEC"  // the Spec, as JSON
	envVars  = "STOCKADE_TEST_VARS"  // values from the parent's setup, as JSON
)

func inChild() bool { return os.Getenv(envChild) != "" }

// kernelABI is the Landlock ABI of this kernel, capped at what stockade knows.
func kernelABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return min(v, hostfacts.MaxLandlockABI)
}

func requireABI(t testing.TB, want int) {
	t.Helper()
	if v := kernelABI(); v < want {
		t.Skipf("needs landlock ABI %d, this kernel has %d", want, v)
	}
}

func requireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
}

// strictSpec is the default policy's sandbox at this kernel's ABI.
func strictSpec(work, tmp string) Spec {
	abi := kernelABI()
	return Spec{
		FS: FSWorkspaceWrite, Workdir: work, TmpDir: tmp,
		LandlockABI: abi, NetworkOff: true, UnixSocketsOff: true, Seccomp: true,
		Scopes: abi >= hostfacts.ABIScopes, DropCaps: os.Geteuid() == 0,
	}
}

// attack is one thing a sandboxed command must not be able to do.
type attack struct {
	// spec is the sandbox, built in the parent from the setup's vars.
	spec func(vars map[string]string) Spec
	// setup runs in the parent only (listeners, files); its vars reach do.
	setup func(t *testing.T) map[string]string
	// do runs in the child: nil means the attack worked.
	do func(t *testing.T, vars map[string]string) error
	// want is what do must fail with in the sandbox.
	want error
	// after runs in the parent once each child is done.
	after func(t *testing.T, vars map[string]string, sandboxed bool, out string)
	// noPlain skips the run without the sandbox.
	noPlain bool
}

// run runs the attack twice in fresh copies of the test binary: without the
// sandbox, where it must work (so the test can fail), and after Apply, where it
// must fail with want.
func (a attack) run(t *testing.T) {
	t.Helper()
	if inChild() {
		a.child(t)
		return
	}
	vars := map[string]string{}
	if a.setup != nil {
		vars = a.setup(t)
	}
	modes := []string{"plain", "sandboxed"}
	if a.noPlain {
		modes = modes[1:]
	}
	for _, mode := range modes {
		spec := Spec{FS: FSOff}
		if mode == "sandboxed" {
			spec = a.spec(vars)
		}
		out, err := runChild(t, mode, spec, vars)
		if err != nil {
			t.Errorf("%s run: %v\n%s", mode, err, out)
		}
		if a.after != nil {
			a.after(t, vars, mode == "sandboxed", out)
		}
	}
}

func (a attack) child(t *testing.T) {
	var vars map[string]string
	json.Unmarshal([]byte(os.Getenv(envVars)), &vars)
	sandboxed := os.Getenv(envChild) == "sandboxed"
	var applied Applied
	if sandboxed {
		applied = applyFromEnv(t)
	}
	err := a.do(t, vars)
	switch {
	case !sandboxed && err != nil:
		t.Fatalf("without the sandbox the attack should work, got %v", err)
	case sandboxed && err == nil:
		t.Fatalf("the sandbox let the attack through")
	case sandboxed && !errors.Is(err, a.want) && !refusedByMounts(err, a.want, applied):
		t.Fatalf("the attack failed with %v, want %v", err, a.want)
	}
}

// refusedByMounts reports whether err is how the read-only mounts refuse a
// change outside the writable roots before Landlock is asked (EROFS; EXDEV
// for a rename or link across the mounts): they come first where they are in
// force, so an attack that Landlock refuses with EACCES fails that way instead.
// The landlockOnly variants show that Landlock alone refuses it too.
func refusedByMounts(err, want error, a Applied) bool {
	return a.ReadOnlyMounts && want == unix.EACCES && (errors.Is(err, unix.EROFS) || errors.Is(err, unix.EXDEV))
}

// noSysAdmin, in the vars of a child, makes it drop CAP_SYS_ADMIN before
// Apply: root without it (a container's root, for one) gets no read-only
// mounts, so Landlock alone stands in the way.
const noSysAdmin = "no-sys-admin"

// landlockOnly adds noSysAdmin to the vars setup makes.
func landlockOnly(setup func(t *testing.T) map[string]string) func(t *testing.T) map[string]string {
	return func(t *testing.T) map[string]string {
		v := map[string]string{}
		if setup != nil {
			v = setup(t)
		}
		v[noSysAdmin] = "1"
		return v
	}
}

// dropSysAdmin removes CAP_SYS_ADMIN from the effective set of the calling
// thread, which it locks for Apply.
func dropSysAdmin(t *testing.T) {
	runtime.LockOSThread()
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		t.Fatal(err)
	}
	data[0].Effective &^= 1 << unix.CAP_SYS_ADMIN
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		t.Fatal(err)
	}
}

// jsonVars reads the parent's vars in the child.
func jsonVars(v *map[string]string) error {
	return json.Unmarshal([]byte(os.Getenv(envVars)), v)
}

// applyFromEnv applies the spec the parent passed, and prints what it applied.
func applyFromEnv(t *testing.T) Applied {
	var spec Spec
	if err := json.Unmarshal([]byte(os.Getenv(envSpec)), &spec); err != nil {
		t.Fatal(err)
	}
	var vars map[string]string
	jsonVars(&vars)
	if vars[noSysAdmin] != "" && os.Geteuid() == 0 {
		dropSysAdmin(t)
	}
	a, err := Apply(spec)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if vars[noSysAdmin] != "" && (a.ReadOnlyMounts || !strings.Contains(a.Notes, "mounts: left writable")) {
		t.Fatalf("without CAP_SYS_ADMIN: want no read-only mounts and a note saying so, got %+v", a)
	}
	fmt.Printf("PROCLIMIT=%s\n", a.ProcLimit)
	return a
}

// runChild runs the current test in a fresh copy of the test binary.
func runChild(t *testing.T, mode string, spec Spec, vars map[string]string) (string, error) {
	t.Helper()
	return runChildNamed(t, t.Name(), mode, spec, vars)
}

// runChildNamed runs the test called name in a fresh copy of the test binary.
func runChildNamed(t testing.TB, name, mode string, spec Spec, vars map[string]string) (string, error) {
	t.Helper()
	var parts []string
	for _, p := range strings.Split(name, "/") {
		parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
	}
	specJSON, _ := json.Marshal(spec)
	varsJSON, _ := json.Marshal(vars)
	cmd := exec.Command(os.Args[0], "-test.run="+strings.Join(parts, "/"), "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envChild+"="+mode, envSpec+"="+string(specJSON), envVars+"="+string(varsJSON))
	out, err := cmd.CombinedOutput()
	if dir := procLimitOf(string(out)); dir != "" {
		if err := RemoveProcLimit(dir); err != nil {
			t.Errorf("RemoveProcLimit: %v", err)
		}
	}
	if err == nil && !strings.Contains(string(out), "--- PASS") {
		err = errors.New("the child ran no test")
	}
	return string(out), err
}

// startProbe starts a fresh copy of the test binary with Start, in spec's
// sandbox; env (NAME=VALUE) picks the probe its init runs. It returns what
// the probe printed and how it ended.
func startProbe(tb testing.TB, spec Spec, env string) (string, error) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	_, release, err := Start(spec, cmd, nil)
	if err != nil {
		tb.Fatal(err)
	}
	err = cmd.Wait()
	release()
	return out.String(), err
}

// procLimitOf finds the cgroup a child reported.
func procLimitOf(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "PROCLIMIT="); ok && v != "" {
			return v
		}
	}
	return ""
}

// closeEach accepts every connection ln gets and closes it at once, until ln
// is closed.
func closeEach(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}
