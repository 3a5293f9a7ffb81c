//go:build linux

package server_test

import (
	"os"
	"strings"
	"testing"
)

// TestSessionIPCNamespace: as root, an MCP session's commands run in an IPC
// namespace of their own (the supervisor's, made once per session), not the
// server's.
func TestSessionIPCNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("an IPC namespace needs CAP_SYS_ADMIN: run as root")
	}
	host, err := os.Readlink("/proc/self/ns/ipc")
	if err != nil {
		t.Skip(err)
	}
	s := start(t, serverOpts{})
	first := s.bash("readlink /proc/self/ns/ipc")
	second := s.bash("readlink /proc/self/ns/ipc")
	ns := strings.TrimSpace(first.Stdout)
	switch {
	case first.ExitCode != 0 || ns == "":
		t.Fatalf("readlink in the sandbox: exit %d, %q %q", first.ExitCode, first.Stdout, first.Stderr)
	case ns == host:
		t.Fatalf("the command runs in the server's IPC namespace %s", host)
	case strings.TrimSpace(second.Stdout) != ns:
		t.Errorf("two commands of one session in different IPC namespaces: %s, %s", ns, second.Stdout)
	}
}
