package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildCacheKeptBetweenSessions checks that an MCP session gets the
// project's build cache, writable, that the next session of the same
// project finds what the first one left there, and that the user's own
// cache stays read-only.
func TestBuildCacheKeptBetweenSessions(t *testing.T) {
	home, workdir := t.TempDir(), t.TempDir()
	own := filepath.Join(home, ".cache", "go-build")
	os.MkdirAll(own, 0o755)
	opts := serverOpts{dir: workdir, env: []string{"HOME=" + home, "GOCACHE=" + own}}

	s := start(t, opts)
	r := s.bash(`echo "$GOCACHE"; mkdir -p "$GOCACHE" && echo warm > "$GOCACHE/marker"`)
	cacheRoot := filepath.Join(home, ".cache", "stockade", "build") + "/"
	if r.ExitCode != 0 || !strings.HasPrefix(r.Stdout, cacheRoot) || !strings.HasSuffix(r.Stdout, "/go-build\n") {
		t.Fatalf("GOCACHE is not the project's cache under %s: %+v", cacheRoot, r)
	}
	if r := s.bash(`touch "$HOME/.cache/go-build/poison"`); r.ExitCode == 0 {
		t.Errorf("the user's own cache is writable: %+v", r)
	}
	s.session.Close()

	s = start(t, opts)
	if r := s.bash(`cat "$GOCACHE/marker"`); r.Stdout != "warm\n" {
		t.Errorf("the next session does not find the cache: %+v", r)
	}
	if entries, _ := os.ReadDir(own); len(entries) != 0 {
		t.Errorf("the user's own cache changed: %v", entries)
	}
}
