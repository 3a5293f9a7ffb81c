package netproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseAllowlist(t *testing.T) {
	a, err := ParseAllowlist([]string{"registry.npmjs.org", "*.pythonhosted.org", "github.com:443", "169.254.169.254", "10.0.0.0/8", "Example.COM."})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host string
		port int
		want bool
	}{
		{"registry.npmjs.org", 443, true},
		{"registry.npmjs.org", 8080, true},
		{"evil-registry.npmjs.org", 443, false},
		{"files.pythonhosted.org", 443, true},
		{"pythonhosted.org", 443, false},
		{"github.com", 443, true},
		{"github.com", 22, false},
		{"example.com", 80, true},
		{"npmjs.org", 443, false},
	} {
		if _, ok := a.host(c.host, c.port); ok != c.want {
			t.Errorf("%s:%d allowed %v, want %v", c.host, c.port, ok, c.want)
		}
	}
	for _, bad := range []string{"", "https://github.com", "github.com/path", "*", "*.com.", "a b", "1.2.3.4:80", "host:0", "host:x"} {
		if _, err := ParseAllowlist([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestNonPublic(t *testing.T) {
	for s, want := range map[string]bool{
		"127.0.0.1": true, "::1": true, "10.1.2.3": true, "192.168.0.1": true, "172.16.0.1": true,
		"169.254.169.254": true, "fe80::1": true, "fd00::1": true, "0.0.0.0": true, "100.64.0.1": true,
		"::ffff:127.0.0.1": true, "64:ff9b::7f00:1": true, "224.0.0.1": true,
		"93.184.215.14": false, "2606:2800:21f:cb07:6820:80da:af6b:8b2c": false, "64:ff9b::5db8:d70e": false,
	} {
		if got := nonPublic(netip.MustParseAddr(s)) != ""; got != want {
			t.Errorf("%s: non-public %v, want %v", s, got, want)
		}
	}
}

// world is a proxy with a resolver that maps test names to the test's own
// servers on loopback, and the events it recorded.
type world struct {
	proxy  *Proxy
	addr   string // the proxy's listener
	mu     sync.Mutex
	events []Event
	names  map[string]string // name -> IP
	grants *Grants
}

func newWorld(t *testing.T, allow ...string) *world {
	t.Helper()
	a, err := ParseAllowlist(allow)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{proxy: New(a), grants: &Grants{}, names: map[string]string{
		"pkg.test": "127.0.0.1", "example.com": "127.0.0.1", "meta.test": "169.254.169.254", "evil.test": "127.0.0.1",
	}}
	w.proxy.Resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
		ip, ok := w.names[host]
		if !ok {
			return nil, fmt.Errorf("no such host %s", host)
		}
		return []netip.Addr{netip.MustParseAddr(ip)}, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.addr = ln.Addr().String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.proxy.Serve(ln, w.grants, func(e Event) {
			w.mu.Lock()
			w.events = append(w.events, e)
			w.mu.Unlock()
		})
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return w
}

// lastEvent waits for the first event and returns the newest (a connection
// is recorded when it ends, which may be just after the client saw it end).
func (w *world) lastEvent(t *testing.T) Event {
	t.Helper()
	return w.nthEvent(t, 1)
}

// nthEvent waits until n events are recorded and returns the newest.
func (w *world) nthEvent(t *testing.T, want int) Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		n := len(w.events)
		var e Event
		if n > 0 {
			e = w.events[n-1]
		}
		w.mu.Unlock()
		if n >= want {
			return e
		}
		if time.Now().After(deadline) {
			t.Fatal("no event recorded")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func upstream(t *testing.T, tlsToo bool) *httptest.Server {
	h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(rw, "hello from upstream, host %s", r.Host)
	})
	var s *httptest.Server
	if tlsToo {
		s = httptest.NewTLSServer(h)
	} else {
		s = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

func port(s *httptest.Server) string {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	return p
}

func requireCurl(t *testing.T) string {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	return curl
}

// curl runs the real curl with the proxy in its environment, for every
// host (the environment leaves loopback direct; these tests ask the proxy).
func curl(t *testing.T, w *world, args ...string) (string, error) {
	cmd := exec.Command(requireCurl(t), append([]string{"-sS", "--max-time", "20", "--noproxy", ""}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range Env(w.addr) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestCurlHTTP(t *testing.T) {
	up := upstream(t, false)
	w := newWorld(t, "pkg.test", "127.0.0.1")
	out, err := curl(t, w, "http://pkg.test:"+port(up)+"/x")
	if err != nil || !strings.Contains(out, "hello from upstream, host pkg.test:") {
		t.Fatalf("curl through the proxy: %v\n%s", err, out)
	}
	if e := w.lastEvent(t); !e.Allowed || e.Rule != "pkg.test + 127.0.0.1" || e.Down == 0 {
		t.Errorf("event %+v", e)
	}
}

func TestCurlCONNECT(t *testing.T) {
	up := upstream(t, true)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: up.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, "example.com", "127.0.0.1")
	out, err := curl(t, w, "--cacert", ca, "https://example.com:"+port(up)+"/")
	if err != nil || !strings.Contains(out, "hello from upstream, host example.com:") {
		t.Fatalf("curl through CONNECT: %v\n%s", err, out)
	}
	if e := w.lastEvent(t); !e.Allowed || e.Host != "example.com" || e.Up == 0 || e.Down == 0 {
		t.Errorf("event %+v", e)
	}
}

// TestRefusals: each way of reaching something the allowlist does not allow
// is refused with a reason, and the same request is carried out when the
// allowlist allows it (so the refusal is the allowlist's doing).
func TestRefusals(t *testing.T) {
	up := upstream(t, false)
	p := port(up)
	cases := []struct {
		name, url string
		allow     []string // allows it
		refuse    []string // refuses it
		reason    string
	}{
		{"unlisted name", "http://evil.test:" + p, []string{"evil.test", "127.0.0.1"}, []string{"pkg.test", "127.0.0.1"}, "not on the allowlist"},
		{"IP literal", "http://127.0.0.1:" + p, []string{"127.0.0.1"}, []string{"pkg.test"}, "is an IP address"},
		{"listed name resolving to loopback", "http://pkg.test:" + p, []string{"pkg.test", "127.0.0.1"}, []string{"pkg.test"}, "resolves to 127.0.0.1 (loopback)"},
		{"unknown name", "http://nowhere.test:" + p, nil, []string{"nowhere.test"}, "does not resolve"},
		{"wrong port", "http://pkg.test:" + p, []string{"pkg.test", "127.0.0.1"}, []string{"pkg.test:1", "127.0.0.1"}, "not on the allowlist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.allow != nil {
				w := newWorld(t, c.allow...)
				if out, err := curl(t, w, "-f", c.url); err != nil {
					t.Fatalf("the control is broken: with allow %q, %s fails: %v\n%s", c.allow, c.url, err, out)
				}
			}
			w := newWorld(t, c.refuse...)
			out, err := curl(t, w, "-f", c.url)
			if err == nil {
				t.Fatalf("with allow %q, %s went through:\n%s", c.refuse, c.url, out)
			}
			if e := w.lastEvent(t); e.Allowed || !strings.Contains(e.Reason, c.reason) {
				t.Errorf("event %+v, want a refusal saying %q", e, c.reason)
			}
		})
	}
}

// rawConnect opens a CONNECT tunnel by hand and returns the connection and
// the status line.
func rawConnect(t *testing.T, w *world, target string) (net.Conn, *bufio.Reader, string) {
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	status, _ := br.ReadString('\n')
	for {
		l, err := br.ReadString('\n')
		if err != nil || l == "\r\n" {
			break
		}
	}
	return c, br, status
}

func TestMetadataRefused(t *testing.T) {
	w := newWorld(t, "meta.test")
	_, _, status := rawConnect(t, w, "meta.test:80")
	if !strings.Contains(status, "403") {
		t.Fatalf("CONNECT to a name resolving to 169.254.169.254: %q", status)
	}
	if e := w.lastEvent(t); !strings.Contains(e.Reason, "link-local") {
		t.Errorf("event %+v", e)
	}
}

// TestSNIMismatch: through a tunnel to an allowed name, a TLS handshake
// that asks for another server name is cut; with the allowed name, it works.
func TestSNIMismatch(t *testing.T) {
	up := upstream(t, true)
	for _, sni := range []string{"example.com", "evil.test"} {
		w := newWorld(t, "example.com", "127.0.0.1")
		c, br, status := rawConnect(t, w, "example.com:"+port(up))
		if !strings.Contains(status, "200") {
			t.Fatalf("CONNECT: %q", status)
		}
		tc := tls.Client(&bufConn{Conn: c, r: br}, &tls.Config{ServerName: sni, InsecureSkipVerify: true})
		err := tc.Handshake()
		if sni == "example.com" && err != nil {
			t.Fatalf("the control is broken: TLS with the allowed name fails: %v", err)
		}
		if sni == "evil.test" {
			if err == nil {
				t.Fatal("a TLS handshake for evil.test went through a tunnel to example.com")
			}
			if e := w.lastEvent(t); e.Allowed || !strings.Contains(e.Reason, "server name") {
				t.Errorf("event %+v", e)
			}
		}
	}
}

func TestHostHeaderMismatch(t *testing.T) {
	up := upstream(t, false)
	w := newWorld(t, "pkg.test", "127.0.0.1")
	for _, host := range []string{"pkg.test:" + port(up), "evil.test"} {
		c, err := net.Dial("tcp", w.addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET http://pkg.test:%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", port(up), host)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		c.Close()
		want := map[bool]int{true: 200, false: 403}[host != "evil.test"]
		if resp.StatusCode != want {
			t.Errorf("Host %s: status %d, want %d", host, resp.StatusCode, want)
		}
	}
}

type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// TestRebinding: a listed name whose DNS answer changes from a public
// address to loopback between two connections (DNS rebinding) is refused
// the second time: each connection is decided on the address the proxy
// resolved for it and then dials, never on an earlier answer.
func TestRebinding(t *testing.T) {
	w := newWorld(t, "rebind.test")
	var calls int
	var mu sync.Mutex
	w.proxy.Resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return []netip.Addr{netip.MustParseAddr("192.0.2.1")}, nil // public (TEST-NET-1), nothing listens
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	var dialled []string
	w.proxy.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialled = append(dialled, addr)
		mu.Unlock()
		return nil, fmt.Errorf("test: not dialling %s", addr)
	}
	rawConnect(t, w, "rebind.test:443")
	_, _, status := rawConnect(t, w, "rebind.test:443")
	if !strings.Contains(status, "403") {
		t.Fatalf("second CONNECT after the name rebound to loopback: %q", status)
	}
	w.nthEvent(t, 2)
	w.mu.Lock()
	events := append([]Event(nil), w.events...)
	w.mu.Unlock()
	if !slices.ContainsFunc(events, func(e Event) bool { return strings.Contains(e.Reason, "127.0.0.1 (loopback)") }) {
		t.Errorf("no event says the name resolved to loopback: %+v", events)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialled) != 1 || dialled[0] != "192.0.2.1:443" {
		t.Errorf("dialled %q, want only the public address of the first answer", dialled)
	}
}

// TestTunnelSendsWhatCameWithTheRequest: bytes a client sends in the same
// write as its CONNECT (held in the proxy's buffer while the request is
// read) go up first, before what it sends later, and the answer comes back.
func TestTunnelSendsWhatCameWithTheRequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c) // echo until the client closes its side
	}()
	w := newWorld(t, "pkg.test", "127.0.0.1")
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT pkg.test:%s HTTP/1.1\r\nHost: pkg.test:%s\r\n\r\nfirst,", p, p)
	br := bufio.NewReader(c)
	if status, _ := br.ReadString('\n'); !strings.Contains(status, "200") {
		t.Fatalf("CONNECT: %q", status)
	}
	br.ReadString('\n') // the empty line
	io.WriteString(c, "second")
	c.(*net.TCPConn).CloseWrite()
	got, _ := io.ReadAll(br)
	if string(got) != "first,second" {
		t.Errorf("echoed %q, want %q", got, "first,second")
	}
	if e := w.lastEvent(t); !e.Allowed || e.Up != int64(len("first,second")) || e.Down != e.Up {
		t.Errorf("event %+v", e)
	}
}
