//go:build linux

package escape

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// What a command is told when the network refused it, where the session has
// no network namespace: the plain user where user namespaces are refused
// (see withoutUserNS), under the connect supervisor (network = "allowlist")
// and with the network off.

// plainRun runs script with stockade run --json as the plain user where it
// gets no user namespace, under policyText and the extra flags of args.
func plainRun(t *testing.T, policyText, script string, args ...string) (*runJSON, string) {
	t.Helper()
	id := plainUser()
	home := id.dir(t)
	policy := home + "/policy.toml"
	must(t, os.WriteFile(policy, []byte(policyText), 0o644))
	argv := append([]string{id.stockade, "run", "--json", "--policy", policy}, args...)
	cmd := withoutUserNS(t, id, append(argv, "-c", script)...)
	cmd.Dir = id.dir(t)
	cmd.Env = append(os.Environ(), "HOME="+home, "PY="+python)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	j := &runJSON{}
	if err := json.Unmarshal(out, j); err != nil || j.Status == "" {
		t.Fatalf("no JSON result from stockade run (%v):\n%s\n%s", err, out, stderr.String())
	}
	if j.Applied == nil || j.Applied.NetNS {
		t.Fatalf("the plain user's run had a network namespace, or did not run: %+v\n%s", j, stderr.String())
	}
	return j, stderr.String()
}

// hostService is a server of the host's on its loopback (a database, a
// dev server of another project) that answers with a secret.
func hostService(t *testing.T) (port, secret string) {
	t.Helper()
	secret = "host-service-" + randHex(8)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, secret) }))
	t.Cleanup(up.Close)
	return strconv.Itoa(up.Listener.Addr().(*net.TCPAddr).Port), secret
}

// noteWith is the first note that has every one of parts, or "".
func noteWith(notes []string, parts ...string) string {
	for _, n := range notes {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(n, p)
		}
		if ok {
			return n
		}
	}
	return ""
}

// TestSupervisedDirectNotes: under the connect supervisor, the connections
// a command tries to open itself (curl to a loopback address, which NO_PROXY
// sends around the proxy; python to an IP literal) are refused, and the
// result's notes name each address and say what would reach it. Following
// that advice (the address on [network] allow, the proxy with NO_PROXY
// unset) reaches the service. Without stockade, the plain user reaches it
// directly.
func TestSupervisedDirectNotes(t *testing.T) {
	requireSupervisor(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	if python == "" {
		t.Skip("no python3")
	}
	port, secret := hostService(t)
	direct := `curl -s -m 5 http://127.0.0.1:` + port + `/; echo " curl exit=$?"
"$PY" -c 'import socket; socket.create_connection(("198.51.100.1", 443), timeout=5)' 2>/dev/null; echo "python exit=$?"`

	ctl := plainUser().command("bash", "-c", `curl -s -m 5 http://127.0.0.1:`+port+`/`)
	if out, _ := ctl.CombinedOutput(); !strings.Contains(string(out), secret) {
		t.Fatalf("without the sandbox the plain user did not reach the host's service; it proves nothing:\n%s", out)
	}

	policy := allowAll + "[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\"]\n"
	j, stderr := plainRun(t, policy, direct)
	if !j.Applied.Supervised {
		t.Fatalf("the run was not supervised: %+v", j.Applied)
	}
	if strings.Contains(stderr, secret) {
		t.Fatalf("ESCAPE: a direct connection reached the host's loopback:\n%s", stderr)
	}
	if !strings.Contains(stderr, "python exit=1") {
		t.Errorf("python's direct connection did not fail:\n%s", stderr)
	}
	loop := noteWith(j.Notes, "network: refused 127.0.0.1:"+port+": a direct connection", "no loopback of its own",
		`add "127.0.0.1" to [network] allow`, "NO_PROXY and no_proxy unset")
	literal := noteWith(j.Notes, "network: refused 198.51.100.1:443: a direct connection", `add "198.51.100.1" to [network] allow`, "HTTPS_PROXY")
	if loop == "" || literal == "" {
		t.Fatalf("the notes do not name the refused addresses and what would reach them:\n%s", strings.Join(j.Notes, "\n"))
	}
	t.Logf("notes:\n%s\n%s", loop, literal)

	// The advice, followed.
	policy = allowAll + "[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\", \"127.0.0.1\"]\n"
	j, stderr = plainRun(t, policy, `unset NO_PROXY no_proxy; curl -s -m 10 http://127.0.0.1:`+port+`/ >&2`)
	if !strings.Contains(stderr, secret) {
		t.Errorf("following the note's advice did not reach the service (exit %d, notes %q):\n%s", j.ExitCode, j.Notes, stderr)
	}
	if n := noteWith(j.Notes, "refused"); n != "" {
		t.Errorf("a connection through the proxy to a listed address was refused: %q", n)
	}
}

// TestSupervisedServeDirectNotes: the same through stockade serve's bash
// tool: the call whose command connected directly says so in its notes; the
// next call, which connects to nothing, has no such note.
func TestSupervisedServeDirectNotes(t *testing.T) {
	requireSupervisor(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	port, secret := hostService(t)
	id := plainUser()
	home := id.dir(t)
	policy := home + "/policy.toml"
	must(t, os.WriteFile(policy, []byte(allowAll+"[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\"]\n"), 0o644))
	cmd := withoutUserNS(t, id, id.stockade, "serve", "--policy", policy, "--workdir", id.dir(t))
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+id.dir(t), "HOME="+home)
	s := startServerCmd(t, cmd)

	res := s.bash(map[string]any{"command": `curl -s -m 5 http://127.0.0.1:` + port + `/; echo "curl exit=$?"`})
	out := fmt.Sprint(res["stdout"], res["stderr"])
	if applied, _ := res["applied"].(map[string]any); applied["supervised"] != true {
		t.Fatalf("the session's connects were not supervised: %v", applied)
	}
	if strings.Contains(out, secret) {
		t.Fatalf("ESCAPE: a direct connection reached the host's loopback:\n%s", out)
	}
	notes := strings.Join(strings.Fields(fmt.Sprint(res["notes"])), " ")
	if !strings.Contains(notes, "network: refused 127.0.0.1:"+port+": a direct connection") || !strings.Contains(notes, `add "127.0.0.1" to [network] allow`) {
		t.Errorf("the bash tool's result does not say what was refused and what would reach it: %v\n%s", res["notes"], out)
	}
	res = s.bash(map[string]any{"command": "true"})
	if n := fmt.Sprint(res["notes"]); strings.Contains(n, "network: refused") {
		t.Errorf("a call that connected to nothing has the last call's refusal: %s", n)
	}
}

// TestNoNetworkNotes: a command that needs the network and does not get it
// fails with a note the model can act on, where the session has no network
// namespace: with the network off (no inet socket at all) a name that does
// not resolve, and pip that found no version, say the network is off and
// how to allow hosts; under the
// connect supervisor a tool that resolves names itself is told that only
// the proxy reaches anything, and not that the network is off.
func TestNoNetworkNotes(t *testing.T) {
	requireSuite(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	lookup := `curl -sS -m 5 http://registry.npmjs.org/left-pad; echo "curl exit=$?"`
	j, stderr := plainRun(t, allowAll, lookup)
	if j.Applied.Supervised || !strings.Contains(stderr, "curl exit=6") {
		t.Fatalf("network off: curl did not fail on the name: %+v\n%s", j.Applied, stderr)
	}
	if n := noteWith(j.Notes, `name lookup failed: this sandbox has no network (network = "off")`, "--allow-host NAME", "--network on"); n == "" {
		t.Errorf("network off: no note says the network is off and how to allow hosts: %q\n%s", j.Notes, stderr)
	}

	if python != "" && exec.Command(python, "-m", "pip", "--version").Run() == nil {
		// pip, told not to retry, says only that it found no version.
		j, stderr := plainRun(t, allowAll, `"$PY" -m pip download --no-deps -d "$TMPDIR" left-pad`)
		if j.ExitCode == 0 || noteWith(j.Notes, `no network (network = "off")`, "--allow-host NAME") == "" {
			t.Errorf("network off: pip's failure (exit %d) has no note that says the network is off: %q\n%s", j.ExitCode, j.Notes, stderr)
		}
	}

	requireSupervisor(t)
	if python == "" {
		t.Skip("no python3")
	}
	policy := allowAll + "[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\"]\n"
	j, stderr = plainRun(t, policy, `"$PY" -c 'import socket; socket.getaddrinfo("registry.npmjs.org", 443)'`)
	if !j.Applied.Supervised || j.ExitCode == 0 {
		t.Fatalf("allowlist: the lookup did not fail under the supervisor (exit %d): %+v\n%s", j.ExitCode, j.Applied, stderr)
	}
	if n := noteWith(j.Notes, "reaches only the hosts of [network] allow, through stockade's proxy", "--allow-host NAME"); n == "" {
		t.Errorf("allowlist: no note says only the proxy reaches anything: %q\n%s", j.Notes, stderr)
	}
	if n := noteWith(j.Notes, `network = "off"`); n != "" {
		t.Errorf("allowlist: a note says the network is off: %q", n)
	}
}
