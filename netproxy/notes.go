package netproxy

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Recorder keeps the recent events of one session, so that each result can
// say what its command was refused.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// maxEvents bounds what a Recorder keeps; older events are dropped.
const maxEvents = 1000

// Record keeps e.
func (r *Recorder) Record(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) == maxEvents {
		r.events = append(r.events[:0], r.events[maxEvents/2:]...)
	}
	r.events = append(r.events, e)
}

// Since returns the events of connections that started at t or later.
func (r *Recorder) Since(t time.Time) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if !e.Time.Before(t) {
			out = append(out, e)
		}
	}
	return out
}

// Direct is the Event of a connection the command tried to open itself, to
// addr, not through the proxy, which the connect supervisor refused (an
// invalid addr: an address that is no inet address). Its hint says what
// would reach the address: the proxy, and an allow entry where none names it.
func (p *Proxy) Direct(addr netip.AddrPort) Event {
	ev := Event{Time: time.Now(), Host: "an address that is not IPv4 or IPv6",
		Reason: "a direct connection, which the sandbox refuses: only stockade's proxy is reachable"}
	if !addr.IsValid() {
		return ev
	}
	ip := addr.Addr().Unmap()
	ev.Host, ev.Port, ev.Addr = ip.String(), int(addr.Port()), netip.AddrPortFrom(ip, addr.Port()).String()
	use := "have the tool use the proxy that HTTP_PROXY and HTTPS_PROXY name (curl, git, npm, pip and go read them)"
	if ip.IsLoopback() {
		use = "have the tool use the proxy that HTTP_PROXY names, with NO_PROXY and no_proxy unset (they send loopback around it)"
	}
	if _, listed := p.allow.addr(ip); listed {
		ev.Hint = fmt.Sprintf("%s is on [network] allow: %s", ip, use)
	} else {
		ev.Hint = fmt.Sprintf("to reach it, add %q to [network] allow (or pass --allow-host %s) and %s", ip.String(), ip, use)
	}
	if ip.IsLoopback() {
		ev.Hint = "this host gives the session no loopback of its own (no network namespace): " + ip.String() +
			" is the host's, and servers the command starts cannot listen there; " + ev.Hint
	}
	return ev
}

// DirectUnix is the Event of a connect on the unix socket at path that the
// connect supervisor refused: below Landlock ABI 4 it cannot let one
// through (see sandbox.ConnectSupervisor).
func DirectUnix(path string) Event {
	return Event{Time: time.Now(), Host: "the unix socket " + path,
		Reason: "a connect on a unix socket, which the connect supervisor refuses below Landlock ABI 4 (Linux 6.7): after its check the socket could be swapped for a TCP one that nothing else would stop",
		Hint:   `unix sockets are reachable where Landlock has TCP rules (ABI 4), where the session has a network namespace (as root, or where the host allows user namespaces: stockade doctor says which), or with network = "off" or "on" (no supervisor)`}
}

// Listen is the Event of a server socket the sandbox refused, where the
// session has no network namespace: a bind to addr, or a listen (addr not
// valid: on a port the kernel picks, or where the address is not known).
// by says what refused it.
func Listen(addr netip.AddrPort, by string) Event {
	ev := Event{Time: time.Now(), Call: "listen",
		Reason: "servers cannot listen in this sandbox (" + by + "): this host gives the session no loopback of its own (no network namespace)",
		Hint: "a dev server, or a test that starts one (Go's httptest), cannot run here; where stockade can make the session a network namespace " +
			"(as root, or where the host allows user namespaces: stockade doctor says which), servers listen on a loopback of the session's own; " +
			`with network = "on" (--network on), on the host's, with the network unrestricted`}
	if addr.IsValid() {
		ip := addr.Addr().Unmap()
		ev.Host, ev.Port, ev.Addr = ip.String(), int(addr.Port()), netip.AddrPortFrom(ip, addr.Port()).String()
	}
	return ev
}

// maxNotes bounds the notes of one result; the log has every connection.
const maxNotes = 10

// Notes says, once per host, which connections the proxy refused and what
// would allow them. A refusal that asked for a credential is left out when a
// connection to the same host and port went through (the client's retry).
// At most maxNotes; the last then says how many more were refused.
func Notes(events []Event) []string {
	var out []string
	more := 0
	seen := map[string]bool{}
	allowed := map[string]bool{}
	key := func(e Event) string {
		k := e.Host
		if e.Port != 0 {
			k = net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
		}
		switch {
		case e.Call != "listen":
			return k
		case e.Addr != "":
			return "listening on " + e.Addr // port 0 too: one the kernel would pick
		case k == "":
			return "listening"
		}
		return "listening on " + k
	}
	for _, e := range events {
		if e.Allowed {
			allowed[key(e)] = true
		}
	}
	for _, e := range events {
		if e.Allowed || e.Reason == "" {
			continue
		}
		k := key(e)
		if seen[k] || e.Challenged && allowed[k] {
			continue
		}
		seen[k] = true
		if len(out) == maxNotes {
			more++
			continue
		}
		note := "network: refused " + k + ": " + e.Reason
		if e.Hint != "" {
			note += "; " + e.Hint
		}
		out = append(out, note)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("network: %d more destinations refused; stockade's log (the server's, or stockade run -v) has a line for each", more))
	}
	return out
}

// offSigns are what tools print when a name does not resolve or no route
// exists: the marks of a command that needed the network.
var offSigns = []string{
	"EAI_AGAIN", "ENOTFOUND", "ENETUNREACH", "Could not resolve host", "Temporary failure in name resolution",
	"Name or service not known", "Network is unreachable", "no such host", "getaddrinfo",
	"Failed to establish a new connection", "Could not resolve proxy", "nodename nor servname",
}

// offOnlySigns are marks of a command that needed the network only where
// there is none at all: pip, told not to retry, says no more than this of
// an index it could not reach (and the same of a package that does not
// exist, which the proxy's own notes tell apart under the allowlist).
var offOnlySigns = []string{"(from versions: none)"}

// NoNetworkNote is the note for a command that failed and whose output
// shows it needed a network it does not have; "" when nothing shows it.
// mode is the sandbox's network setting.
func NoNetworkNote(mode string, exitCode int, output string) string {
	if exitCode == 0 || mode == "on" {
		return ""
	}
	signs := offSigns
	if mode == "off" {
		signs = slices.Concat(offOnlySigns, offSigns)
	}
	for _, s := range signs {
		if strings.Contains(output, s) {
			if mode == "allowlist" {
				return "network: the sandbox reaches only the hosts of [network] allow, through stockade's proxy (HTTP_PROXY and HTTPS_PROXY are set); a tool that ignores them, or a host not on the list, gets no connection; add a host with [network] allow in the policy or --allow-host NAME"
			}
			return `network: the sandbox has no network (network = "off"), so names do not resolve; to reach package registries, use network = "allowlist" with [network] allow = ["registry.npmjs.org", ...] (or --allow-host NAME), or network = "on"`
		}
	}
	return ""
}

// Describe is one sentence for a model on what the network of its commands
// is: mode is the sandbox's network setting, netns whether each session has
// a namespace of its own, allow the allowlist's entries.
func Describe(mode string, netns bool, allow []string) string {
	switch {
	case mode == "on":
		return "Network: open, as on the host."
	case mode == "allowlist" && netns:
		hosts := "none yet"
		if len(allow) > 0 {
			hosts = strings.Join(allow, ", ")
		}
		return "Network: only these hosts, by name, through stockade's proxy (HTTP_PROXY and HTTPS_PROXY are set; tools that ignore them get no connection): " + hosts +
			"; plus a loopback of this session's own, where servers you start are reachable by this session's commands only."
	case mode == "allowlist":
		return "Network: none; the allowlist needs a network namespace this host cannot give (root with CAP_SYS_ADMIN), so nothing is reachable, not even loopback."
	case netns:
		return "Network: none (names do not resolve; package downloads fail), except a loopback of this session's own: servers you start on 127.0.0.1 are reachable by this session's commands only."
	}
	return "Network: none, not even loopback (this host cannot give the session a network namespace): servers cannot listen on 127.0.0.1, and package downloads fail."
}
