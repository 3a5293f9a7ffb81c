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
// gets no user namespace, under policyText and the extra flags of args; $PY
// and $TOOL name python and the suite's escape tool.
func plainRun(t *testing.T, policyText, script string, args ...string) (*runJSON, string) {
	t.Helper()
	id := plainUser()
	home := id.dir(t)
	policy := home + "/policy.toml"
	must(t, os.WriteFile(policy, []byte(policyText), 0o644))
	argv := append([]string{id.stockade, "run", "--json", "--policy", policy}, args...)
	cmd := withoutUserNS(t, id, append(argv, "-c", script)...)
	cmd.Dir = id.dir(t)
	cmd.Env = append(os.Environ(), "HOME="+home, "TOOL="+tool, "PY="+python)
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
// result's notes name each address and say what would reach it, ten at
// most, and the log the first hundred. Following that advice (the address
// on [network] allow, the proxy with NO_PROXY unset) reaches the service.
// Without stockade, the plain user reaches it directly.
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

	// A command that tries address after address: ten notes, the last
	// counting the rest; the log has the first hundred.
	j, stderr = plainRun(t, policy, `"$PY" -c '
import socket
for port in range(1, 106):
    try:
        socket.create_connection(("198.51.100.1", port), timeout=5)
    except OSError:
        pass'`, "-v")
	var network []string
	for _, n := range j.Notes {
		if strings.HasPrefix(n, "network: ") {
			network = append(network, n)
		}
	}
	if len(network) != 11 || !strings.HasPrefix(network[10], "network: 95 more destinations refused") {
		t.Errorf("105 refused addresses: %d network notes, want 10 and one that counts 95 more:\n%s", len(network), strings.Join(network, "\n"))
	}
	if n := strings.Count(stderr, "msg=egress addr=198.51.100.1:"); n != 100 {
		t.Errorf("105 refused addresses: %d lines of the log, want the first 100", n)
	}

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

// hostWithoutSupervisor is the host the plain user meets where user
// namespaces are refused, as stockade doctor --json describes it, with the
// connect supervisor taken away (as kernel.yama.ptrace_scope = 2 takes it),
// written to a file for --simulate-host. It skips where Landlock has no TCP
// rules or there is no seccomp.
func hostWithoutSupervisor(t *testing.T) string {
	t.Helper()
	return simulatedHost(t, "no-supervisor.json", func(h map[string]any) {
		if abi, _ := h["landlock_abi"].(float64); abi < 4 || h["seccomp"] != true {
			t.Skipf("no landlock TCP rules (abi %v) or no seccomp here", h["landlock_abi"])
		}
		h["seccomp_notify"], h["seccomp_notify_reason"] = false, "kernel.yama.ptrace_scope = 2"
	})
}

// TestProxyPortOnlyRun: where neither a network namespace nor the connect
// supervisor holds the allowlist, strict refuses to run and says what
// best-effort would get; best-effort runs with Landlock's port rule: a
// listed name is reached through the proxy, a service of the host's
// loopback directly is not, in a stockade run and in an MCP session, and
// the report says the layer is partial and why. Without stockade, the plain
// user reaches the service.
func TestProxyPortOnlyRun(t *testing.T) {
	requireSuite(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	host := hostWithoutSupervisor(t)
	upPort, upSecret := hostService(t)
	port, secret := hostService(t)
	ctl := plainUser().command("bash", "-c", `curl -s -m 5 http://127.0.0.1:`+port+`/`)
	if out, _ := ctl.CombinedOutput(); !strings.Contains(string(out), secret) {
		t.Fatalf("without the sandbox the plain user did not reach the host's service; it proves nothing:\n%s", out)
	}
	policy := allowAll + "[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\", \"127.0.0.1\"]\n"
	script := `curl -s -m 10 http://pkg.test:` + upPort + `/ >&2; echo " proxied exit=$?" >&2
curl -s -m 5 --noproxy '*' http://127.0.0.1:` + port + `/ >&2; echo " direct exit=$?" >&2`

	id := plainUser()
	home := id.dir(t)
	must(t, os.WriteFile(home+"/policy.toml", []byte(policy), 0o644))
	strict := withoutUserNS(t, id, id.stockade, "run", "--simulate-host", host, "--policy", home+"/policy.toml", "-c", "echo ran")
	strict.Dir, strict.Env = id.dir(t), append(os.Environ(), "HOME="+home)
	out, err := strict.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 || strings.Contains(string(out), "ran\n") ||
		!strings.Contains(string(out), `enforce = "best-effort" to run with TCP to the proxy's port only, on any address`) {
		t.Errorf("strict: %v, want exit 125, nothing run, and what best-effort would get:\n%s", err, out)
	}

	j, stderr := plainRun(t, policy, script, "--simulate-host", host, "--enforce", "best-effort", "--resolve", "pkg.test=127.0.0.1")
	if !j.Applied.ProxyPortOnly || j.Applied.Supervised {
		t.Fatalf("not under the proxy's port rule: %+v\n%s", j.Applied, stderr)
	}
	if !strings.Contains(stderr, upSecret) {
		t.Errorf("the proxy's port rule kept a listed name from being reached through the proxy:\n%s", stderr)
	}
	if strings.Contains(stderr, secret) || !strings.Contains(stderr, "direct exit=7") {
		t.Errorf("ESCAPE: a direct connection reached the host's loopback service:\n%s", stderr)
	}
	if n := noteWith(j.Notes, "refused 127.0.0.1:"+port); n != "" {
		t.Errorf("a note for a refusal only the kernel saw (README says there is none; update it): %q", n)
	}
	// An MCP session: its zygote applies the rule with the session's proxy port.
	serve := withoutUserNS(t, id, id.stockade, "serve", "--simulate-host", host, "--enforce", "best-effort", "--policy", home+"/policy.toml",
		"--workdir", id.dir(t), "--resolve", "pkg.test=127.0.0.1")
	serve.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+id.dir(t), "HOME="+home)
	s := startServerCmd(t, serve)
	res := s.bash(map[string]any{"command": script})
	mcpOut := fmt.Sprint(res["stdout"], res["stderr"])
	if applied, _ := res["applied"].(map[string]any); applied["proxy_port_only"] != true {
		t.Errorf("the session is not under the proxy's port rule: %v", applied)
	}
	if !strings.Contains(mcpOut, upSecret) {
		t.Errorf("the session did not reach a listed name through its proxy:\n%s", mcpOut)
	}
	if strings.Contains(mcpOut, secret) {
		t.Errorf("ESCAPE: a session's direct connection reached the host's loopback service:\n%s", mcpOut)
	}
	s.stop()

	report := withoutUserNS(t, id, id.stockade, "doctor", "--json", "--host", host, "--policy", home+"/policy.toml")
	report.Dir, report.Env = id.dir(t), append(os.Environ(), "HOME="+home)
	_, _, protections := doctorHost(t, report)
	found := false
	for _, p := range protections {
		if p.Name == "network-tcp" {
			found = p.Status == "partial" && strings.HasPrefix(p.By, "landlock abi") && strings.Contains(p.Note, "on any address") &&
				strings.Contains(p.Note, "kernel.yama.ptrace_scope = 2")
			if !found {
				t.Errorf("network-tcp: %+v", p)
			}
		}
	}
	if !found {
		t.Errorf("no partial network-tcp line that says why: %+v", protections)
	}
}
