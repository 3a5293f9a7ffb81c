//go:build linux

package kfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Read gives what os.ReadFile gives, for a /proc file (size 0 in stat) longer
// than the first buffer, and for a regular file.
func TestReadAsOS(t *testing.T) {
	regular := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(regular, bytes.Repeat([]byte("0123456789\n"), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/proc/self/cmdline", "/proc/self/mountinfo", "/proc/sys/kernel/cap_last_cap", regular} {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatalf("Read(%s): %v", path, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("Read(%s) = %d bytes %q..., os.ReadFile %d bytes", path, len(got), got[:min(len(got), 40)], len(want))
		}
	}
}

func TestErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := Read(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file: %v, want fs.ErrNotExist", err)
	}
	if err := Write(missing, []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Write to a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Write created %s", missing)
	}
	var pe *fs.PathError
	if _, err := Read(missing); !errors.As(err, &pe) || pe.Path != missing {
		t.Errorf("Read error %v does not name the path", err)
	}
}

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("+pids")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "+pids" {
		t.Errorf("file holds %q, want %q", b, "+pids")
	}
	// The kernel's answer to a bad value is the error.
	if err := Write("/proc/self/oom_score_adj", []byte("not a number")); err == nil {
		t.Error("writing a bad value to /proc/self/oom_score_adj succeeded")
	}
}
