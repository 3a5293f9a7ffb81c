// Package testexe is for tests that run a copy of their own test binary as
// another user (nobody), who cannot reach the build cache's directories.
package testexe

import (
	"os"
	"path/filepath"
	"testing"
)

// ReachableCopy copies the running test binary into a fresh directory of
// mode 0755 that t removes at its end, and returns the copy's path.
func ReachableCopy(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "stockade-testexe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	exe := filepath.Join(dir, filepath.Base(self))
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}
