// Package netproxy is stockade's egress proxy for network = "allowlist": an
// HTTP proxy (absolute-form requests for http://, CONNECT for everything
// else) that lets a command reach the hosts of an Allowlist by name, and
// nothing else.
//
// It runs in the stockade process, outside the sandbox. It resolves names
// itself and dials the address it checked (the command resolves nothing), it
// refuses names that resolve to loopback, private or link-local addresses
// unless an entry names the address, and it does not look inside TLS beyond
// the server name of the ClientHello, which must be the name the CONNECT
// asked for. Every connection, allowed or refused, is one Event.
package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Event is one connection through the proxy.
type Event struct {
	Time    time.Time `json:"time"`
	Host    string    `json:"host"` // as the client asked for it
	Port    int       `json:"port"`
	Addr    string    `json:"addr,omitempty"` // the address dialled
	Allowed bool      `json:"allowed"`
	Rule    string    `json:"rule,omitempty"`   // the allow entry that let it through
	Reason  string    `json:"reason,omitempty"` // why it was refused
	Hint    string    `json:"hint,omitempty"`   // what would allow it
	Up      int64     `json:"bytes_up"`         // client to server
	Down    int64     `json:"bytes_down"`       // server to client
	// Challenged: refused with a request for a credential (see
	// refuseUnlisted); the client's retry with one is an event of its own.
	Challenged bool `json:"challenged,omitempty"`
	// Call is "listen" for a server socket the sandbox refused (see
	// Listen); "" for a connection.
	Call string `json:"call,omitempty"`
	// Pgid is the process group of the command that made the call, where
	// the connect supervisor saw it (0: not known; the proxy sees
	// connections, not processes).
	Pgid int `json:"-"`

	unlisted bool // refused for want of an entry, which a grant may hold
}

// Proxy serves connections on listeners; one Proxy may serve many sessions,
// each with its own listener and record function.
type Proxy struct {
	allow *Allowlist
	// Resolve looks a name up; the default is the host's resolver. Tests map
	// test names to their own servers here.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to a checked address; the default is a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Log gets one line per connection (default slog.Default()).
	Log *slog.Logger
	// Timeout bounds reading the request, resolving and dialling (default 30s).
	Timeout time.Duration
	// Suggest, if set, says what would allow a host the allowlist and the
	// connection's grant lack (a policy rule that grants it to some
	// commands); "" leaves the proxy's own hint.
	Suggest func(host string, port int) string
	// Granted describes, one entry each, the hosts that policy rules grant
	// to some commands only, for the model's description of the network.
	Granted []string
}

// New returns a proxy that allows what allow allows.
func New(allow *Allowlist) *Proxy {
	return &Proxy{allow: allow}
}

// Allowlist is what the proxy allows.
func (p *Proxy) Allowlist() *Allowlist { return p.allow }

// Serve accepts connections on ln until it is closed, and serves each; a
// connection with a credential of grants (nil: none) may reach that grant's
// hosts too. record (if not nil) gets every Event. Connections already
// accepted go on when ln is closed.
func (p *Proxy) Serve(ln net.Listener, grants *Grants, record func(Event)) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		go p.ServeConn(c, grants, record)
	}
}

// bufSize holds the largest TLS record, so a whole ClientHello can be peeked.
const bufSize = 5 + 16384 + 2048

var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, bufSize) }}

// ServeConn serves one client connection and closes it.
func (p *Proxy) ServeConn(c net.Conn, grants *Grants, record func(Event)) {
	defer c.Close()
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(c)
	defer func() { br.Reset(nil); readers.Put(br) }()

	c.SetReadDeadline(time.Now().Add(timeout))
	hostHeader, headerOK := peekHostHeader(br)
	req, err := http.ReadRequest(br)
	if err != nil {
		return // not HTTP: nothing to record
	}
	ev := Event{Time: time.Now()}
	// A refusal is recorded before it is answered: a client that exits on
	// the answer must find it in the result's notes.
	recorded := false
	recordNow := func() {
		if !recorded {
			recorded = true
			p.finish(ev, record)
		}
	}
	defer recordNow()
	deny := func(status int) {
		recordNow()
		refuse(c, status, ev.Reason)
	}
	gr, _ := grants.of(req.Header)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	if req.Method == http.MethodConnect {
		host, port, err := splitHostPort(req.RequestURI, 443)
		ev.Host, ev.Port = host, port
		if err != nil {
			ev.Reason = err.Error()
			deny(http.StatusBadRequest)
			return
		}
		up, err := p.connect(ctx, &ev, gr)
		if err != nil {
			refuseUnlisted(c, &ev, req.Header, grants, recordNow)
			return
		}
		defer up.Close()
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		c.SetReadDeadline(time.Time{})
		// The server's side flows at once (SSH and SMTP servers speak
		// first); nothing of the client's goes up before its first bytes
		// are checked: a TLS client says which server it wants in the
		// ClientHello, and it must be the name that was allowed (no
		// domain fronting).
		ev.Up, ev.Down, ev.Reason = pipe(c, br, up, func() string {
			sni, isTLS, err := peekServerName(br)
			switch {
			case err != nil && errors.Is(err, io.EOF):
				return ""
			case err != nil:
				return "CONNECT: " + err.Error()
			case isTLS && sni != "" && !strings.EqualFold(strings.TrimSuffix(sni, "."), host):
				return fmt.Sprintf("TLS server name %q is not the host %q the CONNECT asked for", sni, host)
			}
			return ""
		})
		ev.Allowed = ev.Reason == ""
		return
	}

	if req.URL.Scheme != "http" || req.URL.Host == "" {
		ev.Host = req.Host
		ev.Reason = "not a proxy request (want http://host/... or CONNECT host:port)"
		deny(http.StatusBadRequest)
		return
	}
	host, port, err := splitHostPort(req.URL.Host, 80)
	ev.Host, ev.Port = host, port
	if err != nil {
		ev.Reason = err.Error()
		deny(http.StatusBadRequest)
		return
	}
	if !headerOK {
		ev.Reason = "the request's header is too long"
		deny(http.StatusRequestHeaderFieldsTooLarge)
		return
	}
	if hostHeader != "" {
		if h, _, err := splitHostPort(hostHeader, port); err != nil || h != host {
			ev.Reason = fmt.Sprintf("the Host header %q is not the host %q of the request", hostHeader, host)
			deny(http.StatusForbidden)
			return
		}
	}
	up, err := p.connect(ctx, &ev, gr)
	if err != nil {
		refuseUnlisted(c, &ev, req.Header, grants, recordNow)
		return
	}
	defer up.Close()
	// One request per connection: the upstream closes after its response.
	req.Header.Del("Proxy-Connection")
	req.Header.Del("Proxy-Authorization")
	req.Close = true
	c.SetReadDeadline(time.Time{})
	cw := &countWriter{w: up}
	if err := req.Write(cw); err != nil {
		ev.Up = cw.n
		return
	}
	ev.Up = cw.n
	n, _ := io.Copy(c, up)
	ev.Down = n
}

// connect decides on ev's host and port, with the connection's grant (the
// zero grant: none), and dials the address it checked. A refusal is in
// ev.Reason.
func (p *Proxy) connect(ctx context.Context, ev *Event, gr grant) (net.Conn, error) {
	target, rule, reason, hint, unlisted := p.decide(ctx, ev.Host, ev.Port, gr)
	if reason != "" {
		ev.Reason, ev.Hint, ev.unlisted = reason, hint, unlisted
		return nil, errors.New(reason)
	}
	ev.Rule, ev.Addr = rule, target.String()
	dial := p.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	up, err := dial(ctx, "tcp", target.String())
	if err != nil {
		ev.Reason = fmt.Sprintf("connecting to %s: %v", target, err)
		return nil, err
	}
	ev.Allowed = true
	return up, nil
}

// decide checks host and port against the allowlist and the connection's
// grant, resolves the name, and returns the address to dial and the entry
// that allows it, or why not and what would allow it.
func (p *Proxy) decide(ctx context.Context, host string, port int, gr grant) (target netip.AddrPort, rule, reason, hint string, unlisted bool) {
	named := func(ip netip.Addr) (string, bool) {
		if rule, ok := p.allow.addr(ip); ok {
			return rule, true
		}
		if rule, ok := gr.allow.addr(ip); ok {
			return rule + " (granted by " + gr.by + ")", true
		}
		return "", false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		if rule, ok := named(ip); ok {
			return netip.AddrPortFrom(ip, uint16(port)), rule, "", "", false
		}
		return target, "", fmt.Sprintf("%s is an IP address, and no allow entry names it", host),
			fmt.Sprintf("connect by host name, or add %q to [network] allow", ip.String()), true
	}
	rule, ok := p.allow.host(host, port)
	if !ok {
		if rule, ok = gr.allow.host(host, port); ok {
			rule += " (granted by " + gr.by + ")"
		}
	}
	if !ok {
		hint := fmt.Sprintf("to allow it, add %q to [network] allow in the policy, or pass --allow-host %s", host, host)
		if p.Suggest != nil {
			if s := p.Suggest(host, port); s != "" {
				hint = s
			}
		}
		return target, "", fmt.Sprintf("%s:%d is not on the allowlist", host, port), hint, true
	}
	resolve := p.Resolve
	if resolve == nil {
		resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := resolve(ctx, host)
	if err != nil {
		return target, "", fmt.Sprintf("%s does not resolve: %v", host, err), "", false
	}
	var refused []string
	for _, ip := range addrs {
		ip = ip.Unmap()
		kind := nonPublic(ip)
		if kind == "" {
			return netip.AddrPortFrom(ip, uint16(port)), rule, "", "", false
		}
		if entry, ok := named(ip); ok {
			return netip.AddrPortFrom(ip, uint16(port)), rule + " + " + entry, "", "", false
		}
		refused = append(refused, fmt.Sprintf("%s (%s)", ip, kind))
	}
	if len(refused) == 0 {
		return target, "", fmt.Sprintf("%s has no address", host), "", false
	}
	first, _, _ := strings.Cut(refused[0], " ")
	return target, "", fmt.Sprintf("%s resolves to %s, which no allow entry names", host, strings.Join(refused, ", ")),
		fmt.Sprintf("if %s is meant to lead there, add the address %q to [network] allow as well", host, first), false
}

func (p *Proxy) finish(ev Event, record func(Event)) {
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	attrs := []any{"host", ev.Host, "port", ev.Port, "allowed", ev.Allowed, "bytes_up", ev.Up, "bytes_down", ev.Down}
	if ev.Rule != "" {
		attrs = append(attrs, "rule", ev.Rule)
	}
	if ev.Addr != "" {
		attrs = append(attrs, "addr", ev.Addr)
	}
	if ev.Reason != "" {
		attrs = append(attrs, "reason", ev.Reason)
	}
	log.Info("egress", attrs...)
	if record != nil {
		record(ev)
	}
}

// peekHostHeader reads the Host header of the request br holds, without
// consuming it (http.ReadRequest drops it for absolute-form requests, whose
// URL names the host). ok is false when the header does not fit the buffer.
func peekHostHeader(br *bufio.Reader) (host string, ok bool) {
	if _, err := br.Peek(1); err != nil {
		return "", true // nothing to read: ReadRequest will fail
	}
	for {
		b, _ := br.Peek(br.Buffered())
		if end := bytes.Index(b, []byte("\r\n\r\n")); end >= 0 {
			tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(b[:end+4])))
			tp.ReadLine()
			h, err := tp.ReadMIMEHeader()
			if err != nil {
				return "", true
			}
			return h.Get("Host"), true
		}
		if br.Buffered() >= br.Size() {
			return "", false
		}
		if _, err := br.Peek(br.Buffered() + 1); err != nil {
			return "", true
		}
	}
}

// refuseUnlisted answers a request that no entry allows. A client that
// sent no credential while a grant of this listener is live is asked for one
// (407, a Basic challenge): git, and other users of libcurl's "any" proxy
// authentication, send the credential of their proxy URL only when asked.
// recordNow records ev before the answer goes out.
func refuseUnlisted(c net.Conn, ev *Event, h http.Header, grants *Grants, recordNow func()) {
	if !ev.unlisted || h.Get("Proxy-Authorization") != "" || grants.Live() == 0 {
		recordNow()
		refuse(c, http.StatusForbidden, ev.Reason)
		return
	}
	ev.Challenged = true
	recordNow()
	body := "stockade: " + ev.Reason + " (a command granted it sends its credential)\n"
	fmt.Fprintf(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"stockade\"\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
}

// refuse answers a request the proxy will not carry out.
func refuse(c net.Conn, status int, reason string) {
	body := "stockade: " + reason + "\n"
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}

// splitHostPort splits "host:port" (or "host", with the default port) and
// lowers the host.
func splitHostPort(s string, defPort int) (string, int, error) {
	host, ps, err := net.SplitHostPort(s)
	if err != nil {
		if strings.Contains(err.Error(), "missing port") {
			host, ps = strings.Trim(s, "[]"), strconv.Itoa(defPort)
		} else {
			return "", 0, fmt.Errorf("bad host %q", s)
		}
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 || host == "" {
		return "", 0, fmt.Errorf("bad host %q", s)
	}
	return strings.ToLower(strings.TrimSuffix(host, ".")), port, nil
}

// pipe copies both ways until both directions end, and returns the bytes
// each way. Nothing goes up until check, called on the up side, says it may
// ("" ); otherwise both connections are cut and pipe returns why. br holds
// what the client sent after its request (it may have sent its first bytes
// with it): that goes up first, and then the copies run between the two
// connections themselves, which for two TCP connections is splice(2) in the
// kernel, never a copy through this process (io.Copy hands the copy to
// TCPConn.ReadFrom, which splices when the reader is a TCPConn).
func pipe(client net.Conn, br *bufio.Reader, up net.Conn, check func() string) (upN, downN int64, refused string) {
	var wg sync.WaitGroup
	wg.Go(func() {
		defer closeWrite(up)
		if refused = check(); refused != "" {
			client.Close()
			up.Close()
			return
		}
		if held, _ := br.Peek(br.Buffered()); len(held) > 0 {
			n, err := up.Write(held)
			upN += int64(n)
			br.Discard(n)
			if err != nil {
				return
			}
		}
		n, _ := io.Copy(up, client)
		upN += n
	})
	downN, _ = io.Copy(client, up)
	closeWrite(client)
	wg.Wait()
	return upN, downN, refused
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	} else {
		c.Close()
	}
}

// countWriter counts what a plain request writes upstream. Its ReadFrom
// hands a request body to the connection's own (TCPConn.ReadFrom reads 32
// KiB at a time, or splices from a socket); without it, the bufio.Writer
// that http.Request.Write puts in front would write the body 4 KiB at a time.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countWriter) ReadFrom(r io.Reader) (int64, error) {
	buf := bodyBufs.Get().(*[]byte)
	defer bodyBufs.Put(buf)
	n, err := io.CopyBuffer(struct{ io.Writer }{c.w}, r, *buf)
	c.n += n
	return n, err
}

// bodyBufs are the buffers request bodies go up through (256 KiB: fewer,
// larger reads and writes than TCPConn.ReadFrom's 32 KiB).
var bodyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}
