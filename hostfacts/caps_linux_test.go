//go:build linux

package hostfacts

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestEffectiveCap compares the probe with the calling thread's CapEff line
// in /proc/thread-self/status, for every capability the kernel knows.
func TestEffectiveCap(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		t.Fatal(err)
	}
	var eff uint64
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			eff, _ = strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		got, err := EffectiveCap(c)
		if err != nil {
			t.Fatal(err)
		}
		if want := eff&(1<<c) != 0; got != want {
			t.Errorf("capability %d: %v, /proc says %v", c, got, want)
		}
	}
	if admin, _ := EffectiveCap(unix.CAP_SYS_ADMIN); admin != Detect().SysAdmin {
		t.Errorf("EffectiveCap(CAP_SYS_ADMIN) = %v, Detect says %v", admin, Detect().SysAdmin)
	}
}
