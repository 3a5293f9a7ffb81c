package supervise

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitWorkdir is a fresh repository made by the real git (hooks samples and all).
func gitWorkdir(t testing.TB) string {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

func protectedOf(dir string) []string {
	return []string{filepath.Join(dir, ".git/hooks"), filepath.Join(dir, ".git/config"), filepath.Join(dir, ".git/info/attributes")}
}

func TestChangedProtected(t *testing.T) {
	dir := gitWorkdir(t)
	paths := protectedOf(dir)
	before := SnapshotProtected(paths)
	if got := ChangedProtected(before, SnapshotProtected(paths), dir); len(got) != 0 {
		t.Fatalf("nothing changed, yet: %v", got)
	}
	// A rewrite of the same size within the same second is still seen (ctime, inode).
	cfg := filepath.Join(dir, ".git/config")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg+".new", []byte(strings.Replace(string(b), "bare = false", "bare = fals3", 1)), 0o644)
	os.Rename(cfg+".new", cfg)
	os.WriteFile(filepath.Join(dir, ".git/hooks/pre-commit"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git/info/attributes"), []byte("* filter=x\n"), 0o644)
	os.Remove(filepath.Join(dir, ".git/hooks/update.sample"))
	got := strings.Join(ChangedProtected(before, SnapshotProtected(paths), dir), "; ")
	want := ".git/config (changed); .git/hooks/pre-commit (created); .git/hooks/update.sample (removed); .git/info/attributes (created)"
	if !strings.Contains(got, want) {
		t.Errorf("changes:\n got %s\nwant %s", got, want)
	}
}

// BenchmarkSnapshotProtected is what each command pays for watching the
// protected files of a fresh repository.
func BenchmarkSnapshotProtected(b *testing.B) {
	paths := protectedOf(gitWorkdir(b))
	for b.Loop() {
		SnapshotProtected(paths)
	}
}

// BenchmarkOpenInstance is what each stockade process pays for its state
// directory (checks, clean-up of none, lock, create, remove).
func BenchmarkOpenInstance(b *testing.B) {
	xdg := b.TempDir()
	os.Chmod(xdg, 0o700)
	b.Setenv("XDG_RUNTIME_DIR", xdg)
	for b.Loop() {
		in, err := OpenInstance()
		if err != nil {
			b.Fatal(err)
		}
		in.Close()
	}
}
