//go:build linux

package escape

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// What a command is told when a server it starts cannot listen, or a unix
// socket it connects is refused, where the session has no network
// namespace: the plain user where user namespaces are refused (see
// withoutUserNS), with the network off, under the connect supervisor
// (network = "allowlist"), and under Landlock's port rule (the supervisor
// taken away by --simulate-host).

// listenScript starts three servers that cannot listen without a network
// namespace, each after its own port: node on 127.0.0.1:nodePort (where
// there is node), Go's httptest (127.0.0.1:0, then [::1]:0) and python
// from a file, whose traceback shows the line that binds
// (127.0.0.1:pyPort). It writes server.py and httptest.test into dir.
func listenScript(t *testing.T, dir string, nodePort, pyPort int) string {
	t.Helper()
	must(t, os.WriteFile(dir+"/server.py", fmt.Appendf(nil, "import socket\ns = socket.socket()\ns.bind((\"127.0.0.1\", %d))\ns.listen()\nprint(\"PY-LISTENING\")\n", pyPort), 0o644))
	bin, err := os.ReadFile(buildHTTPTest(t) + "/httptest.test")
	must(t, err)
	must(t, os.WriteFile(dir+"/httptest.test", bin, 0o755))
	script := "cd '" + dir + "' || exit 9\n" + `./httptest.test -test.run TestServer 2>&1 | grep -m1 -o 'failed to listen.*' >&2; echo "httptest exit=${PIPESTATUS[0]}"
"$PY" server.py; echo "python exit=$?"`
	if _, err := exec.LookPath("node"); err == nil {
		script += fmt.Sprintf(`
node -e 'require("http").createServer().listen(%d, "127.0.0.1")'; echo "node exit=$?"`, nodePort)
	}
	return script
}

// networkNotes are the notes of a result that start with "network: ".
func networkNotes(notes []string) []string {
	var out []string
	for _, n := range notes {
		if strings.HasPrefix(n, "network: ") {
			out = append(out, n)
		}
	}
	return out
}

// checkListenNotes checks that the servers of listenScript did not listen
// and that the notes say, for each, that servers cannot listen here, what
// refused them and what would let them. exact: the python server's note
// names its address (the connect supervisor sees each bind; stderr alone
// does not name it).
func checkListenNotes(t *testing.T, where string, notes []string, out string, nodePort, pyPort int, by string, exact bool) {
	t.Helper()
	if strings.Contains(out, "PY-LISTENING") || strings.Contains(out, "httptest exit=0") || strings.Contains(out, "python exit=0") || strings.Contains(out, "node exit=0") {
		t.Errorf("%s: a server listened:\n%s", where, out)
	}
	advice := []string{"servers cannot listen in this sandbox (" + by, "no network namespace", "stockade doctor says which", "--network on"}
	if noteWith(notes, append([]string{"network: refused listening on "}, advice...)...) == "" {
		t.Errorf("%s: no note says why Go's httptest cannot listen and what would let it:\n%s\n%s", where, strings.Join(notes, "\n"), out)
	}
	py := append([]string{"network: refused listening: "}, advice...)
	switch {
	case exact:
		py[0] = "network: refused listening on 127.0.0.1:" + strconv.Itoa(pyPort) + ": "
	case strings.HasPrefix(by, "network = "):
		// No inet socket can be made: python's traceback ends where the
		// socket is made, before anything says it was to listen.
		py = []string{`network connection refused: this sandbox has no network (network = "off")`, "--network on"}
	}
	if noteWith(notes, py...) == "" {
		t.Errorf("%s: no note for python's server (%q):\n%s\n%s", where, py, strings.Join(notes, "\n"), out)
	}
	if strings.Contains(out, "node exit=") && noteWith(notes, append([]string{"network: refused listening on 127.0.0.1:" + strconv.Itoa(nodePort) + ": "}, advice...)...) == "" {
		t.Errorf("%s: no note for node's server:\n%s\n%s", where, strings.Join(notes, "\n"), out)
	}
	if n := networkNotes(notes); len(n) > 10 {
		t.Errorf("%s: %d network notes, want at most ten", where, len(n))
	}
}

// TestListenNotes: where the session has no network namespace, a server
// cannot listen on loopback; the result (stockade run --json, and the MCP
// bash tool) says so for each server, with what refused it and what would
// let it listen: with the network off, under the connect supervisor, and
// under Landlock's port rule. Without stockade, the plain user's servers
// listen.
func TestListenNotes(t *testing.T) {
	requireSuite(t)
	if python == "" {
		t.Skip("no python3")
	}
	id := plainUser()
	dir := id.dir(t)
	nodePort, _ := strconv.Atoi(freePort(t, "127.0.0.1"))
	pyPort, _ := strconv.Atoi(freePort(t, "127.0.0.1"))
	script := listenScript(t, dir, nodePort, pyPort)

	ctl := id.command("bash", "-c", `cd "$1" && "$2" server.py`, "bash", dir, python)
	if out, _ := ctl.CombinedOutput(); !strings.Contains(string(out), "PY-LISTENING") {
		t.Fatalf("without the sandbox the plain user's server did not listen; it proves nothing:\n%s", out)
	}

	allowlist := allowAll + "[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\"]\n"
	for _, c := range []struct {
		name, policy, by string
		exact            bool // the note names python's address (the supervisor saw its bind)
		host             func(t *testing.T) []string
	}{
		{"network off", allowAll, `network = "off"`, false, func(*testing.T) []string { return nil }},
		{"supervisor", allowlist, "the connect supervisor refuses bind", true, func(t *testing.T) []string { requireSupervisor(t); return nil }},
		{"port rule", allowlist, "Landlock's port rule refuses every bind", false, func(t *testing.T) []string {
			return []string{"--simulate-host", hostWithoutSupervisor(t), "--enforce", "best-effort"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := c.host(t)
			j, stderr := plainRun(t, c.policy, script, args...)
			if j.Applied.Supervised != (c.name == "supervisor") || j.Applied.ProxyPortOnly != (c.name == "port rule") {
				t.Fatalf("not the sandbox this case is about: %+v\n%s", j.Applied, stderr)
			}
			checkListenNotes(t, "stockade run", j.Notes, stderr, nodePort, pyPort, c.by, c.exact)
			res := plainServe(t, c.policy, args...).bash(map[string]any{"command": script})
			checkListenNotes(t, "mcp", strList(res["notes"]), fmt.Sprint(res["stdout"], res["stderr"]), nodePort, pyPort, c.by, c.exact)
		})
	}
}

// TestSupervisedUnixNotes: below Landlock ABI 4 (simulated), the connect
// supervisor refuses a connect on a unix socket, and the result says which
// socket and what would let it through. Without stockade the plain user
// reaches the socket.
func TestSupervisedUnixNotes(t *testing.T) {
	requireSupervisor(t)
	if python == "" {
		t.Skip("no python3")
	}
	id := plainUser()
	dir := id.dir(t)
	path := dir + "/db.sock"
	ln, err := net.Listen("unix", path)
	must(t, err)
	t.Cleanup(func() { ln.Close() })
	os.Chmod(path, 0o777)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("unix-secret\n"))
			c.Close()
		}
	}()
	script := `"$PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(64).decode())' ` + path + `; echo "python exit=$?"`
	ctl := id.command("bash", "-c", strings.ReplaceAll(script, `"$PY"`, python))
	if out, _ := ctl.CombinedOutput(); !strings.Contains(string(out), "unix-secret") {
		t.Fatalf("without the sandbox the plain user did not reach the unix socket; it proves nothing:\n%s", out)
	}

	host := simulatedHost(t, "abi3.json", func(h map[string]any) { h["landlock_abi"] = 3 })
	policy := allowAll + "[sandbox]\nnetwork = \"allowlist\"\nunix_sockets = \"allow\"\n[network]\nallow = [\"pkg.test\"]\n"
	j, stderr := plainRun(t, policy, script, "--simulate-host", host)
	if !j.Applied.Supervised || j.Applied.LandlockABI != 3 {
		t.Fatalf("not supervised at Landlock ABI 3: %+v\n%s", j.Applied, stderr)
	}
	want := []string{"network: refused the unix socket " + path + ": a connect on a unix socket", "ABI 4", "network namespace"}
	if strings.Contains(stderr, "unix-secret") || noteWith(j.Notes, want...) == "" {
		t.Errorf("stockade run: the unix connect went through, or no note names it:\n%s\n%s", strings.Join(j.Notes, "\n"), stderr)
	}
	res := plainServe(t, policy, "--simulate-host", host).bash(map[string]any{"command": script})
	if out := fmt.Sprint(res["stdout"], res["stderr"]); strings.Contains(out, "unix-secret") || noteWith(strList(res["notes"]), want...) == "" {
		t.Errorf("mcp: the unix connect went through, or no note names it: %v\n%s", res["notes"], out)
	}
}

// simulatedHost is the host the plain user meets where user namespaces are
// refused, as stockade doctor --json describes it, changed by edit and
// written to a file named name for --simulate-host.
func simulatedHost(t *testing.T, name string, edit func(map[string]any)) string {
	t.Helper()
	id := plainUser()
	cmd := withoutUserNS(t, id, id.stockade, "doctor", "--json", "--policy", id.policy(t))
	cmd.Env = append(os.Environ(), "HOME="+id.dir(t))
	out, _ := cmd.Output()
	var d struct {
		Host map[string]any `json:"host"`
	}
	if err := json.Unmarshal(out, &d); err != nil || d.Host == nil {
		t.Fatalf("stockade doctor --json: %v\n%s", err, out)
	}
	edit(d.Host)
	b, _ := json.Marshal(map[string]any{"host": d.Host})
	path := id.dir(t) + "/" + name
	must(t, os.WriteFile(path, b, 0o644))
	return path
}

// plainServe starts stockade serve as the plain user where it gets no user
// namespace, under policyText and the extra flags of args.
func plainServe(t *testing.T, policyText string, args ...string) *server {
	t.Helper()
	id := plainUser()
	home := id.dir(t)
	policy := home + "/serve-policy.toml"
	must(t, os.WriteFile(policy, []byte(policyText), 0o644))
	argv := append([]string{id.stockade, "serve", "--policy", policy, "--workdir", id.dir(t)}, args...)
	cmd := withoutUserNS(t, id, argv...)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+id.dir(t), "HOME="+home, "PY="+python)
	s := startServerCmd(t, cmd)
	return s
}

// strList is a JSON array of strings as a []string.
func strList(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			out = append(out, fmt.Sprint(x))
		}
	}
	return out
}

// taskOutput calls task_output for task id, waiting up to ten seconds for
// it to end, and returns its structured result.
func taskOutput(s *server, id string) map[string]any {
	s.t.Helper()
	raw := s.request("tools/call", map[string]any{"name": "task_output", "arguments": map[string]any{"task_id": id, "wait": 10000}})
	var r struct {
		Structured map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Structured == nil {
		s.t.Fatalf("task_output: %v\n%s", err, raw)
	}
	return r.Structured
}

// TestTaskNotes: a background task's server that cannot listen, and its
// direct connection, are notes of the task (task_output), and not of a
// foreground call of the same session that ran while the task met them:
// under the connect supervisor, which sees the task's process group, and
// with the network off, where the task's output shows it.
func TestTaskNotes(t *testing.T) {
	requireSuite(t)
	if python == "" {
		t.Skip("no python3")
	}
	id := plainUser()
	dir := id.dir(t)
	pyPort, _ := strconv.Atoi(freePort(t, "127.0.0.1"))
	connPort, _ := strconv.Atoi(freePort(t, "127.0.0.1"))
	listenScript(t, dir, 0, pyPort)
	task := "cd '" + dir + `' || exit 9
./httptest.test -test.run TestServer 2>&1 | grep -m1 -o 'failed to listen.*'
"$PY" server.py; echo "python exit=$?"
"$PY" -c 'import socket; socket.create_connection(("127.0.0.1", ` + strconv.Itoa(connPort) + `), timeout=5)' 2>/dev/null; echo "connect exit=$?"`
	allowlist := allowAll + "[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\"]\n"
	for _, c := range []struct {
		name, policy string
		supervised   bool
	}{
		{"network off", allowAll, false},
		{"supervisor", allowlist, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.supervised {
				requireSupervisor(t)
			}
			s := plainServe(t, c.policy)
			res := s.bash(map[string]any{"command": task, "run_in_background": true})
			taskID, _ := res["task_id"].(string)
			out, _ := res["output_file"].(string)
			if taskID == "" || out == "" {
				t.Fatalf("no background task: %v", res)
			}
			// A foreground call that runs while the task meets its refusals.
			fg := s.bash(map[string]any{"command": `for i in $(seq 200); do grep -q 'connect exit' ` + out + ` && break; sleep 0.05; done; echo waited`})
			if n := noteWith(strList(fg["notes"]), "network: refused"); n != "" {
				t.Errorf("a foreground call has the background task's refusal: %q", n)
			}
			tr := taskOutput(s, taskID)
			notes := strList(tr["notes"])
			text := fmt.Sprint(tr["output"])
			if strings.Contains(text, "PY-LISTENING") || !strings.Contains(text, "connect exit=") {
				t.Fatalf("the task listened, or did not run to its end:\n%s", text)
			}
			want := `network = "off"`
			if c.supervised {
				want = "the connect supervisor refuses bind"
				if noteWith(notes, "network: refused listening on 127.0.0.1:"+strconv.Itoa(pyPort)+": servers cannot listen") == "" ||
					noteWith(notes, "network: refused 127.0.0.1:"+strconv.Itoa(connPort)+": a direct connection") == "" {
					t.Errorf("task_output's notes do not name the task's refused bind and connect:\n%s\n%s", strings.Join(notes, "\n"), text)
				}
			}
			if noteWith(notes, "network: refused listening on ", "servers cannot listen in this sandbox ("+want, "--network on") == "" {
				t.Errorf("task_output's notes do not say why the task's httptest server cannot listen:\n%s\n%s", strings.Join(notes, "\n"), text)
			}
		})
	}
}
