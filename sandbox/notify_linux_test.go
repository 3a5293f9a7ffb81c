//go:build linux

package sandbox

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stockade/stockade/hostfacts"
	"golang.org/x/sys/unix"
)

// The race: envConnectRace makes a copy of the test binary connect, again
// and again, with a sockaddr that another thread flips between the proxy's
// address and a forbidden one in a tight loop, and print which server each
// connect reached.
const (
	envConnectRace = "STOCKADE_TEST_CONNECT_RACE" // "PROXY FORBIDDEN N"
	raceRounds     = 3000
)

func init() {
	if os.Getenv(envConnectRace) != "" {
		os.Exit(connectRace())
	}
	if os.Getenv(envConnectUnix) != "" {
		os.Exit(connectUnix())
	}
	if os.Getenv(envConnectLoop) != "" {
		os.Exit(connectLoop())
	}
	if os.Getenv(envServerSockets) != "" {
		os.Exit(serverSockets())
	}
}

// connectRace is the racing command. It prints "proxy=P forbidden=F
// refused=R".
func connectRace() int {
	f := strings.Fields(os.Getenv(envConnectRace))
	proxy, forbidden := sockaddr(netip.MustParseAddrPort(f[0])), sockaddr(netip.MustParseAddrPort(f[1]))
	n, _ := strconv.Atoi(f[2])
	var buf [2]uint64 // a sockaddr_in: family, port and address in the first word
	buf[0] = proxy
	var stop atomic.Bool
	go func() {
		runtime.LockOSThread()
		p := (*uint64)(unsafe.Pointer(&buf[0]))
		for !stop.Load() {
			atomic.StoreUint64(p, forbidden)
			atomic.StoreUint64(p, proxy)
		}
	}()
	counts := map[string]int{}
	line := make([]byte, 16)
	for range n {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			fmt.Println("socket:", err)
			return 1
		}
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), 16)
		if e != 0 {
			counts["refused"]++
		} else if k, _ := unix.Read(fd, line); k > 0 {
			counts[strings.TrimSpace(string(line[:k]))]++
		}
		unix.Close(fd)
	}
	stop.Store(true)
	fmt.Printf("proxy=%d forbidden=%d refused=%d\n", counts["proxy"], counts["forbidden"], counts["refused"])
	return 0
}

// sockaddr is the first word of the sockaddr_in of a, as this machine stores it.
func sockaddr(a netip.AddrPort) uint64 {
	var b [8]byte
	binary.NativeEndian.PutUint16(b[0:], unix.AF_INET)
	binary.BigEndian.PutUint16(b[2:], a.Port())
	copy(b[4:], a.Addr().AsSlice())
	return binary.NativeEndian.Uint64(b[:])
}

// nameServer accepts connections on loopback and writes its name to each.
func nameServer(t *testing.T, name string) netip.AddrPort {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(name + "\n"))
			c.Close()
		}
	}()
	return netip.MustParseAddrPort(ln.Addr().String())
}

func requireSupervisor(t testing.TB) {
	t.Helper()
	if h := hostfacts.Detect(); !h.SeccompNotify {
		t.Skip(h.SeccompNotifyWhy())
	}
}

// raceCounts runs the race under spec, with supervise answering the
// filter's notifications (nil: the sandbox's own supervisor, through Start);
// with no spec, outside any sandbox.
func raceCounts(t *testing.T, spec *Spec, proxy, forbidden netip.AddrPort, supervise func(listener *os.File) func()) map[string]int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envConnectRace+"="+fmt.Sprint(proxy, " ", forbidden, " ", raceRounds))
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	release := func() {}
	switch {
	case spec == nil:
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	case supervise == nil:
		_, rel, err := Start(*spec, cmd, nil)
		if err != nil {
			t.Fatal(err)
		}
		release = rel
	default:
		// Start's steps, with another supervisor.
		done := make(chan Applied)
		stop := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			a, err := startLocked(*spec, cmd)
			if err != nil {
				t.Error(err)
			}
			done <- a
			<-stop
		}()
		a := <-done
		if a.connects == nil {
			close(stop)
			t.Fatal("no listener")
		}
		end := supervise(a.connects)
		release = func() { end(); close(stop) }
	}
	err := cmd.Wait()
	release()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	counts := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		for _, f := range strings.Fields(sc.Text()) {
			if k, v, ok := strings.Cut(f, "="); ok {
				counts[k], _ = strconv.Atoi(v)
			}
		}
	}
	if counts["proxy"]+counts["forbidden"]+counts["refused"] != raceRounds {
		t.Fatalf("the race did not run: %s", out)
	}
	return counts
}

// continueSupervisor is the check this package's supervisor must not be:
// it reads the address, and lets the call through when it is the proxy's
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE), so the kernel reads it again.
func continueSupervisor(proxy netip.AddrPort) func(*os.File) func() {
	return func(f *os.File) func() {
		fd := int(f.Fd())
		done := make(chan struct{})
		var stop atomic.Bool
		go func() {
			defer close(done)
			for !stop.Load() {
				fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
				if k, _ := unix.Poll(fds, 50); k <= 0 {
					continue
				}
				var n seccompNotif
				if err := ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n)); err != nil {
					if err == unix.EINTR || err == unix.ENOENT {
						continue
					}
					return
				}
				resp := seccompNotifResp{id: n.id, error: -int32(unix.EACCES)}
				addr := make([]byte, 16)
				if n.args[2] == 16 && readMem(int(n.pid), uintptr(n.args[1]), addr) == nil {
					if a, ok := inetAddr(addr); ok && a == proxy {
						resp = seccompNotifResp{id: n.id, flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
					}
				}
				ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
			}
		}()
		return func() { stop.Store(true); <-done; f.Close() }
	}
}

// TestConnectSupervisorRace: one thread connects to the proxy while another
// flips the address to a forbidden server. Without a filter, and with a
// supervisor that checks the address and lets the call through, the command
// reaches the forbidden server; with the sandbox's supervisor, which
// connects itself with the address it read, it never does, and its connects
// to the proxy work. Landlock is left out, so the supervisor stands alone.
func TestConnectSupervisorRace(t *testing.T) {
	requireSupervisor(t)
	if runtime.NumCPU() < 2 {
		// The kernel matrix's guests have one: the flipping thread then
		// rarely runs inside the window, and the controls prove nothing.
		t.Skip("the race needs two CPUs running its threads at once; this machine has one")
	}
	proxy, forbidden := nameServer(t, "proxy"), nameServer(t, "forbidden")
	spec := Spec{FS: FSOff, NetworkOff: true, UnixSocketsOff: true, Seccomp: true, Supervised: true, ProxyTo: proxy.String()}

	if c := raceCounts(t, nil, proxy, forbidden, nil); c["forbidden"] == 0 {
		t.Fatalf("without a filter the race never reached the forbidden server (%v): it proves nothing", c)
	}
	if c := raceCounts(t, &spec, proxy, forbidden, continueSupervisor(proxy)); c["forbidden"] == 0 || c["proxy"] == 0 {
		t.Fatalf("with a supervisor that lets the call through, the race did not reach both servers (%v): it proves nothing", c)
	} else {
		t.Logf("check-then-continue: %v", c)
	}
	c := raceCounts(t, &spec, proxy, forbidden, nil)
	if c["forbidden"] != 0 {
		t.Errorf("ESCAPE: the race reached the forbidden server %d times in %d through the sandbox's supervisor (%v)", c["forbidden"], raceRounds, c)
	}
	if c["proxy"] == 0 {
		t.Errorf("no connect to the proxy worked (%v)", c)
	}
	t.Logf("the sandbox's supervisor: %v", c)
}

// envConnectUnix makes a copy of the test binary connect a unix socket to
// the path it names and print the error.
const envConnectUnix = "STOCKADE_TEST_CONNECT_UNIX"

func connectUnix() int {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		err = unix.Connect(fd, &unix.SockaddrUnix{Name: os.Getenv(envConnectUnix)})
	}
	fmt.Printf("connect: %v\n", err)
	return 0
}

// TestConnectSupervisorUnix: a supervised command's connect on a unix
// socket is let through where Landlock refuses its own TCP connects (so a
// TCP socket swapped in for the unix one after the check is refused), and
// refused without Landlock's TCP rules.
func TestConnectSupervisorUnix(t *testing.T) {
	requireSupervisor(t)
	requireABI(t, hostfacts.ABITCP)
	path := t.TempDir() + "/s"
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go closeEach(ln)
	for _, c := range []struct {
		abi  int
		want string
	}{{kernelABI(), "connect: <nil>"}, {0, "connect: permission denied"}} {
		spec := Spec{FS: FSOff, LandlockABI: c.abi, NetworkOff: true, Seccomp: true, Supervised: true}
		out, err := startProbe(t, spec, envConnectUnix+"="+path)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("landlock abi %d: %v %q, want %q", c.abi, err, out, c.want)
		}
	}
}

// envConnectLoop makes a copy of the test binary connect to an address
// again and again, and print the median time of one connect.
const envConnectLoop = "STOCKADE_TEST_CONNECT_LOOP" // "ADDR N"

func connectLoop() int {
	f := strings.Fields(os.Getenv(envConnectLoop))
	a := netip.MustParseAddrPort(f[0])
	n, _ := strconv.Atoi(f[1])
	sa := &unix.SockaddrInet4{Addr: a.Addr().As4(), Port: int(a.Port())}
	took := make([]time.Duration, 0, n)
	for range n {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			fmt.Println("socket:", err)
			return 1
		}
		start := time.Now()
		err = unix.Connect(fd, sa)
		took = append(took, time.Since(start))
		unix.Close(fd)
		if err != nil {
			fmt.Println("connect:", err)
			return 1
		}
	}
	slices.Sort(took)
	fmt.Printf("CONNECT_P50_NS=%d\n", took[len(took)/2].Nanoseconds())
	return 0
}

// BenchmarkSupervisedConnect reports the median time of one connect to a
// loopback listener, made by a command straight (no filter) and through the
// connect supervisor.
func BenchmarkSupervisedConnect(b *testing.B) {
	requireSupervisor(b)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go closeEach(ln)
	addr := ln.Addr().String()
	for _, mode := range []string{"direct", "supervised"} {
		b.Run(mode, func(b *testing.B) {
			spec := Spec{FS: FSOff}
			if mode == "supervised" {
				spec = Spec{FS: FSOff, NetworkOff: true, Seccomp: true, Supervised: true, ProxyTo: addr}
			}
			var p50 []float64
			for b.Loop() {
				out, err := startProbe(b, spec, envConnectLoop+"="+addr+" 200")
				_, v, ok := strings.Cut(out, "CONNECT_P50_NS=")
				ns, perr := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || !ok || perr != nil {
					b.Fatalf("%v\n%s", err, out)
				}
				p50 = append(p50, ns)
			}
			slices.Sort(p50)
			b.ReportMetric(p50[len(p50)/2]/1e3, "µs/connect-p50")
		})
	}
}

// BenchmarkStartTrue is what the supervisor adds to starting a command
// (stockade run's Start): /bin/true with the network off; with System V IPC
// supervised, as every run without an IPC namespace has it (the filter's
// listener, the supervisor's loop, and stopping it); and with connects
// supervised too.
func BenchmarkStartTrue(b *testing.B) {
	requireSupervisor(b)
	for _, mode := range []string{"off", "sysv", "supervised"} {
		b.Run(mode, func(b *testing.B) {
			spec := Spec{FS: FSOff, NetworkOff: true, UnixSocketsOff: true, Seccomp: true}
			if mode != "off" {
				spec.SysVSupervised = true
			}
			if mode == "supervised" {
				spec.Supervised, spec.ProxyTo = true, "127.0.0.1:9"
			}
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				_, release, err := Start(spec, cmd, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				release()
			}
		})
	}
}

// envServerSockets makes a copy of the test binary bind a TCP socket to an
// address and a unix socket to a path, listen on a TCP socket it never
// bound, and print each error.
const envServerSockets = "STOCKADE_TEST_SERVER_SOCKETS" // "ADDR PATH"

func serverSockets() int {
	f := strings.Fields(os.Getenv(envServerSockets))
	a := netip.MustParseAddrPort(f[0])
	tcp := func() int {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			fmt.Println("socket:", err)
			os.Exit(1)
		}
		return fd
	}
	fmt.Printf("bind tcp: %v\n", unix.Bind(tcp(), &unix.SockaddrInet4{Addr: a.Addr().As4(), Port: int(a.Port())}))
	fmt.Printf("listen unbound: %v\n", unix.Listen(tcp(), 1))
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		err = unix.Bind(fd, &unix.SockaddrUnix{Name: f[1]})
	}
	fmt.Printf("bind unix: %v\n", err)
	return 0
}

// TestConnectSupervisorTells: the supervisor refuses a TCP bind and a
// listen on a socket never bound, lets a unix bind through, and refuses a
// unix connect below Landlock ABI 4; it tells Spec.Refused of each refusal,
// with the address or path and the calling thread, and of nothing else.
func TestConnectSupervisorTells(t *testing.T) {
	requireSupervisor(t)
	var told []Refusal
	var mu sync.Mutex
	tell := func(r Refusal) { mu.Lock(); told = append(told, r); mu.Unlock() }
	// taken returns what was told since the last call (every tell came
	// before its call returned to the command, so before it exited).
	taken := func() []Refusal { mu.Lock(); defer mu.Unlock(); t := told; told = nil; return t }
	dir := t.TempDir()
	spec := Spec{FS: FSOff, LandlockABI: kernelABI(), NetworkOff: true, Seccomp: true, Supervised: true, ProxyTo: "127.0.0.1:9", Refused: tell}
	out, err := startProbe(t, spec, envServerSockets+"=127.0.0.1:38123 "+dir+"/s")
	if err != nil || !strings.Contains(out, "bind tcp: permission denied") || !strings.Contains(out, "listen unbound: permission denied") || !strings.Contains(out, "bind unix: <nil>") {
		t.Fatalf("%v\n%s", err, out)
	}
	got := taken()
	if len(got) != 2 || got[0].Call != "bind" || got[0].Addr != netip.MustParseAddrPort("127.0.0.1:38123") || got[0].Pid == 0 || got[0].Pgid == 0 ||
		got[1].Call != "listen" || got[1].Addr.IsValid() {
		t.Errorf("told %+v, want the bind with its address and the listen", got)
	}

	ln, err := net.Listen("unix", dir+"/u")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go closeEach(ln)
	spec.LandlockABI = 0
	out, err = startProbe(t, spec, envConnectUnix+"="+dir+"/u")
	if err != nil || !strings.Contains(out, "connect: permission denied") {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := taken(); len(got) != 1 || got[0].Call != "connect" || got[0].Unix != dir+"/u" {
		t.Errorf("told %+v, want the unix connect with its path", got)
	}
}
