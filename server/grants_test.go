package server_test

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGrantedCall is a host granted to one command, as an agent meets it in
// an MCP session: the call that runs that command reaches the host; another
// command in the same session does not, and is told which rule grants it;
// the credential the granted call held is dead once the call has ended, and
// the next call has the session's proxy URL again.
func TestGrantedCall(t *testing.T) {
	requireSessionNetwork(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello from the registry")
	})}
	go up.Serve(ln)
	t.Cleanup(func() { up.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	url := "http://pkg.test:" + port + "/"

	policy := filepath.Join(t.TempDir(), "grants.toml")
	if err := os.WriteFile(policy, []byte(`version = 1
extends = "none"
default = "allow"
[sandbox]
network = "allowlist"
[[rule]]
name = "curl-registry"
decision = "allow"
command = ["curl"]
allow_hosts = ["pkg.test", "127.0.0.1"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, serverOpts{args: []string{"--policy", policy, "--resolve", "pkg.test=127.0.0.1"}})
	tools, err := s.session.ListTools(t.Context(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if want := `through stockade's proxy (HTTP_PROXY and HTTPS_PROXY are set; tools that ignore them get no connection): pkg.test, 127.0.0.1 (granted by rule "curl-registry" to curl alone, in a call of its own)`; tl.Name == "bash" && !strings.Contains(tl.Description, want) {
			t.Errorf("the bash tool does not say which hosts one command is granted:\n%s", tl.Description)
		}
	}

	// The granted command, alone in its call; it prints the proxy URL it was given.
	r := decode(t, s.call("bash", map[string]any{"command": `curl -sS "` + url + `" --write-out " proxy=$HTTP_PROXY"`}))
	m := regexp.MustCompile(` proxy=(http://stockade:[0-9a-f]{32}@127\.0\.0\.1:3128)$`).FindStringSubmatch(r.Stdout)
	if r.ExitCode != 0 || !strings.HasPrefix(r.Stdout, "hello from the registry") || m == nil {
		t.Fatalf("the granted call: exit %d, stdout %q, stderr %q, notes %q", r.ExitCode, r.Stdout, r.Stderr, r.Notes)
	}
	leaked := m[1]
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, `network: this call may also reach pkg.test, 127.0.0.1, granted by rule "curl-registry"`) {
		t.Errorf("the granted call's notes do not say what it was granted: %q", r.Notes)
	}

	// Another command of the same session, and the granted one's credential
	// after its call ended: refused, with the rule that grants the host.
	fetch := `python3 -c 'import sys, urllib.request as u; h = {"http": sys.argv[2]} if len(sys.argv) > 2 else {}; print(u.build_opener(u.ProxyHandler(h) if h else u.ProxyHandler()).open(sys.argv[1]).read().decode())' "` + url + `"`
	wantNote := `network: refused pkg.test:` + port + `: pkg.test:` + port + ` is not on the allowlist; rule "curl-registry" grants it to curl; run such a command in a call of its own`
	for name, script := range map[string]string{
		"another command":            fetch,
		"the revoked credential":     fetch + ` "` + leaked + `"`,
		"curl after another command": `true && python3 -c pass && curl -sSf "` + url + `"`,
	} {
		r := decode(t, s.call("bash", map[string]any{"command": script}))
		if r.ExitCode == 0 || strings.Contains(r.Stdout, "hello") {
			t.Errorf("%s reached the granted host: exit %d, stdout %q", name, r.ExitCode, r.Stdout)
		}
		if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, wantNote) {
			t.Errorf("%s: notes %q, want %q", name, r.Notes, wantNote)
		}
	}

	// A granted call in the background: its credential dies when it ends.
	bg := decode(t, s.call("bash", map[string]any{"command": `curl -sS "` + url + `" --write-out " proxy=$HTTP_PROXY"`, "run_in_background": true}))
	st := decode(t, s.call("task_output", map[string]any{"task_id": bg.TaskID, "wait": 30000}))
	m = regexp.MustCompile(` proxy=(http://stockade:[0-9a-f]{32}@127\.0\.0\.1:3128)`).FindStringSubmatch(st.Output)
	if st.Status != "completed" || !strings.HasPrefix(st.Output, "hello from the registry") || m == nil {
		t.Fatalf("the granted background task: %+v", st)
	}
	r = decode(t, s.call("bash", map[string]any{"command": fetch + ` "` + m[1] + `"`}))
	if r.ExitCode == 0 || strings.Contains(r.Stdout, "hello") {
		t.Errorf("the credential of a background task that ended still works: exit %d, stdout %q", r.ExitCode, r.Stdout)
	}

	r = decode(t, s.call("bash", map[string]any{"command": `echo "$HTTP_PROXY $https_proxy"`}))
	if got := strings.TrimSpace(r.Stdout); got != "http://127.0.0.1:3128 http://127.0.0.1:3128" {
		t.Errorf("the next call's proxy URL: %q, want the session's, without a credential", got)
	}
}

// TestGrantWhileItRuns is the limit SECURITY.md states: while a granted call
// runs, another process of the same session that reads its credential (here
// from the granted curl's /proc/PID/environ) reaches the granted host too.
// The upstream holds the granted call's request until that other fetch has
// arrived, so the order is certain.
func TestGrantWhileItRuns(t *testing.T) {
	requireSessionNetwork(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	reached := make(chan struct{})
	var once sync.Once
	up := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/held" {
			select {
			case <-reached:
			case <-time.After(60 * time.Second):
			}
		} else {
			once.Do(func() { close(reached) })
		}
		io.WriteString(w, "hello from the registry")
	})}
	go up.Serve(ln)
	t.Cleanup(func() { up.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	url := "http://pkg.test:" + port + "/"

	policy := filepath.Join(t.TempDir(), "grants.toml")
	if err := os.WriteFile(policy, []byte("version = 1\nextends = \"none\"\ndefault = \"allow\"\n[sandbox]\nnetwork = \"allowlist\"\n"+
		"[[rule]]\nname = \"curl-registry\"\ndecision = \"allow\"\ncommand = [\"curl\"]\nallow_hosts = [\"pkg.test\", \"127.0.0.1\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, serverOpts{args: []string{"--policy", policy, "--resolve", "pkg.test=127.0.0.1"}})
	thief := `for i in $(seq 600); do tok=$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' | grep -o -m1 'http://stockade:[0-9a-f]*@127.0.0.1:3128'); [ -n "$tok" ] && break; sleep 0.1; done; ` +
		`python3 -c 'import sys, urllib.request as u; print(u.build_opener(u.ProxyHandler({"http": sys.argv[2]})).open(sys.argv[1]).read().decode())' "` + url + `" "$tok"`
	bg := decode(t, s.call("bash", map[string]any{"command": thief, "run_in_background": true}))
	r := decode(t, s.call("bash", map[string]any{"command": `curl -sS "` + url + `held"`}))
	if r.ExitCode != 0 || r.Stdout != "hello from the registry" {
		t.Fatalf("the granted call: exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	st := decode(t, s.call("task_output", map[string]any{"task_id": bg.TaskID, "wait": 30000}))
	if !strings.Contains(st.Output, "hello from the registry") {
		t.Errorf("a background task of the session did not use the granted call's credential while it ran (SECURITY.md says it can): %q", st.Output)
	}
}
