//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stockade/stockade/hostfacts"
	"golang.org/x/sys/unix"
)

// TestReadOnlyTmpDirWritable checks that the read-only mode keeps the private
// TMPDIR writable (as SECURITY.md and `policy explain` say), while the workdir
// stays read-only; with Landlock alone and, as root, with read-only mounts.
func TestReadOnlyTmpDirWritable(t *testing.T) {
	requireABI(t, hostfacts.ABITruncate)
	if inChild() {
		applyFromEnv(t)
		var v map[string]string
		if err := jsonVars(&v); err != nil {
			t.Fatal(err)
		}
		dir := v["tmp"]
		must(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "a", "b", "f"), []byte("x"), 0o644))
		must(t, os.Rename(filepath.Join(dir, "a", "b", "f"), filepath.Join(dir, "a", "g")))
		must(t, os.Truncate(filepath.Join(dir, "a", "g"), 0))
		must(t, os.RemoveAll(filepath.Join(dir, "a")))
		err := os.WriteFile(filepath.Join(v["work"], "x"), nil, 0o644)
		if !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EROFS) {
			t.Errorf("writing in the workdir in read-only mode: %v, want EACCES or EROFS", err)
		}
		return
	}
	v := fsVars(t)
	if out, err := runChild(t, "sandboxed", roSpec(v), v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if os.Geteuid() == 0 {
		v := landlockOnly(fsVars)(t)
		if out, err := runChild(t, "sandboxed", roSpec(v), v); err != nil {
			t.Fatalf("landlock only: %v\n%s", err, out)
		}
	}
}
