package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two HTTP clients of one server share a user, not their files: a command of
// one cannot read the other's TMPDIR, full outputs or task logs (Landlock
// hides every session's directory but its own), though the user outside can.
func TestHTTPSessionsCannotReadEachOthersFiles(t *testing.T) {
	s := startHTTP(t, "--token", "sekrit")
	a, err := s.connect(t, "sekrit")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := s.connect(t, "sekrit")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	tmp := strings.TrimSpace(httpBash(t, a, `echo a-secret > "$TMPDIR/secret"; echo "$TMPDIR"`).Stdout)
	task := httpBash(t, a, "echo a-task-secret", "run_in_background", true)
	secret := filepath.Join(tmp, "secret")
	if got, err := os.ReadFile(secret); err != nil || !strings.Contains(string(got), "a-secret") {
		t.Fatalf("outside the sandbox the file cannot be read (%v); the test proves nothing", err)
	}
	r := httpBash(t, b, "cat "+secret+" "+task.OutputFile)
	if strings.Contains(r.Stdout, "secret") {
		t.Errorf("session b read session a's files:\n%s", r.Stdout)
	}
	if !strings.Contains(r.Stderr, "Permission denied") {
		t.Errorf("session b was not refused by the sandbox:\n%s", r.Stderr)
	}
	if r := httpBash(t, a, "cat "+secret); r.Stdout != "a-secret\n" {
		t.Errorf("session a cannot read its own file: %q %q", r.Stdout, r.Stderr)
	}
}
