package netproxy

import (
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// curlWith runs the real curl with env (a proxy environment) for every host.
func curlWith(t *testing.T, env map[string]string, args ...string) (string, error) {
	cmd := exec.Command(requireCurl(t), append([]string{"-sS", "--max-time", "20", "--noproxy", ""}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// eventsFrom waits until n events are recorded and returns those from the
// from-th on (connections are recorded as they end, in any order).
func (w *world) eventsFrom(t *testing.T, from, n int) []Event {
	t.Helper()
	w.nthEvent(t, n)
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Event(nil), w.events[from:n]...)
}

// TestGrantCredential: a name on no allowlist is reached by the client
// whose proxy URL carries the credential of a grant of it (real curl sends
// it as Proxy-Authorization), over plain HTTP and through CONNECT; the same
// request without the credential, with an unknown one, with the grant's
// after it was revoked, or on another session's listener, is refused.
func TestGrantCredential(t *testing.T) {
	up := upstream(t, false)
	upTLS := upstream(t, true)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: upTLS.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	// The session allows the address the test names resolve to, and no name.
	w := newWorld(t, "127.0.0.1")
	other := newWorld(t, "127.0.0.1")
	granted, err := ParseAllowlist([]string{"pkg.test", "example.com"})
	if err != nil {
		t.Fatal(err)
	}
	token, revoke := w.grants.Add(granted, `rule "npm-install"`)
	plain := "http://pkg.test:" + port(up) + "/"
	tls := "https://example.com:" + port(upTLS) + "/"

	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"HTTP with the credential", GrantEnv(w.addr, token), []string{"-f", plain}, "hello from upstream"},
		{"CONNECT with the credential", GrantEnv(w.addr, token), []string{"-f", "--cacert", ca, tls}, "hello from upstream"},
	} {
		out, err := curlWith(t, c.env, c.args...)
		if err != nil || !strings.Contains(out, c.want) {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
	}
	if events := w.eventsFrom(t, 0, 2); !slices.ContainsFunc(events, func(e Event) bool {
		return e.Allowed && e.Rule == `example.com (granted by rule "npm-install") + 127.0.0.1`
	}) {
		t.Errorf("no event of a granted connection names the grant: %+v", events)
	}
	refused := func(name string, env map[string]string, w *world, n int) {
		t.Helper()
		for _, args := range [][]string{{"-f", plain}, {"-f", "--cacert", ca, tls}} {
			out, err := curlWith(t, env, args...)
			if err == nil {
				t.Errorf("%s: %s went through:\n%s", name, args[len(args)-1], out)
			}
		}
		for _, e := range w.eventsFrom(t, n-2, n) {
			if e.Allowed || !strings.Contains(e.Reason, "not on the allowlist") {
				t.Errorf("%s: event %+v", name, e)
			}
		}
	}
	refused("no credential", Env(w.addr), w, 4)
	refused("an unknown credential", GrantEnv(w.addr, strings.Repeat("0", len(token))), w, 6)
	refused("another session's listener", GrantEnv(other.addr, token), other, 2)
	revoke()
	refused("a revoked credential", GrantEnv(w.addr, token), w, 8)
	if n := w.grants.Live(); n != 0 {
		t.Errorf("%d grants live after the only one was revoked", n)
	}
}

// TestGrantCredentialStaysHere: the upstream of a plain HTTP request never
// sees the credential.
func TestGrantCredentialStaysHere(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(rw, "auth=%q", r.Header.Get("Proxy-Authorization"))
	}))
	t.Cleanup(up.Close)
	w := newWorld(t, "127.0.0.1")
	granted, _ := ParseAllowlist([]string{"pkg.test"})
	token, revoke := w.grants.Add(granted, "test")
	defer revoke()
	out, err := curlWith(t, GrantEnv(w.addr, token), "-f", "http://pkg.test:"+port(up)+"/")
	if err != nil || out != `auth=""` {
		t.Errorf("the upstream got: %v %s", err, out)
	}
}

func TestCredential(t *testing.T) {
	for auth, want := range map[string]string{
		"Basic c3RvY2thZGU6c2VjcmV0": "secret", // stockade:secret
		"basic c2VjcmV0Og==":         "secret", // secret:
		"Basic c2VjcmV0":             "secret", // secret (no colon)
		"Bearer secret":              "",
		"Basic !!!":                  "",
		"":                           "",
	} {
		if got := credential(auth); got != want {
			t.Errorf("credential(%q) = %q, want %q", auth, got, want)
		}
	}
}

// TestGrantChallenge: a client that sends its credential only when asked
// (curl --proxy-anyauth, as git does) is asked while a grant is live, and
// gets through; the refusal that asked is left out of the notes, since the
// retry went through. With no live grant, the refusal is a plain 403.
func TestGrantChallenge(t *testing.T) {
	up := upstream(t, false)
	w := newWorld(t, "127.0.0.1")
	plain := "http://pkg.test:" + port(up) + "/"
	if out, err := curlWith(t, Env(w.addr), "-f", "-o", "/dev/null", "-w", "%{http_code}", plain); err == nil || !strings.HasSuffix(out, "\n403") {
		t.Errorf("no grant live: %v %q, want a 403", err, out)
	}
	granted, _ := ParseAllowlist([]string{"pkg.test"})
	token, revoke := w.grants.Add(granted, "test")
	defer revoke()
	out, err := curlWith(t, GrantEnv(w.addr, token), "-f", "--proxy-anyauth", plain)
	if err != nil || !strings.Contains(out, "hello from upstream") {
		t.Fatalf("curl --proxy-anyauth with a granted credential: %v\n%s", err, out)
	}
	events := w.eventsFrom(t, 1, 3)
	if !slices.ContainsFunc(events, func(e Event) bool { return e.Challenged && !e.Allowed }) ||
		!slices.ContainsFunc(events, func(e Event) bool { return e.Allowed }) {
		t.Errorf("events %+v, want a challenge and the allowed retry", events)
	}
	if notes := Notes(events); len(notes) != 0 {
		t.Errorf("notes for a challenge answered: %q", notes)
	}
}
