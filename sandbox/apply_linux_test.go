//go:build linux

package sandbox

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stockade/stockade/hostfacts"
	"golang.org/x/sys/unix"
)

// TestApplyStatus applies the default sandbox and reads back, in the child,
// what every thread has.
func TestApplyStatus(t *testing.T) {
	requireABI(t, 1)
	if inChild() {
		admin, _ := hostfacts.EffectiveCap(unix.CAP_SYS_ADMIN)
		a := applyFromEnv(t)
		want := Applied{NoNewPrivs: true, LandlockABI: kernelABI(), Seccomp: true, Scopes: kernelABI() >= hostfacts.ABIScopes,
			CapsDropped: os.Geteuid() == 0, ReadOnlyMounts: admin, SysVIPC: SysVRefused}
		a.Notes = ""
		if a.ReadOnlyProtected = nil; !reflect.DeepEqual(a, want) {
			t.Fatalf("Applied = %+v, want %+v", a, want)
		}
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, task := range tasks {
			b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			for _, line := range []string{"NoNewPrivs:\t1", "Seccomp:\t2"} {
				if !strings.Contains(s, line+"\n") {
					t.Errorf("thread %s: no %q", task.Name(), line)
				}
			}
			if os.Geteuid() == 0 {
				caps := []string{"CapInh", "CapPrm", "CapEff", "CapAmb"}
				if task.Name() == strconv.Itoa(unix.Gettid()) {
					// The bounding set is emptied on the thread that starts
					// commands, which Apply locked (see dropCaps).
					caps = append(caps, "CapBnd")
				}
				for _, c := range caps {
					if !strings.Contains(s, c+":\t0000000000000000\n") {
						t.Errorf("thread %s: %s not zero", task.Name(), c)
					}
				}
			}
		}
		return
	}
	spec := strictSpec(t.TempDir(), t.TempDir())
	if out, err := runChild(t, "sandboxed", spec, nil); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestApplyRefusesBadSpecs checks that what cannot be applied is an error
// before anything changes (so these run in the test process itself).
func TestApplyRefusesBadSpecs(t *testing.T) {
	for name, spec := range map[string]Spec{
		"no fs mode":               {},
		"fs without landlock":      {FS: FSReadOnly},
		"deny without landlock":    {FS: FSOff, DenyRead: []string{"/etc"}},
		"unix off without seccomp": {FS: FSOff, UnixSocketsOff: true},
		"net off with nothing":     {FS: FSOff, NetworkOff: true, LandlockABI: 3},
		"scopes at abi 5":          {FS: FSOff, Scopes: true, LandlockABI: 5},
		"relative workdir":         {FS: FSWorkspaceWrite, LandlockABI: 1, Workdir: "work"},
	} {
		if _, err := Apply(spec); err == nil {
			t.Errorf("%s: Apply(%+v) succeeded", name, spec)
		}
	}
}
