package netproxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"testing"
	"time"
)

// source is a TCP server that writes size bytes to each connection, or
// echoes one byte when size is 0.
func source(b *testing.B, size int64) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	buf := make([]byte, 1<<20)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if size == 0 {
					one := make([]byte, 1)
					if _, err := c.Read(one); err == nil {
						c.Write(one)
					}
					return
				}
				for left := size; left > 0; {
					n, err := c.Write(buf[:min(left, int64(len(buf)))])
					if err != nil {
						return
					}
					left -= int64(n)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// readSizes are the clients of the throughput benchmarks: one that reads
// 64 KiB at a time (node's sockets; Go's io.Copy reads 32 KiB) and one that
// reads up to 1 MiB. How much a client takes per read decides much of what
// a stream costs on loopback, the proxy's side included (each read opens
// the window again and sends an ACK), so both are shown.
var readSizes = []int{64 << 10, 1 << 20}

// BenchmarkThroughput: one stream of 256 MiB through a CONNECT tunnel.
func BenchmarkThroughput(b *testing.B) {
	const size = 256 << 20
	// The proxy's line per connection would land among the results.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	up := source(b, size)
	w := newWorld(&testing.T{}, "pkg.test", "127.0.0.1")
	_, p, _ := net.SplitHostPort(up)
	for _, rs := range readSizes {
		b.Run(fmt.Sprintf("read=%dKiB", rs>>10), func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				c, br, status := rawConnectB(b, w, "pkg.test:"+p)
				if status != 200 {
					b.Fatalf("CONNECT: %d", status)
				}
				n := drain(br, rs)
				c.Close()
				if n != size {
					b.Fatalf("read %d of %d bytes", n, size)
				}
			}
		})
	}
}

// BenchmarkThroughputDirect is the same stream without the proxy, for scale.
func BenchmarkThroughputDirect(b *testing.B) {
	const size = 256 << 20
	up := source(b, size)
	for _, rs := range readSizes {
		b.Run(fmt.Sprintf("read=%dKiB", rs>>10), func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				c, err := net.Dial("tcp", up)
				if err != nil {
					b.Fatal(err)
				}
				n := drain(c, rs)
				c.Close()
				if n != size {
					b.Fatalf("read %d of %d bytes", n, size)
				}
			}
		})
	}
}

// drain reads r to its end in reads of up to size bytes, as a client with a
// buffer of that size does, and returns how many bytes it read. (io.Copy to
// io.Discard would read 8 KiB at a time whatever buffer it is given:
// io.Discard's ReadFrom uses its own.)
func drain(r io.Reader, size int) int64 {
	buf := make([]byte, size)
	var n int64
	for {
		m, err := r.Read(buf)
		n += int64(m)
		if err != nil {
			return n
		}
	}
}

// BenchmarkAddedLatency: connect and a one-byte round trip, direct and
// through the proxy; reports the p50 of each and the difference.
func BenchmarkAddedLatency(b *testing.B) {
	up := source(b, 0)
	w := newWorld(&testing.T{}, "pkg.test", "127.0.0.1")
	_, p, _ := net.SplitHostPort(up)
	var direct, proxied []time.Duration
	roundTrip := func(c net.Conn, r io.Reader) {
		c.Write([]byte{1})
		one := make([]byte, 1)
		if _, err := io.ReadFull(r, one); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	for b.Loop() {
		t0 := time.Now()
		c, err := net.Dial("tcp", up)
		if err != nil {
			b.Fatal(err)
		}
		roundTrip(c, c)
		direct = append(direct, time.Since(t0))
		t0 = time.Now()
		pc, br, status := rawConnectB(b, w, "pkg.test:"+p)
		if status != 200 {
			b.Fatalf("CONNECT: %d", status)
		}
		roundTrip(pc, br)
		proxied = append(proxied, time.Since(t0))
	}
	p50 := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	dp, pp := p50(direct), p50(proxied)
	b.ReportMetric(float64(dp.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(pp.Microseconds()), "proxied-p50-µs")
	b.ReportMetric(float64((pp - dp).Microseconds()), "added-p50-µs")
}

func rawConnectB(b *testing.B, w *world, target string) (net.Conn, io.Reader, int) {
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	// The reply is 39 bytes: read exactly it, so what follows is the tunnel's.
	const ok = "HTTP/1.1 200 Connection established\r\n\r\n"
	buf := make([]byte, len(ok))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != ok {
		return c, c, 0
	}
	return c, c, 200
}

// BenchmarkPlainUpload: a plain HTTP request with a 64 MiB body through the
// proxy (what the proxy writes upstream; a response of a few bytes back).
func BenchmarkPlainUpload(b *testing.B) {
	const size = 64 << 20
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReaderSize(c, 1<<20)
				for line := ""; line != "\r\n"; {
					if line, err = br.ReadString('\n'); err != nil {
						return
					}
				}
				drain(io.LimitReader(br, size), 1<<20)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
			}()
		}
	}()
	w := newWorld(&testing.T{}, "pkg.test", "127.0.0.1")
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	body := make([]byte, 1<<20)
	b.SetBytes(size)
	for b.Loop() {
		c, err := net.Dial("tcp", w.addr)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(c, "POST http://pkg.test:%s/ HTTP/1.1\r\nHost: pkg.test:%s\r\nContent-Length: %d\r\n\r\n", p, p, size)
		for left := size; left > 0; left -= len(body) {
			if _, err := c.Write(body); err != nil {
				b.Fatal(err)
			}
		}
		if reply, _ := io.ReadAll(c); !bytes.HasSuffix(reply, []byte("ok")) {
			b.Fatalf("reply %q", reply)
		}
		c.Close()
	}
}
