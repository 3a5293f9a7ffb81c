package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer for a logger written from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// counter is a TCP server on loopback that reads what a connection sends
// (until the client closes its side, or, with header set, until the end of
// an HTTP request and the body its Content-Length gives), then writes down
// bytes and closes; it sends on got how many bytes it read.
func counter(t *testing.T, down int, header bool) (port int, got chan int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got = make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var n int64
		if header {
			br := bufio.NewReader(c)
			length := 0
			for {
				line, err := br.ReadString('\n')
				n += int64(len(line))
				if err != nil || line == "\r\n" {
					break
				}
				if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length: "); ok {
					length, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			m, _ := io.CopyN(io.Discard, br, int64(length))
			n += m
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", down)
		} else {
			n, _ = io.Copy(io.Discard, c)
		}
		got <- n
		c.Write(bytes.Repeat([]byte{'d'}, down))
	}()
	return ln.Addr().(*net.TCPAddr).Port, got
}

// TestLogLine: the log has one line per connection with the host and port
// asked for, the bytes each way as the client and the server counted them
// (megabytes of them, which the proxy splices in the kernel), and the rule
// that allowed it: through a CONNECT tunnel, and a plain HTTP request with a
// body.
func TestLogLine(t *testing.T) {
	a, err := ParseAllowlist([]string{"pkg.test", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	p := New(a)
	p.Resolve = func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	log := &syncBuffer{}
	p.Log = slog.New(slog.NewTextHandler(log, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); p.Serve(ln, nil, nil) }()
	t.Cleanup(func() { ln.Close(); <-done })

	// lineFor waits for the log's line of the connection to port.
	lineFor := func(port int) string {
		t.Helper()
		for range 500 {
			for l := range strings.Lines(log.String()) {
				if strings.Contains(l, "port="+strconv.Itoa(port)+" ") {
					return l
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("no log line for port %d:\n%s", port, log.String())
		return ""
	}
	const upN, downN = 3<<20 + 17, 5<<20 + 3

	port, got := counter(t, downN, false)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT pkg.test:%d HTTP/1.1\r\nHost: pkg.test:%d\r\n\r\n", port, port)
	br := bufio.NewReader(c)
	if status, _ := br.ReadString('\n'); !strings.Contains(status, " 200 ") {
		t.Fatalf("CONNECT: %q", status)
	}
	br.ReadString('\n')
	go func() {
		c.Write(bytes.Repeat([]byte{'u'}, upN))
		c.(*net.TCPConn).CloseWrite()
	}()
	down, _ := io.Copy(io.Discard, br)
	if up := <-got; up != upN || down != downN {
		t.Fatalf("the tunnel carried %d bytes up and %d down, want %d and %d", up, down, upN, downN)
	}
	want := fmt.Sprintf(`msg=egress host=pkg.test port=%d allowed=true bytes_up=%d bytes_down=%d rule="pkg.test + 127.0.0.1" addr=127.0.0.1:%d`, port, upN, downN, port)
	if l := lineFor(port); !strings.Contains(l, want) {
		t.Errorf("CONNECT: log line\n%s\nwant it to hold\n%s", l, want)
	}

	port, got = counter(t, downN, true)
	c, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST http://pkg.test:%d/upload HTTP/1.1\r\nHost: pkg.test:%d\r\nContent-Length: %d\r\n\r\n", port, port, upN)
	c.Write(bytes.Repeat([]byte{'u'}, upN))
	down, _ = io.Copy(io.Discard, c)
	up := <-got
	if up < upN || down < downN {
		t.Fatalf("the request carried %d bytes up and %d down, want at least %d and %d", up, down, upN, downN)
	}
	want = fmt.Sprintf(`msg=egress host=pkg.test port=%d allowed=true bytes_up=%d bytes_down=%d rule="pkg.test + 127.0.0.1" addr=127.0.0.1:%d`, port, up, down, port)
	if l := lineFor(port); !strings.Contains(l, want) {
		t.Errorf("plain HTTP: log line\n%s\nwant it to hold\n%s", l, want)
	}
}
