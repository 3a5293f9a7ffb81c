//go:build unix

package supervise

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// privateDir is a fresh directory of mode 0700 (t.TempDir's is 0755).
func privateDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestStateRootRefusesWhatItDoesNotOwnAlone(t *testing.T) {
	elsewhere := privateDir(t)
	cases := []struct {
		name  string
		plant func(root string) error
		root  bool // needs root (chown)
	}{
		{"symlink", func(p string) error { return os.Symlink(elsewhere, p) }, false},
		{"mode 0755", func(p string) error { return os.Mkdir(p, 0o755) }, false},
		{"mode 0777", func(p string) error {
			if err := os.Mkdir(p, 0o700); err != nil {
				return err
			}
			return os.Chmod(p, 0o777)
		}, false},
		{"a file", func(p string) error { return os.WriteFile(p, nil, 0o600) }, false},
		{"another user's", func(p string) error {
			if err := os.Mkdir(p, 0o700); err != nil {
				return err
			}
			return os.Chown(p, 65534, 65534)
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.root && os.Geteuid() != 0 {
				t.Skip("chown to another user needs root")
			}
			xdg := privateDir(t)
			t.Setenv("XDG_RUNTIME_DIR", xdg)
			if err := c.plant(filepath.Join(xdg, "stockade")); err != nil {
				t.Fatal(err)
			}
			_, err := StateRoot()
			var refusal *StateDirError
			if !errors.As(err, &refusal) {
				t.Fatalf("StateRoot accepted a planted %s: %v", c.name, err)
			}
			if _, err := OpenInstance(); !errors.As(err, &refusal) {
				t.Fatalf("OpenInstance accepted a planted %s: %v", c.name, err)
			}
		})
	}
}

func TestStateRootIsPrivate(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", privateDir(t))
	in, err := OpenInstance()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	for _, d := range []string{in.Root, in.Dir} {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a directory of mode 0700", d, fi.Mode(), err)
		}
	}
	s, err := in.NewDir("session-")
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(s); fi.Mode().Perm() != 0o700 {
		t.Errorf("session directory mode %v, want 0700", fi.Mode())
	}
}

// A later start removes what a dead instance left (no process holds its
// lock) and leaves a live one's alone.
func TestCleanDeadInstances(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", privateDir(t))
	live, err := OpenInstance()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	dead := filepath.Join(live.Root, "1-dead")
	if err := os.MkdirAll(filepath.Join(dead, "session-1", "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dead+".lock", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	next, err := OpenInstance()
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead instance's directory is still there: %v", err)
	}
	if _, err := os.Stat(dead + ".lock"); !os.IsNotExist(err) {
		t.Errorf("a dead instance's lock is still there: %v", err)
	}
	if _, err := os.Stat(live.Dir); err != nil {
		t.Errorf("a live instance's directory was removed: %v", err)
	}
}
