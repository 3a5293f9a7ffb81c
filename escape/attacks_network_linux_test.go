//go:build linux

package escape

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stockade/stockade/hostfacts"
)

// requireNetNS skips where stockade cannot give a session a network
// namespace of its own (not root with CAP_SYS_ADMIN).
func requireNetNS(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if python == "" {
		t.Skip("no python3")
	}
	if !hostfacts.Detect().CanNetNS() {
		t.Skip("no network namespace for a session on this host (needs root with CAP_SYS_ADMIN)")
	}
}

// stockadeRun runs a script through `stockade run --json` with the escape
// suite's policy, in dir, with extra environment; it returns the JSON result
// and the stderr.
func stockadeRun(t *testing.T, ctx context.Context, dir, script string, vars ...string) (*runJSON, string) {
	t.Helper()
	return stockadeRunWith(t, ctx, dir, "allow-all.toml", nil, script, vars...)
}

// TestOwnLoopback: with the network off, a command serves and calls its
// session's own loopback, over IPv4 and IPv6.
func TestOwnLoopback(t *testing.T) {
	requireNetNS(t)
	j, stderr := stockadeRun(t, context.Background(), t.TempDir(), readScript(t, "netns-own-loopback"))
	if j.ExitCode != 0 || !strings.Contains(stderr, "127.0.0.1 pong") || !strings.Contains(stderr, "::1 pong") {
		t.Fatalf("the session's own loopback does not work: exit %d, error %q\n%s", j.ExitCode, j.Error, stderr)
	}
	if j.Applied == nil || !j.Applied.NetNS {
		t.Fatalf("applied says no network namespace: %+v", j.Applied)
	}
}

// TestOtherSessionLoopback: a server that one session runs on loopback is
// out of reach of another session's commands; without the sandbox, the same
// two processes meet.
func TestOtherSessionLoopback(t *testing.T) {
	requireNetNS(t)
	for _, sandboxed := range []bool{false, true} {
		name := map[bool]string{false: "unsandboxed", true: "sandboxed"}[sandboxed]
		t.Run(name, func(t *testing.T) {
			victimDir, attackerDir := t.TempDir(), t.TempDir()
			port := freePort(t, "127.0.0.1")
			vars := []string{"PORT=" + port, "VICTIM=" + victimDir}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			victimDone := make(chan struct{})
			go func() {
				defer close(victimDone)
				if sandboxed {
					stockadeRun(t, ctx, victimDir, readScript(t, "netns-victim"), vars...)
					return
				}
				cmd := exec.CommandContext(ctx, "bash", "-c", readScript(t, "netns-victim"))
				cmd.Dir, cmd.Env = victimDir, append(os.Environ(), append([]string{"PY=" + python}, vars...)...)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
				cmd.Run()
			}()
			for {
				if _, err := os.Stat(filepath.Join(victimDir, "ready")); err == nil {
					break
				}
				select {
				case <-victimDone:
					t.Fatal("the victim ended before it listened")
				case <-time.After(20 * time.Millisecond):
				}
			}
			attack := readScript(t, "netns-other-session")
			exit := 0
			if sandboxed {
				j, _ := stockadeRun(t, ctx, attackerDir, attack, vars...)
				exit = j.ExitCode
			} else {
				cmd := exec.CommandContext(ctx, "bash", "-c", attack)
				cmd.Dir, cmd.Env = attackerDir, append(os.Environ(), append([]string{"PY=" + python}, vars...)...)
				if cmd.Run() != nil {
					exit = cmd.ProcessState.ExitCode()
				}
			}
			// Let the victim see a connection that got through, then stop it.
			time.Sleep(200 * time.Millisecond)
			_, hitErr := os.Stat(filepath.Join(victimDir, "hit"))
			hit := hitErr == nil
			cancel()
			<-victimDone
			switch {
			case !sandboxed && !hit:
				t.Fatalf("the attack is broken: without the sandbox it did not reach the victim (exit %d)", exit)
			case sandboxed && hit:
				t.Fatalf("ESCAPE: a command reached another session's loopback server")
			case sandboxed && exit == 0:
				t.Fatalf("inconclusive: the attack exited 0 without reaching the victim")
			}
		})
	}
}

// TestAllowlistDirect: with network = "allowlist", the attacks on the
// network that skip the proxy (TCP to the host's loopback over IPv4 and
// IPv6, UDP, DNS, a raw socket, a unix socket) are stopped as with the
// network off.
func TestAllowlistDirect(t *testing.T) {
	requireNetNS(t)
	to := func(host, key string) func(*testing.T, *env) map[string]string {
		return func(t *testing.T, e *env) map[string]string {
			return map[string]string{"HOST": host, "PORT": e.ln.port(key)}
		}
	}
	const pol = "allowlist.toml"
	run(t, []attack{
		{name: "tcp-connect-ipv4", policy: pol, script: readScript(t, "tcp-connect"), expect: "TCP listener on 127.0.0.1", vars: to("127.0.0.1", "tcp4")},
		{name: "tcp-connect-ipv6", policy: pol, script: readScript(t, "tcp-connect"), expect: "TCP listener on ::1", vars: to("::1", "tcp6")},
		{name: "udp-send-ipv4", policy: pol, script: readScript(t, "udp-send"), expect: "UDP listener on 127.0.0.1", vars: to("127.0.0.1", "udp4")},
		{name: "dns", policy: pol, expect: "DNS server", vars: to("127.0.0.1", "dns")},
		{name: "raw-socket", policy: pol, expect: "UDP listener on 127.0.0.1", vars: to("127.0.0.1", "udp4")},
		{name: "unix-connect-path", policy: pol, script: readScript(t, "unix-connect"), expect: "unix socket listener /",
			vars: func(t *testing.T, e *env) map[string]string { return map[string]string{"SOCK": e.ln.addr["unix"]} }},
	})
}

// TestAllowlistProxy: requests through stockade's proxy that the allowlist
// must refuse. Each reaches the test's listener without the sandbox (curl
// pointed straight at it), and not with it; the proxy's refusal is in the
// result's notes.
func TestAllowlistProxy(t *testing.T) {
	requireNetNS(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	var mu sync.Mutex
	var hosts []string // Host headers the listener saw
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		io.WriteString(w, "reached")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	cases := []struct {
		name     string
		url      string
		curlArgs string
		resolve  string   // the control's --resolve
		args     []string // stockade run's extra flags
		note     string   // in the sandboxed result's notes
	}{
		{"unlisted-name", "http://evil.test:" + port + "/", "", "evil.test", []string{"--allow-host", "127.0.0.1"}, "evil.test:" + port + " is not on the allowlist"},
		{"connect-unlisted-name", "http://evil.test:" + port + "/", "-p", "evil.test", []string{"--allow-host", "127.0.0.1"}, "evil.test:" + port + " is not on the allowlist"},
		{"ip-literal", "http://127.0.0.1:" + port + "/", "--noproxy ''", "", nil, "127.0.0.1 is an IP address, and no allow entry names it"},
		{"listed-name-to-loopback", "http://pkg.test:" + port + "/", "", "pkg.test", []string{"--resolve", "pkg.test=127.0.0.1"}, "pkg.test resolves to 127.0.0.1 (loopback)"},
		{"host-header", "http://pkg.test:" + port + "/", "-H Host:evil.test", "pkg.test", []string{"--resolve", "pkg.test=127.0.0.1", "--allow-host", "127.0.0.1"}, `the Host header "evil.test" is not the host "pkg.test"`},
	}
	script := readScript(t, "proxy-request")
	// The control of the sandboxed runs: what the allowlist allows does go
	// through, so what it refuses is refused by the allowlist.
	t.Run("allowed-name", func(t *testing.T) {
		j, stderr := stockadeRunWith(t, t.Context(), t.TempDir(), "allowlist.toml",
			[]string{"--resolve", "pkg.test=127.0.0.1", "--allow-host", "127.0.0.1"}, script, "URL=http://pkg.test:"+port+"/")
		mu.Lock()
		got := append([]string(nil), hosts...)
		hosts = nil
		mu.Unlock()
		if j.ExitCode != 0 || len(got) == 0 || !strings.Contains(stderr, "reached") {
			t.Fatalf("an allowed name did not go through the proxy: exit %d, requests %q, notes %q\n%s", j.ExitCode, got, j.Notes, stderr)
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sandboxed := range []bool{false, true} {
				mu.Lock()
				hosts = nil
				mu.Unlock()
				vars := []string{"URL=" + c.url, "CURLARGS=" + c.curlArgs}
				var notes []string
				if sandboxed {
					j, stderr := stockadeRunWith(t, t.Context(), t.TempDir(), "allowlist.toml", c.args, script, vars...)
					if j.Error != "" {
						t.Fatalf("inconclusive: stockade did not run the command: %s\n%s", j.Error, stderr)
					}
					notes = j.Notes
				} else {
					resolve := ""
					if c.resolve != "" {
						resolve = "--resolve " + c.resolve + ":" + port + ":127.0.0.1"
					}
					cmd := exec.Command("bash", "-c", script)
					cmd.Env = append(os.Environ(), append(vars, "RESOLVE="+resolve)...)
					cmd.Run()
				}
				mu.Lock()
				got := append([]string(nil), hosts...)
				mu.Unlock()
				switch {
				case !sandboxed && len(got) == 0:
					t.Fatalf("the attack is broken: without the sandbox it did not reach the listener")
				case sandboxed && len(got) > 0:
					t.Fatalf("ESCAPE: through the proxy, the listener got requests for %q", got)
				case sandboxed && !strings.Contains(strings.Join(notes, "\n"), c.note):
					t.Errorf("the notes do not say why: %q, want %q", notes, c.note)
				}
			}
		})
	}
}

// stockadeRunWith is stockadeRun with another policy of testdata/escape and
// extra flags.
func stockadeRunWith(t *testing.T, ctx context.Context, dir, policy string, flags []string, script string, vars ...string) (*runJSON, string) {
	t.Helper()
	args := append([]string{"run", "--json", "--policy", filepath.Join(dataDir, policy)}, flags...)
	cmd := exec.CommandContext(ctx, stockade, append(args, "-c", script)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"PY=" + python}, vars...)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 20 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	var j runJSON
	if err := json.Unmarshal(out, &j); err != nil || j.Status == "" {
		t.Fatalf("no JSON result from stockade run (%v):\n%s\n%s", err, out, stderr.String())
	}
	return &j, stderr.String()
}

// buildHTTPTest builds testdata/escape/httptest, a Go test with an httptest
// server and a client of it, as httptest.test in a new directory, which it
// returns; it skips where there is no go.
func buildHTTPTest(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go to build the test with")
	}
	dir := t.TempDir()
	build := exec.Command("go", "test", "-c", "-o", filepath.Join(dir, "httptest.test"), "./testdata/escape/httptest/")
	build.Dir = filepath.Dir(filepath.Dir(dataDir)) // the module root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the test: %v\n%s", err, out)
	}
	return dir
}

// TestHTTPTest: a Go test that uses net/http/httptest (a server on
// 127.0.0.1 and a client of it) passes under the default network, off.
func TestHTTPTest(t *testing.T) {
	requireNetNS(t)
	dir := buildHTTPTest(t)
	j, stderr := stockadeRun(t, t.Context(), dir, "./httptest.test -test.v")
	if j.ExitCode != 0 || !strings.Contains(stderr, "--- PASS: TestServer") {
		t.Fatalf("an httptest test fails in the sandbox: exit %d\n%s", j.ExitCode, stderr)
	}
}
