//go:build linux

package escape

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPoisonBuildCaches: a command may write its own project's build cache
// (stockade's, a writable root), never the user's caches nor the cache of
// another project.
func TestPoisonBuildCaches(t *testing.T) {
	const entry = "cached object of another project\n"
	other := func(e *env) string {
		return filepath.Join(e.vars["XDG_CACHE_HOME"], "stockade", "build", "other-0123456789ab")
	}
	run(t, []attack{
		{name: "poison-user-caches", expect: outside},
		{name: "poison-other-project-cache", expect: "another project's build cache",
			vars: func(t *testing.T, e *env) map[string]string {
				dir := filepath.Join(other(e), "go-build")
				must(t, os.MkdirAll(dir, 0o755))
				must(t, os.WriteFile(filepath.Join(dir, "entry"), []byte(entry), 0o644))
				return map[string]string{"OTHER": other(e)}
			},
			check: func(t *testing.T, e *env, r *result) []string {
				var f []string
				if b, _ := os.ReadFile(filepath.Join(other(e), "go-build", "entry")); string(b) != entry {
					f = append(f, "another project's build cache entry changed: "+string(b))
				}
				if _, err := os.Lstat(filepath.Join(other(e), "go-build", "planted")); err == nil {
					f = append(f, "another project's build cache got a new file")
				}
				return f
			}},
	})
}
