//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stockade/stockade/hostfacts"
	"golang.org/x/sys/unix"
)

// envTCPProbe makes a copy of the test binary try what a command under
// Spec.ProxyPortOnly may and may not do with TCP, and print one line each.
const envTCPProbe = "STOCKADE_TEST_TCP_PROBE" // "PROXY OTHER ELSEWHERE"

func init() {
	if os.Getenv(envTCPProbe) != "" {
		os.Exit(tcpProbe())
	}
}

// tcpProbe connects to the proxy, to another server, and to a server at the
// proxy's port on another address (elsewhere); binds; sends to the other
// server with MSG_FASTOPEN; listens on a socket it never bound; and opens a
// UDP socket.
func tcpProbe() int {
	f := strings.Fields(os.Getenv(envTCPProbe))
	proxy, other, elsewhere := netip.MustParseAddrPort(f[0]), netip.MustParseAddrPort(f[1]), netip.MustParseAddrPort(f[2])
	sa := func(a netip.AddrPort) *unix.SockaddrInet4 {
		return &unix.SockaddrInet4{Addr: a.Addr().As4(), Port: int(a.Port())}
	}
	tcp := func() int {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			fmt.Println("socket:", err)
			os.Exit(1)
		}
		return fd
	}
	try := func(name string, f func(fd int) error) {
		fd := tcp()
		fmt.Printf("%s: %v\n", name, f(fd))
		unix.Close(fd)
	}
	try("proxy", func(fd int) error { return unix.Connect(fd, sa(proxy)) })
	try("other", func(fd int) error { return unix.Connect(fd, sa(other)) })
	try("elsewhere", func(fd int) error { return unix.Connect(fd, sa(elsewhere)) })
	try("bind", func(fd int) error { return unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}) })
	try("fastopen", func(fd int) error { return unix.Sendto(fd, []byte("x"), unix.MSG_FASTOPEN, sa(other)) })
	try("listen", func(fd int) error { return unix.Listen(fd, 1) })
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	fmt.Printf("udp: %v\n", err)
	if err == nil {
		unix.Close(fd)
	}
	return 0
}

// TestProxyPortOnly: where neither a network namespace nor the connect
// supervisor can hold the allowlist, Landlock's port rule lets a command
// connect to the proxy's port and to no other; it cannot bind, send with
// MSG_FASTOPEN, or open a UDP socket. The layer is partial, and the report
// says so: the proxy's port on another address is reached too, and a socket
// the command never bound can listen (on a port the kernel picks). Without
// the sandbox, all of it works.
func TestProxyPortOnly(t *testing.T) {
	requireABI(t, hostfacts.ABITCP)
	proxy, other := nameServer(t, "proxy"), nameServer(t, "other")
	ln, err := net.Listen("tcp4", netip.AddrPortFrom(netip.MustParseAddr("127.0.0.2"), proxy.Port()).String())
	if err != nil {
		t.Skipf("no server at the proxy's port on 127.0.0.2: %v", err)
	}
	defer ln.Close()
	go closeEach(ln)
	elsewhere := ln.Addr().String()
	probe := func(spec Spec) string {
		t.Helper()
		out, err := startProbe(t, spec, envTCPProbe+"="+proxy.String()+" "+other.String()+" "+elsewhere)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out
	}
	control := probe(Spec{FS: FSOff})
	for _, want := range []string{"proxy: <nil>", "other: <nil>", "elsewhere: <nil>", "bind: <nil>", "fastopen: <nil>", "listen: <nil>", "udp: <nil>"} {
		if !strings.Contains(control, want) {
			t.Fatalf("without the sandbox, %q is missing: it proves nothing\n%s", want, control)
		}
	}
	spec := Spec{FS: FSOff, LandlockABI: kernelABI(), NetworkOff: true, UnixSocketsOff: true, Seccomp: true, ProxyPortOnly: true, ProxyTo: proxy.String()}
	if err := Validate(spec); err != nil {
		t.Fatal(err)
	}
	got := probe(spec)
	for _, want := range []string{"proxy: <nil>", "other: permission denied", "elsewhere: <nil>", "bind: permission denied", "fastopen: operation not permitted",
		"udp: operation not permitted", "listen: <nil>"} {
		if !strings.Contains(got, want) {
			t.Errorf("under the proxy's port rule, %q is missing:\n%s", want, got)
		}
	}

	spec.ProxyTo = ""
	cmd := exec.Command("/bin/true")
	if _, release, err := Start(spec, cmd, nil); err == nil {
		cmd.Wait()
		release()
		t.Errorf("a port rule without the proxy's address was applied")
	}
}
