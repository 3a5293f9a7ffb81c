package pipeline

import (
	"os"
	"path/filepath"
	"testing"
)

// evalOrPrefix is what resolver.path must give, said the slow way: p with
// its symlinks resolved, or, where p does not exist, its parent resolved
// (the same way) and the last name as it is.
func evalOrPrefix(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == "" || dir == p || base == "" {
		return p
	}
	return filepath.Join(evalOrPrefix(dir), base)
}

// TestResolverPath checks resolver.path against evalOrPrefix on a tree with
// symlinked directories, relative and absolute links, dangling links, a loop
// and missing paths, each path asked twice (the second answer is cached).
func TestResolverPath(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"real/home/.ssh", "real/proj/sub", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "real/home/file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"home":              "real/home",                     // relative, to a directory
		"abs":               filepath.Join(root, "real"),     // absolute
		"real/home/.aws":    "../../other",                   // relative, going up
		"real/home/gone":    "nowhere",                       // dangling
		"real/proj/loop":    "loop",                          // a loop
		"real/proj/chain":   "../home",                       // a link to a link's target
		"real/home/secrets": filepath.Join(root, "abs/proj"), // through another link
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	r := resolver{}
	for range 2 {
		for _, p := range []string{
			"/", root, root + "/home", root + "/home/.ssh", root + "/home/.aws", root + "/home/.aws/x/y",
			root + "/home/gone", root + "/home/gone/x", root + "/abs/proj/loop", root + "/abs/proj/loop/x",
			root + "/abs/proj/chain/.ssh", root + "/home/secrets/sub", root + "/home/file/x", root + "/missing/a/b",
			root + "/home/../abs/proj", root + "//home/./.ssh/",
		} {
			if got, want := r.path(p), evalOrPrefix(p); got != want {
				t.Errorf("path(%q) = %q, want %q", p, got, want)
			}
		}
	}
}
