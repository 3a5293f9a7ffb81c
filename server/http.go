package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	Addr  string // host:port; a bare ":port" binds to loopback
	Token string // every request must carry "Authorization: Bearer <Token>"
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed besides
	// loopback ones; a request with any other Origin is refused (DNS rebinding).
	AllowedOrigins []string
	// Ready is called with the address actually listened on.
	Ready func(addr string)
}

// MaxRequestBody bounds an HTTP request body: the largest command (128 KiB)
// with every character escaped in JSON, and room to spare.
const MaxRequestBody = 4 << 20

// ListenAddr returns addr with a loopback host when it names none.
func ListenAddr(addr string) string {
	if strings.HasPrefix(addr, ":") {
		return "127.0.0.1" + addr
	}
	if !strings.Contains(addr, ":") {
		return "127.0.0.1:" + addr
	}
	return addr
}

// ServeHTTP serves streamable HTTP at /mcp until ctx ends; then every session is closed.
func (s *Server) ServeHTTP(ctx context.Context, opts HTTPOptions) error {
	if opts.Token == "" {
		return errors.New("an HTTP server needs a token")
	}
	ln, err := net.Listen("tcp", ListenAddr(opts.Addr))
	if err != nil {
		return err
	}
	streamable := mcpserver.NewStreamableHTTPServer(s.mcp, mcpserver.WithEndpointPath("/mcp"))
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.guard(streamable, opts, isLoopback(ln.Addr())))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	go func() {
		tick := time.NewTicker(min(time.Minute, s.opts.IdleTimeout/2))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				srv.Shutdown(shutdown)
				cancel()
				return
			case <-tick.C:
				s.closeIdle()
			}
		}
	}()
	err = srv.Serve(ln)
	s.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// guard refuses requests without the bearer token, from foreign origins, or (on
// a loopback listener) addressed to a host name that is not loopback, which is
// what a DNS-rebinding page would send.
func (s *Server) guard(next http.Handler, opts HTTPOptions, loopback bool) http.Handler {
	want := []byte("Bearer " + opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, opts.AllowedOrigins) {
			http.Error(w, "stockade: origin not allowed", http.StatusForbidden)
			return
		}
		if loopback && !loopbackHost(r.Host) {
			http.Error(w, "stockade: host not allowed", http.StatusForbidden)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="stockade"`)
			http.Error(w, "stockade: a valid bearer token is required", http.StatusUnauthorized)
			return
		}
		// A request body is read whole by the MCP handler: bound it first.
		if r.ContentLength > MaxRequestBody {
			http.Error(w, "stockade: request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBody)
		next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete {
			if id := r.Header.Get("Mcp-Session-Id"); id != "" {
				s.closeSession(id)
			}
		}
	})
}

func originAllowed(origin string, allowed []string) bool {
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && loopbackHost(u.Host)
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
