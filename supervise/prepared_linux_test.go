package supervise

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/sandbox"
)

// TestPreparedShellIsSandboxed: a prepared shell is in the session's sandbox
// like any command: it writes in the workdir, not beside it.
func TestPreparedShellIsSandboxed(t *testing.T) {
	abi, _ := hostfacts.LandlockVersion()
	if abi == 0 {
		t.Skip("no Landlock here")
	}
	root := t.TempDir()
	work := filepath.Join(root, "work")
	os.Mkdir(work, 0o755)
	s, err := NewSession(Config{Workdir: work, preparedIdle: time.Hour,
		Env:  []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + work},
		Spec: sandbox.Spec{FS: sandbox.FSWorkspaceWrite, LandlockABI: abi}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	got := prepRun(t, s, "touch inside && touch ../outside; echo $?")
	if got.Stdout.Text != "1\n" || !strings.Contains(got.Stderr.Text, "outside") {
		t.Errorf("stdout %q stderr %q", got.Stdout.Text, got.Stderr.Text)
	}
	if _, err := os.Stat(filepath.Join(work, "inside")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(root, "outside")); err == nil {
		t.Error("the prepared shell wrote beside the workdir")
	}
}
