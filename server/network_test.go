package server_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stockade/stockade/hostfacts"
)

// TestNetworkSession is the network of an MCP session as an agent meets it,
// as root: a dev server started in the background is reached by the next
// call on the session's own loopback; with network = "allowlist", a listed
// name goes through stockade's proxy, an unlisted one is refused with a note
// saying what would allow it, and the host's own loopback stays out of reach.
func TestNetworkSession(t *testing.T) {
	requireSessionNetwork(t)
	// An upstream on the host's loopback, which the proxy reaches as pkg.test.
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

	policy, err := filepath.Abs("../testdata/escape/allow-all.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, serverOpts{args: []string{"--policy", policy,
		"--allow-host", "pkg.test", "--allow-host", "127.0.0.1", "--resolve", "pkg.test=127.0.0.1"}})

	tools, err := s.session.ListTools(t.Context(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "bash" && !strings.Contains(tl.Description, "Network: only these hosts, by name, through stockade's proxy") {
			t.Errorf("the bash tool does not say what the network is:\n%s", tl.Description)
		}
	}

	// A dev server in the background, and a call that uses it.
	bg := decode(t, s.call("bash", map[string]any{"command": "python3 -m http.server 8765 --bind 127.0.0.1", "run_in_background": true}))
	r := decode(t, s.call("bash", map[string]any{"command": "for i in $(seq 100); do curl -sf -o /dev/null http://127.0.0.1:8765/ && echo reached && exit 0; sleep 0.2; done; exit 1"}))
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "reached") {
		t.Errorf("a call did not reach the session's own dev server: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	s.call("task_kill", map[string]any{"task_id": bg.TaskID})

	r = decode(t, s.call("bash", map[string]any{"command": "curl -sS http://pkg.test:" + port + "/"}))
	if r.ExitCode != 0 || r.Stdout != "hello from the registry" {
		t.Errorf("an allowed name through the proxy: exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	}

	r = decode(t, s.call("bash", map[string]any{"command": "curl -sSf http://evil.test:" + port + "/"}))
	want := `network: refused evil.test:` + port + `: evil.test:` + port + ` is not on the allowlist; to allow it, add "evil.test" to [network] allow in the policy, or pass --allow-host evil.test`
	if r.ExitCode == 0 || !strings.Contains(strings.Join(r.Notes, "\n"), want) {
		t.Errorf("an unlisted name: exit %d, notes %q, want %q", r.ExitCode, r.Notes, want)
	}

	// The host's loopback, directly: not there.
	r = decode(t, s.call("bash", map[string]any{"command": "curl -sS --noproxy '*' http://127.0.0.1:" + port + "/"}))
	if r.ExitCode == 0 || strings.Contains(r.Stdout, "hello") {
		t.Errorf("a command reached the host's loopback directly: exit %d, stdout %q", r.ExitCode, r.Stdout)
	}

	// The server log has a line per connection.
	log := s.stderr.String()
	for _, w := range []string{
		fmt.Sprintf("host=pkg.test port=%s allowed=true", port),
		fmt.Sprintf("host=evil.test port=%s allowed=false", port),
	} {
		if !strings.Contains(log, w) {
			t.Errorf("the server log lacks %q:\n%s", w, log)
		}
	}
}

// TestNetworkDescription: with the default network, off, the bash tool says
// in a sentence what the session's network is, as this host gives it.
func TestNetworkDescription(t *testing.T) {
	s := start(t, serverOpts{})
	tools, err := s.session.ListTools(t.Context(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Network: none, not even loopback (this host cannot give the session a network namespace)"
	if hostfacts.Detect().CanNetNS() {
		want = "Network: none (names do not resolve; package downloads fail), except a loopback of this session's own"
	}
	for _, tl := range tools.Tools {
		if tl.Name == "bash" && !strings.Contains(tl.Description, want) {
			t.Errorf("the bash tool's description lacks %q:\n%s", want, tl.Description)
		}
	}
}

// requireSessionNetwork skips the test unless a session gets a network
// namespace here and curl and python3 are installed.
func requireSessionNetwork(t *testing.T) {
	t.Helper()
	if !hostfacts.Detect().CanNetNS() {
		t.Skip("no network namespace for a session on this host (needs root with CAP_SYS_ADMIN)")
	}
	for _, tool := range []string{"curl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
	}
}
