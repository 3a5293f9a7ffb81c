package server_test

import (
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func bashDescription(t *testing.T, s *server) string {
	t.Helper()
	tools, err := s.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "bash" {
			return tool.Description
		}
	}
	t.Fatal("no bash tool")
	return ""
}

// TestDescriptionStatesTheSandbox checks that the bash tool says what this
// session may write and whether it has a network, and that it changes with
// the flags.
func TestDescriptionStatesTheSandbox(t *testing.T) {
	s := start(t, serverOpts{})
	desc := bashDescription(t, s)
	for _, want := range []string{
		"Files (workspace-write): you can write only to the working directory " + s.dir + ", your private $TMPDIR and this project's build cache ",
		"; everything else is read-only, and ~/.ssh, ~/.aws, ~/.gnupg and ",
		"Network: none",
		"new unix sockets (docker.sock, ssh-agent) are refused.",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("the default description lacks %q:\n%s", want, desc)
		}
	}
	s = start(t, serverOpts{args: []string{"--fs", "read-only", "--network", "on"}})
	desc = bashDescription(t, s)
	for _, want := range []string{
		"Files (read-only): you can write only to your private $TMPDIR; everything else, the working directory " + s.dir + " included, is read-only",
		"Network: open, as on the host",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("the read-only, network-on description lacks %q:\n%s", want, desc)
		}
	}
}

// TestRefusalNotes checks that a command that fails on what the sandbox
// refused gets a note saying what and how to allow it, and that a failure
// the sandbox did not cause gets none.
func TestRefusalNotes(t *testing.T) {
	home, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("key"), 0o600)
	s := start(t, serverOpts{env: []string{"HOME=" + home}})

	r := s.bash("touch " + outside + "/x")
	want := "write to " + outside + "/x refused: outside the writable roots (" + s.dir + ", "
	if r.ExitCode == 0 || len(r.Notes) != 1 || !strings.HasPrefix(r.Notes[0], want) || !strings.HasSuffix(r.Notes[0], "; allow with --allow-write "+outside+" or [sandbox] writable_roots") {
		t.Errorf("touch outside: exit %d, notes %q, want one starting %q", r.ExitCode, r.Notes, want)
	}

	// The path is computed, so that the kernel refuses it, not the analysis.
	r = s.bash(`cat "$(printf %s ~/.ssh/id_ed25519)"`)
	want = "access to " + home + "/.ssh/id_ed25519 refused: " + home + "/.ssh is on the sandbox's deny-read list"
	if r.ExitCode == 0 || len(r.Notes) != 1 || !strings.HasPrefix(r.Notes[0], want) {
		t.Errorf("cat a secret: exit %d, notes %q, want %q", r.ExitCode, r.Notes, want)
	}

	// A directory of the workdir without write permission: the file mode
	// refuses, not the sandbox (as root too: it has no capabilities there).
	r = s.bash("mkdir locked && chmod 555 locked && touch locked/x; s=$?; chmod 755 locked; exit $s")
	if r.ExitCode == 0 && os.Geteuid() != 0 {
		t.Fatalf("touch in a read-only directory worked: %+v", r)
	}
	if len(r.Notes) != 0 {
		t.Errorf("a failure the sandbox did not cause got notes: %q (stderr %q)", r.Notes, r.Stderr)
	}

	if _, err := osexec.LookPath("curl"); err == nil {
		r = s.bash("curl -sS http://example.com/")
		want = `name lookup failed: this sandbox has no network (network = "off"); allow hosts by name with --allow-host NAME or [network] allow (network = "allowlist"), or everything with --network on`
		if len(r.Notes) != 1 || r.Notes[0] != want {
			t.Errorf("curl: notes %q (stderr %q), want %q", r.Notes, r.Stderr, want)
		}
	}
}
