//go:build linux

package refusal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stockade/stockade/sandbox"
)

// The lines are what real tools print (coreutils, bash, Go, Python, node,
// curl); the paths are real files, so the host checks run for real.
func TestNotes(t *testing.T) {
	work, tmp, out := t.TempDir(), t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(out, "secret"), 0o700)
	os.WriteFile(filepath.Join(out, "secret", "key"), []byte("k"), 0o600)
	os.WriteFile(filepath.Join(out, "readonly"), []byte("r"), 0o444)
	spec := sandbox.Spec{
		FS: sandbox.FSWorkspaceWrite, Workdir: work, TmpDir: tmp, DenyRead: []string{filepath.Join(out, "secret")},
		NetworkOff: true, UnixSocketsOff: true,
	}
	ro := spec
	ro.FS = sandbox.FSReadOnly
	open := spec
	open.NetworkOff, open.UnixSocketsOff = false, false
	off := sandbox.Spec{FS: sandbox.FSOff, Workdir: work}
	netns, portRule, supervised := spec, open, open
	netns.NetNS = true
	portRule.ProxyPortOnly = true
	supervised.Supervised = true
	prot := spec
	prot.Protected = sandbox.GitProtected(work)
	cases := []struct {
		name   string
		stderr string
		spec   sandbox.Spec
		want   string // a substring of the one note; "" for none
	}{
		{"touch outside", "touch: cannot touch '" + out + "/x': Read-only file system", spec,
			"write to " + out + "/x refused: outside the writable roots (" + work + ", " + tmp + "); allow with --allow-write " + out + " or [sandbox] writable_roots"},
		{"go outside", "go: creating work dir: mkdir " + out + "/a/b: permission denied", spec, "write to " + out + "/a/b refused: outside the writable roots"},
		{"python outside", "PermissionError: [Errno 13] Permission denied: '" + out + "/new'", spec, "write to " + out + "/new refused"},
		{"npm outside", "npm error EACCES: permission denied, mkdir '" + out + "/.npm/_cacache'", spec, "write to " + out + "/.npm/_cacache refused"},
		{"bash redirection outside, relative", "/bin/bash: line 1: ../" + filepath.Base(out) + "/y: Read-only file system", spec, "write to " + out + "/y refused"},
		{"inside the workdir: a file mode, not the sandbox", "/bin/bash: line 1: x.txt: Permission denied", spec, ""},
		{"outside, but the file mode refuses it", "open " + out + "/readonly: permission denied", spec, ""},
		{"a read outside: not refused by the sandbox", "ls: cannot open directory '" + out + "': Permission denied", spec, ""},
		{"deny-read", "cat: " + out + "/secret/key: Permission denied", spec,
			"access to " + out + "/secret/key refused: " + out + "/secret is on the sandbox's deny-read list; allow by leaving it out of [sandbox] deny_read in a policy file (--policy)"},
		{"deny-read, filesystem off", "cat: " + out + "/secret/key: Permission denied", sandbox.Spec{FS: sandbox.FSOff, DenyRead: spec.DenyRead}, "deny-read list"},
		{"read-only mode", "touch: cannot touch '" + work + "/x': Read-only file system", ro,
			`write to ` + work + `/x refused: the filesystem is read-only in this sandbox (only $TMPDIR ` + tmp + ` is writable); allow with --fs workspace-write`},
		{"filesystem off", "touch: cannot touch '" + out + "/x': Permission denied", off, ""},
		{"/proc", "cat: /proc/1/environ: Permission denied", spec, ""},
		{"dns", "npm error getaddrinfo EAI_AGAIN registry.npmjs.org", spec,
			`name lookup failed: this sandbox has no network (network = "off"); allow hosts by name with --allow-host NAME or [network] allow (network = "allowlist"), or everything with --network on`},
		{"curl dns", "curl: (6) Could not resolve host: example.com", spec, "name lookup failed"},
		{"go dial", `dial tcp 10.0.0.1:80: socket: operation not permitted`, spec, "network connection refused: this sandbox has no network"},
		{"node connect", "connect EPERM 10.0.0.1:80 - Local (undefined:undefined)", spec, "network connection refused"},
		{"network on", "connect EPERM 10.0.0.1:80", open, ""},
		{"node listen, network off", "Error: listen EPERM: operation not permitted 127.0.0.1:3000", spec,
			`network: refused listening on 127.0.0.1:3000: servers cannot listen in this sandbox (network = "off": no inet socket can be made)`},
		{"go httptest, network off", "httptest: failed to listen on a port: listen tcp6 [::1]:0: socket: operation not permitted", spec, "network: refused listening on [::1]:0: servers cannot listen"},
		{"go listen, port rule", "listen tcp 127.0.0.1:8080: bind: permission denied", portRule,
			"network: refused listening on 127.0.0.1:8080: servers cannot listen in this sandbox (Landlock's port rule refuses every bind)"},
		{"node localhost, port rule", "Error: listen EACCES: permission denied localhost:3000", portRule, "network: refused listening on 127.0.0.1:3000"},
		{"python traceback, port rule", "    s.bind((\"127.0.0.1\", 8000))\nPermissionError: [Errno 13] Permission denied", portRule, "network: refused listening: servers cannot listen"},
		{"python, no source line", "PermissionError: [Errno 13] Permission denied", portRule, ""},
		{"python unix socket, unix sockets off", "    s = socket.socket(socket.AF_UNIX)\n  File \"/usr/lib/python3.11/socket.py\", line 232, in __init__\n    _socket.socket.__init__(self, family, type, proto, fileno)\nPermissionError: [Errno 1] Operation not permitted", spec,
			`unix socket refused: new unix sockets are off in this sandbox`},
		{"python socket, network off", "    _socket.socket.__init__(self, family, type, proto, fileno)\nPermissionError: [Errno 1] Operation not permitted", spec,
			"network connection refused: this sandbox has no network"},
		{"listen, own network namespace", "listen tcp 0.0.0.0:80: bind: permission denied", netns, ""},
		{"listen, supervised (its own notes say it)", "listen tcp 127.0.0.1:8080: bind: permission denied", supervised, ""},
		{"listen, network on", "listen tcp 127.0.0.1:8080: bind: permission denied", open, ""},
		{"git config, renamed over a read-only mount", "error: could not write config file .git/config: Device or resource busy", prot,
			"write to " + work + "/.git/config refused: it is protected (read-only in this sandbox), because git or stockade runs what it names outside the sandbox later"},
		{"git hook", "/bin/bash: line 1: " + work + "/.git/hooks/pre-commit: Read-only file system", prot, "write to " + work + "/.git/hooks refused: it is protected"},
		{"not the protected file: .gitignore", "/bin/bash: line 1: .gitignore: Device or resource busy", prot, ""},
		{"another repository's config", "error: could not write config file /elsewhere/.git/config: Device or resource busy", prot, ""},
		{"unix socket", "dial unix /var/run/docker.sock: socket: operation not permitted", spec,
			`unix socket refused: new unix sockets are off in this sandbox (unix_sockets = "deny"); allow with [sandbox] unix_sockets = "allow"`},
		{"unix socket allowed", "dial unix /var/run/docker.sock: socket: operation not permitted", open, ""},
		{"no error", "building " + out + "/x", spec, ""},
		{"a url is not a path", "curl: (7) http://example.com/x: Permission denied", open, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Notes(c.stderr+"\n", work, c.spec)
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("notes %q, want none", got)
			case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
				t.Errorf("notes %q, want one with %q", got, c.want)
			}
		})
	}
}

func TestNotesBounded(t *testing.T) {
	work, out := t.TempDir(), t.TempDir()
	var b strings.Builder
	for i := range 3 * MaxNotes {
		fmt.Fprintf(&b, "touch: cannot touch '%s/%d': Read-only file system\n", out, i)
		fmt.Fprintf(&b, "touch: cannot touch '%s/%d': Read-only file system\n", out, i)
	}
	got := Notes(b.String(), work, sandbox.Spec{FS: sandbox.FSWorkspaceWrite, Workdir: work})
	if len(got) != MaxNotes || got[0] == got[1] {
		t.Errorf("got %d notes, want %d distinct: %q", len(got), MaxNotes, got)
	}
}
