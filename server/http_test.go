package server_test

import (
	"bufio"
	"context"
	"net/http"
	osexec "os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpServer is `stockade serve --http` as a subprocess.
type httpServer struct {
	url   string // http://127.0.0.1:PORT/mcp
	token string
	cmd   *osexec.Cmd
	dir   string
	log   *lockedBuffer
}

func startHTTP(t *testing.T, args ...string) *httpServer {
	t.Helper()
	dir := t.TempDir()
	cmd := osexec.Command(stockadeBin, append([]string{"serve", "--http", "127.0.0.1:0", "--workdir", dir}, args...)...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &httpServer{cmd: cmd, dir: dir, log: &lockedBuffer{}}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		urlRe := regexp.MustCompile(`serving MCP at (http://\S+)`)
		tokenRe := regexp.MustCompile(`token: (\S+)`)
		for sc.Scan() {
			line := sc.Text()
			s.log.Write([]byte(line + "\n"))
			if m := urlRe.FindStringSubmatch(line); m != nil {
				s.url = m[1]
				if !strings.Contains(strings.Join(args, " "), "--token") {
					continue // the generated token comes on the next line
				}
				close(ready)
			}
			if m := tokenRe.FindStringSubmatch(line); m != nil {
				s.token = m[1]
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatalf("the HTTP server did not start:\n%s", s.log.String())
	}
	return s
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func (s *httpServer) connect(t *testing.T, token string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "stockade-http-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   s.url,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}},
		MaxRetries: -1,
	}, nil)
}

func httpBash(t *testing.T, cs *mcp.ClientSession, command string, extra ...any) bashResult {
	t.Helper()
	args := map[string]any{"command": command}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, res)
}

func TestHTTPRefusesWithoutToken(t *testing.T) {
	s := startHTTP(t, "--token", "sekrit")
	for _, tc := range []struct {
		name           string
		header         map[string]string
		host           string
		want           int
		wantAuthHeader bool
	}{
		{"no token", nil, "", http.StatusUnauthorized, true},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, "", http.StatusUnauthorized, true},
		{"foreign origin", map[string]string{"Authorization": "Bearer sekrit", "Origin": "http://evil.example"}, "", http.StatusForbidden, false},
		{"rebinding host", map[string]string{"Authorization": "Bearer sekrit"}, "evil.example:80", http.StatusForbidden, false},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want || (tc.wantAuthHeader && resp.Header.Get("WWW-Authenticate") == "") {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	if _, err := s.connect(t, "nope"); err == nil {
		t.Error("a client with the wrong token connected")
	}
	cs, err := s.connect(t, "sekrit")
	if err != nil {
		t.Fatalf("a client with the token could not connect: %v\n%s", err, s.log.String())
	}
	defer cs.Close()
	if r := httpBash(t, cs, "echo over http"); r.Stdout != "over http\n" {
		t.Fatalf("stdout %q", r.Stdout)
	}
}

func TestHTTPSessionsAreSeparate(t *testing.T) {
	s := startHTTP(t)
	if len(s.token) < 32 {
		t.Fatalf("no generated token printed: %q", s.token)
	}
	a, err := s.connect(t, s.token)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := s.connect(t, s.token)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	httpBash(t, a, "cd /usr && export WHO=a")
	if r := httpBash(t, b, `pwd; echo "${WHO-none}"`); r.Stdout != s.dir+"\nnone\n" {
		t.Fatalf("session b sees session a's state: %q", r.Stdout)
	}
	if r := httpBash(t, a, `pwd; echo "$WHO"`); r.Stdout != "/usr\na\n" {
		t.Fatalf("session a lost its state: %q", r.Stdout)
	}
}

// TestHTTPIdleSessionsClose: a session unused for the idle timeout is closed
// and its processes stopped. (A server of its own: with a short timeout, the
// sessions of a test that makes several calls could be closed between them on
// a loaded machine.)
func TestHTTPIdleSessionsClose(t *testing.T) {
	s := startHTTP(t, "--idle-timeout", "2s")
	b, err := s.connect(t, s.token)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	httpBash(t, b, "sleep 300 & echo $! > idle.pid; wait", "run_in_background", true)
	pid := readPid(t, s.dir+"/idle.pid")
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	assertDead(t, pid)
	// The close is logged once the session's processes are stopped: just after.
	for !strings.Contains(s.log.String(), "session closed") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(s.log.String(), "session closed") {
		t.Errorf("no session close was logged:\n%s", s.log.String())
	}
}

func TestHTTPShutdownStopsProcesses(t *testing.T) {
	s := startHTTP(t, "--token", "t0ken")
	cs, err := s.connect(t, "t0ken")
	if err != nil {
		t.Fatal(err)
	}
	httpBash(t, cs, "setsid sleep 300 & echo $! > bg.pid; wait", "run_in_background", true)
	pid := readPid(t, s.dir+"/bg.pid")
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop on SIGTERM")
	}
	assertDead(t, pid)
	cs.Close()
}
