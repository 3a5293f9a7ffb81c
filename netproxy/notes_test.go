package netproxy

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// TestDirectNotes: a direct connection the connect supervisor refused is a
// note that names the address and says what would reach it: an allow entry
// for it where none names it, and the proxy in every case; for loopback,
// that it is the host's, and that NO_PROXY must go.
func TestDirectNotes(t *testing.T) {
	allow, err := ParseAllowlist([]string{"pkg.test", "192.0.2.7"})
	if err != nil {
		t.Fatal(err)
	}
	p := New(allow)
	cases := []struct {
		addr      netip.AddrPort
		want      []string
		wantNot   []string
		wantEntry string // the note's key
	}{
		{netip.MustParseAddrPort("198.51.100.1:443"), []string{`add "198.51.100.1" to [network] allow`, "--allow-host 198.51.100.1", "HTTP_PROXY and HTTPS_PROXY"}, []string{"NO_PROXY", "loopback"}, "198.51.100.1:443"},
		{netip.MustParseAddrPort("192.0.2.7:80"), []string{"192.0.2.7 is on [network] allow", "HTTP_PROXY and HTTPS_PROXY"}, []string{"add "}, "192.0.2.7:80"},
		{netip.MustParseAddrPort("127.0.0.1:5432"), []string{"no loopback of its own", "127.0.0.1 is the host's", `add "127.0.0.1"`, "NO_PROXY and no_proxy unset"}, nil, "127.0.0.1:5432"},
		{netip.MustParseAddrPort("[::ffff:127.0.0.1]:6379"), []string{`add "127.0.0.1"`}, []string{"ffff"}, "127.0.0.1:6379"},
		{netip.MustParseAddrPort("[::1]:8080"), []string{`add "::1"`, "::1 is the host's"}, nil, "[::1]:8080"},
		{netip.AddrPort{}, []string{"not IPv4 or IPv6", "a direct connection"}, []string{":0"}, "an address that is not IPv4 or IPv6"},
	}
	for _, c := range cases {
		ev := p.Direct(c.addr)
		if ev.Allowed || ev.Reason == "" {
			t.Errorf("%v: not a refusal: %+v", c.addr, ev)
		}
		notes := Notes([]Event{ev})
		if len(notes) != 1 {
			t.Fatalf("%v: notes %q", c.addr, notes)
		}
		if !strings.HasPrefix(notes[0], "network: refused "+c.wantEntry+": a direct connection") {
			t.Errorf("%v: note %q does not start with the address", c.addr, notes[0])
		}
		for _, w := range c.want {
			if !strings.Contains(notes[0], w) {
				t.Errorf("%v: note %q lacks %q", c.addr, notes[0], w)
			}
		}
		for _, w := range c.wantNot {
			if strings.Contains(notes[0], w) {
				t.Errorf("%v: note %q has %q", c.addr, notes[0], w)
			}
		}
	}
}

// TestNotesBound: a command that tries address after address gets a note
// for the first maxNotes, and one that counts the rest.
func TestNotesBound(t *testing.T) {
	p := New(&Allowlist{})
	var events []Event
	for i := range maxNotes + 5 {
		ev := p.Direct(netip.AddrPortFrom(netip.MustParseAddr("198.51.100.1"), uint16(1000+i)))
		events = append(events, ev, ev) // each twice: one note for both
	}
	notes := Notes(events)
	if len(notes) != maxNotes+1 {
		t.Fatalf("%d notes, want %d: %q", len(notes), maxNotes+1, notes)
	}
	if want := fmt.Sprintf("network: %d more destinations refused", 5); !strings.HasPrefix(notes[maxNotes], want) {
		t.Errorf("the last note %q, want it to start %q", notes[maxNotes], want)
	}
}

// TestNoNetworkNote: a failed command whose output has the marks of a
// missing network gets a note for its mode; pip's bare "(from versions:
// none)" counts only where there is no network at all.
func TestNoNetworkNote(t *testing.T) {
	pip := "ERROR: Could not find a version that satisfies the requirement left-pad (from versions: none)\n"
	npm := "npm error request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org\n"
	cases := []struct {
		mode, output string
		exit         int
		want         string
	}{
		{"off", npm, 1, `no network (network = "off")`},
		{"off", pip, 1, `no network (network = "off")`},
		{"off", pip, 0, ""},
		{"allowlist", npm, 1, "reaches only the hosts of [network] allow"},
		{"allowlist", pip, 1, ""},
		{"on", npm, 1, ""},
		{"off", "error: no such file\n", 1, ""},
	}
	for _, c := range cases {
		got := NoNetworkNote(c.mode, c.exit, c.output)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s, exit %d, %q: note %q, want one with %q", c.mode, c.exit, c.output, got, c.want)
		}
	}
}

// TestListenNotes: a server socket the sandbox refused is a note that says
// listening, where (when known), what refused it, and what would let
// servers listen; a bind and a connect to the same address are two notes.
func TestListenNotes(t *testing.T) {
	addr := netip.MustParseAddrPort("127.0.0.1:3000")
	notes := Notes([]Event{Listen(addr, "by test"), Listen(netip.AddrPort{}, "by test"), New(&Allowlist{}).Direct(addr), Listen(addr, "by test")})
	if len(notes) != 3 {
		t.Fatalf("notes %q, want three", notes)
	}
	for i, want := range []string{"network: refused listening on 127.0.0.1:3000: servers cannot listen in this sandbox (by test)", "network: refused listening: servers cannot listen", "network: refused 127.0.0.1:3000: a direct connection"} {
		if !strings.HasPrefix(notes[i], want) {
			t.Errorf("note %d: %q, want it to start with %q", i, notes[i], want)
		}
	}
	for _, w := range []string{"no network namespace", "httptest", "stockade doctor", "--network on"} {
		if !strings.Contains(notes[0], w) {
			t.Errorf("note %q lacks %q", notes[0], w)
		}
	}
	unix := Notes([]Event{DirectUnix("/run/db.sock")})
	if len(unix) != 1 || !strings.HasPrefix(unix[0], "network: refused the unix socket /run/db.sock: a connect on a unix socket") || !strings.Contains(unix[0], "ABI 4") {
		t.Errorf("unix: %q", unix)
	}
}
