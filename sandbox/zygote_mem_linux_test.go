//go:build linux

package sandbox

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// binaryRss is the resident size, in KiB, of this process's read-only
// mappings of its own binary.
func binaryRss(t *testing.T) int {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, ours := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 6 && strings.Contains(fields[0], "-"):
			ours = fields[5] == exe && (fields[1] == "r-xp" || fields[1] == "r--p")
		case ours && len(fields) == 3 && fields[0] == "Rss:":
			kb, _ := strconv.Atoi(fields[1])
			total += kb
		}
	}
	return total
}

// TestDropBinaryPages checks that the zygote's release gives back the pages
// of its binary that it read, and that the process goes on running code
// from them afterwards.
func TestDropBinaryPages(t *testing.T) {
	before := binaryRss(t)
	dropBinaryPages()
	after := binaryRss(t)
	t.Logf("resident pages of the binary: %d KiB before, %d KiB after", before, after)
	// Reading smaps and the collector map some pages again at once.
	if after >= before {
		t.Errorf("%d KiB of the binary resident after the release, %d KiB before: want less", after, before)
	}
	if _, err := landlockPlan(Spec{LandlockABI: 1, FS: FSReadOnly}); err != nil {
		t.Fatal(err)
	}
}

// TestIdleReleaseDropsBinaryPages checks that the zygote's idle release
// drops the binary's pages again, a second after the last event, once no
// command runs (TestDropBinaryPages checks what a drop gives back).
func TestIdleReleaseDropsBinaryPages(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	idle, stop := idleRelease()
	defer stop()
	before := binaryDrops.Load()
	idle(false)
	for deadline := time.Now().Add(30 * time.Second); binaryDrops.Load() == before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the binary's pages were not dropped 30 s after the last event, with no command running")
		}
	}
}

// TestIdleReleaseDropsBinaryPagesWhenIdle checks that the binary's pages are
// dropped idleDropAfter after the last event even while a command runs (the
// prepared shell of an idle session).
func TestIdleReleaseDropsBinaryPagesWhenIdle(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	idle, stop := idleRelease()
	defer stop()
	idle(true)
	before := binaryDrops.Load()
	for deadline := time.Now().Add(30 * time.Second); binaryDrops.Load() == before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the binary's pages were not dropped 30 s after the last event, with a command running")
		}
	}
}
