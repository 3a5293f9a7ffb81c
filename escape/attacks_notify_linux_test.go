//go:build linux

package escape

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The connect supervisor (network = "allowlist" without a network namespace):
// these run stockade as the plain user where it gets no user namespace, and
// so no network namespace (see withoutUserNS).

// connectRace is escape-tool's connect-race: n connects to a, with the
// sockaddr in memory another thread flips to b and back in a tight loop. It
// prints where the connects went (by the peer's address) and succeeds when
// one reached b.
func connectRace(a, b string, n int) error {
	pa, err := netip.ParseAddrPort(a)
	if err != nil {
		return err
	}
	pb, err := netip.ParseAddrPort(b)
	if err != nil {
		return err
	}
	wa, wb := sockaddrWord(pa), sockaddrWord(pb)
	var buf [2]uint64 // a sockaddr_in: family, port and address in the first word
	buf[0] = wa
	var stop atomic.Bool
	go func() {
		runtime.LockOSThread()
		p := (*uint64)(unsafe.Pointer(&buf[0]))
		for !stop.Load() {
			atomic.StoreUint64(p, wb)
			atomic.StoreUint64(p, wa)
		}
	}()
	counts := map[string]int{}
	for range n {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("socket: %w", err)
		}
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), 16)
		switch {
		case e != 0:
			counts["refused"]++
		default:
			sa, _ := unix.Getpeername(fd)
			if in, ok := sa.(*unix.SockaddrInet4); ok && netip.AddrPortFrom(netip.AddrFrom4(in.Addr), uint16(in.Port)) == pb {
				counts["b"]++
			} else {
				counts["a"]++
			}
		}
		unix.Close(fd)
	}
	stop.Store(true)
	fmt.Printf("a=%d b=%d refused=%d\n", counts["a"], counts["b"], counts["refused"])
	if counts["b"] == 0 {
		return errors.New("never reached b")
	}
	return nil
}

// sockaddrWord is the first word of the sockaddr_in of a, as this machine stores it.
func sockaddrWord(a netip.AddrPort) uint64 {
	var b [8]byte
	binary.NativeEndian.PutUint16(b[0:], unix.AF_INET)
	binary.BigEndian.PutUint16(b[2:], a.Port())
	copy(b[4:], a.Addr().AsSlice())
	return binary.NativeEndian.Uint64(b[:])
}

// countingServer accepts on loopback, counts the connections and closes them.
func countingServer(t *testing.T) (netip.AddrPort, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return netip.MustParseAddrPort(ln.Addr().String()), &n
}

// withoutUserNS is argv run as the plain user where user namespaces are
// refused: in a user namespace of the test's (mapping root and the plain
// user to themselves) whose user.max_user_namespaces is 0, the kernel's own
// refusal, as on Ubuntu 24.04 or a CI runner that refuses them.
func withoutUserNS(t *testing.T, id ident, argv ...string) *exec.Cmd {
	t.Helper()
	if exec.Command("setpriv", "--reuid", "0", "--regid", "0", "--clear-groups", "--", "true").Run() != nil {
		t.Skip("no setpriv that changes ids (util-linux's; busybox's cannot)")
	}
	u := strconv.Itoa(id.uid)
	cmd := exec.Command("sh", append([]string{"-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --reuid ` + u + ` --regid ` + u + ` --clear-groups -- "$@"`, "sh"}, argv...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: id.uid, HostID: id.uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: id.uid, HostID: id.uid, Size: 1}},
		GidMappingsEnableSetgroups: true}
	return cmd
}

// supervisedRun runs script with stockade run as the plain user, under a
// policy with network = "allowlist" that lists pkg.test and 127.0.0.1
// (pkg.test resolves to 127.0.0.1 in the proxy).
func supervisedRun(t *testing.T, script string) (*runJSON, string) {
	t.Helper()
	return supervisedRunPolicy(t, allowAll+"[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\", \"127.0.0.1\"]\n", script)
}

// supervisedRunPolicy is supervisedRun under the policy policyText.
func supervisedRunPolicy(t *testing.T, policyText, script string) (*runJSON, string) {
	t.Helper()
	j, stderr := plainRun(t, policyText, script, "--resolve", "pkg.test=127.0.0.1")
	if !j.Applied.Supervised {
		t.Fatalf("the plain user's run was not supervised: %+v\n%s", j.Applied, stderr)
	}
	return j, stderr
}

func requireSupervisor(t *testing.T) {
	t.Helper()
	requireSuite(t)
	id := plainUser()
	cmd := withoutUserNS(t, id, id.stockade, "doctor", "--json", "--policy", id.policy(t))
	cmd.Env = append(os.Environ(), "HOME="+id.dir(t))
	out, _ := cmd.Output()
	var d struct {
		Host struct {
			Notify *bool  `json:"seccomp_notify"`
			Why    string `json:"seccomp_notify_reason"`
		} `json:"host"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("stockade doctor --json: %v\n%s", err, out)
	}
	if d.Host.Notify == nil || !*d.Host.Notify {
		t.Skipf("no connect supervisor for the plain user: %s", d.Host.Why)
	}
}

// TestSupervisedReport: stockade doctor, for the plain user where user
// namespaces are refused, under network = "allowlist", names the connect
// supervisor on the network-tcp line.
func TestSupervisedReport(t *testing.T) {
	requireSupervisor(t)
	id := plainUser()
	home := id.dir(t)
	policy := home + "/policy.toml"
	must(t, os.WriteFile(policy, []byte(allowAll+"[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\"]\n"), 0o644))
	cmd := withoutUserNS(t, id, id.stockade, "doctor", "--json", "--policy", policy)
	cmd.Dir, cmd.Env = id.dir(t), append(os.Environ(), "HOME="+home)
	_, _, protections := doctorHost(t, cmd)
	found := false
	for _, p := range protections {
		if p.Name == "network-tcp" {
			found = true
			if p.Status != "enforced" || !strings.HasPrefix(p.By, "seccomp connect supervisor") {
				t.Errorf("network-tcp: %+v", p)
			}
		}
	}
	if !found {
		t.Errorf("no network-tcp line in the report: %+v", protections)
	}
}

// TestSupervisedEgress: through the connect supervisor a listed name is
// reached through the proxy (curl, and node, whose connects are
// non-blocking); the same server straight, by its address, is not; nor is a
// UDP listener (so no DNS either); and a TCP socket cannot listen. Without
// stockade, the plain user reaches both directly and listens.
func TestSupervisedEgress(t *testing.T) {
	requireSupervisor(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	secret := "upstream-" + randHex(8)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, secret) }))
	defer up.Close()
	port := strconv.Itoa(up.Listener.Addr().(*net.TCPAddr).Port)
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	must(t, err)
	defer udp.Close()
	var datagrams atomic.Int64
	go func() {
		buf := make([]byte, 512)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			datagrams.Add(1)
		}
	}()
	udpPort := strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port)
	script := `echo "proxied: $(curl -s -m 10 http://pkg.test:` + port + `/)"
echo "direct: $(curl -s -m 5 --noproxy '*' http://127.0.0.1:` + port + `/) exit=$?"
echo "literal: $(curl -s -m 5 -x '' http://127.0.0.1:` + port + `/) exit=$?"
echo dns > /dev/udp/127.0.0.1/` + udpPort + `; echo "udp exit=$?"
getent hosts pkg.test >/dev/null; echo "resolve exit=$?"
"$PY" -c 'import socket; s = socket.socket(); s.listen(); print("listening on", s.getsockname())' 2>/dev/null; echo "listen exit=$?"`

	// Without stockade: the attacks work.
	if python == "" {
		t.Skip("no python3")
	}
	ctl := plainUser().command("bash", "-c", script)
	ctl.Env = append(os.Environ(), "PY="+python)
	control, _ := ctl.CombinedOutput()
	if !strings.Contains(string(control), "direct: "+secret) || !strings.Contains(string(control), "literal: "+secret) || !strings.Contains(string(control), "listen exit=0") {
		t.Fatalf("without the sandbox the direct connection did not work; it proves nothing:\n%s", control)
	}
	waitFor(t, "the control's datagram", func() bool { return datagrams.Load() > 0 })
	datagrams.Store(0)

	// A command stockade may not read the memory of (not dumpable) cannot connect, not even to the proxy.
	j, stderr := supervisedRun(t, script+`
"$PY" -c 'import ctypes, os, socket; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); s = socket.socket(); s.connect(("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1]))); print("nondumpable connected")'; echo "nondumpable exit=$?"`)
	out := stderr + fmt.Sprint(j.Notes)
	if !strings.Contains(stderr, "proxied: "+secret) {
		t.Errorf("the proxy did not reach a listed name:\n%s", out)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if (strings.HasPrefix(line, "direct:") || strings.HasPrefix(line, "literal:")) && strings.Contains(line, secret) {
			t.Errorf("ESCAPE: a direct connection skipped the proxy: %q", line)
		}
	}
	if !strings.Contains(stderr, "resolve exit=2") {
		t.Errorf("the command resolved a name itself:\n%s", out)
	}
	if n := datagrams.Load(); n > 0 {
		t.Errorf("ESCAPE: %d UDP datagrams left the sandbox", n)
	}
	if !strings.Contains(stderr, "nondumpable exit=1") || strings.Contains(stderr, "nondumpable connected") {
		t.Errorf("a non-dumpable command connected, or did not try:\n%s", out)
	}
	if !strings.Contains(stderr, "listen exit=1") {
		t.Errorf("a TCP socket listened on the host's addresses:\n%s", out)
	}

	if _, err := exec.LookPath("node"); err == nil {
		// Node connects with non-blocking sockets: the supervisor answers EINPROGRESS.
		j, stderr := supervisedRun(t, `node -e '
const u = new URL(process.env.HTTP_PROXY);
require("http").get({host: u.hostname, port: u.port, path: "http://pkg.test:`+port+`/", headers: {host: "pkg.test:`+port+`"}}, r => {
  let b = ""; r.on("data", d => b += d); r.on("end", () => console.log("node: " + b));
}).on("error", e => console.log("node error: " + e.message));'`)
		if !strings.Contains(stderr, "node: "+secret) {
			t.Errorf("node did not reach a listed name through the proxy (exit %d):\n%s", j.ExitCode, stderr)
		}
	}
}

// TestSupervisedConnectRace: one thread connects to the proxy's address
// while another flips the address in memory to a forbidden server,
// thousands of times. Run by the plain user outside stockade (the address
// is checked by nobody) it reaches the forbidden server; through the
// connect supervisor, which reads the address once and connects with its
// own copy, never: the forbidden server counts no connection. (The sandbox
// package's TestConnectSupervisorRace shows that a supervisor which checks
// and then lets the call through loses this race.)
func TestSupervisedConnectRace(t *testing.T) {
	requireSupervisor(t)
	if runtime.NumCPU() < 2 {
		// The kernel matrix's guests have one: the flipping thread then
		// rarely runs while the other connects, and the control proves nothing.
		t.Skip("the race needs two CPUs running its threads at once; this machine has one")
	}
	decoy, _ := countingServer(t)
	const rounds = "3000"

	// A server of its own for the control: the accepts of its connections may
	// still be under way when the sandboxed run starts.
	target, _ := countingServer(t)
	control, err := plainUser().command(tool, "connect-race", decoy.String(), target.String(), rounds).CombinedOutput()
	if err != nil {
		t.Fatalf("without the sandbox the race never reached the forbidden server; it proves nothing: %v\n%s", err, control)
	}

	forbidden, reached := countingServer(t)

	j, stderr := supervisedRun(t, `"$TOOL" connect-race "${HTTP_PROXY#http://}" `+forbidden.String()+` `+rounds+`; echo "race exit=$?"`)
	if n := reached.Load(); n > 0 || !strings.Contains(stderr, "race exit=1") {
		t.Errorf("ESCAPE: the race reached the forbidden server %d times through the connect supervisor (exit %d):\n%s", n, j.ExitCode, stderr)
	}
	if !strings.Contains(stderr, " b=0 ") || strings.Contains(stderr, "a=0 ") {
		t.Errorf("the race's connects to the proxy should work and none reach the forbidden server:\n%s", stderr)
	}
	t.Logf("outside: %s; supervised: %s", strings.TrimSpace(string(control)), lastLines(stderr, 2))
}

// TestSupervisedServe: stockade serve where the plain user gets no user
// namespace (a namespace of the test's whose user.max_user_namespaces is 0):
// the zygote hands its filter's listener to the server, and a session's
// commands reach a listed name through the session's proxy and nothing
// directly; the result says the connects were supervised, and the bash
// tool's description says what the network is.
func TestSupervisedServe(t *testing.T) {
	requireSupervisor(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	id := plainUser()
	secret := "upstream-" + randHex(8)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, secret) }))
	defer up.Close()
	port := strconv.Itoa(up.Listener.Addr().(*net.TCPAddr).Port)

	home := id.dir(t)
	policy := home + "/policy.toml"
	must(t, os.WriteFile(policy, []byte(allowAll+"[sandbox]\nnetwork = \"allowlist\"\n[network]\nallow = [\"pkg.test\", \"127.0.0.1\"]\n"), 0o644))
	cmd := withoutUserNS(t, id, id.stockade, "serve", "--policy", policy, "--workdir", id.dir(t), "--resolve", "pkg.test=127.0.0.1")
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+id.dir(t), "HOME="+home)
	s := startServerCmd(t, cmd)
	tools := string(s.request("tools/list", map[string]any{}))
	if want := "nothing else, not even loopback: servers cannot listen on 127.0.0.1"; !strings.Contains(tools, want) {
		t.Errorf("the bash tool's description does not say the session's network (%q):\n%s", want, tools)
	}
	res := s.bash(map[string]any{"command": `echo "proxied: $(curl -s -m 10 http://pkg.test:` + port + `/)"
echo "direct: $(curl -s -m 5 --noproxy '*' http://127.0.0.1:` + port + `/) exit=$?"`})
	out := fmt.Sprint(res["stdout"], res["stderr"])
	applied, _ := res["applied"].(map[string]any)
	if applied["supervised"] != true || applied["netns"] == true {
		t.Errorf("the session's connects were not supervised: %v", applied)
	}
	if !strings.Contains(out, "proxied: "+secret) {
		t.Errorf("the session's proxy did not reach a listed name:\n%s", out)
	}
	if strings.Contains(out, "direct: "+secret) {
		t.Errorf("ESCAPE: a direct connection skipped the proxy:\n%s", out)
	}
	s.stop()
	if log := s.stderr.String(); !strings.Contains(log, "addr=127.0.0.1:"+port+" allowed=false") {
		t.Errorf("the server log has no line for the refused direct connection:\n%s", log)
	}
}

// TestSupervisedGrant: a host a rule grants to one command is reached
// through the connect supervisor too (the command's credential names the
// proxy's port on the host's loopback), and not by a call that also runs
// another command.
func TestSupervisedGrant(t *testing.T) {
	requireSupervisor(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	secret := "granted-" + randHex(8)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, secret) }))
	defer up.Close()
	port := strconv.Itoa(up.Listener.Addr().(*net.TCPAddr).Port)
	policy := allowAll + `[sandbox]
network = "allowlist"
[network]
allow = []
[[rule]]
name = "curl-fetch"
decision = "allow"
command = ["curl"]
allow_hosts = ["pkg.test", "127.0.0.1"]
`
	fetch := `curl -s -m 10 http://pkg.test:` + port + `/ >&2`
	j, stderr := supervisedRunPolicy(t, policy, fetch)
	if !strings.Contains(stderr, secret) {
		t.Errorf("the granted command did not reach its host (exit %d, notes %q):\n%s", j.ExitCode, j.Notes, stderr)
	}
	if !strings.Contains(strings.Join(j.Notes, "\n"), `granted by rule "curl-fetch"`) {
		t.Errorf("the result does not say what was granted: %q", j.Notes)
	}
	j, stderr = supervisedRunPolicy(t, policy, fetch+`; ls > /dev/null`)
	if strings.Contains(stderr, secret) {
		t.Errorf("a call that also runs another command reached the granted host:\n%s", stderr)
	}
	if !strings.Contains(strings.Join(j.Notes, "\n"), `rule "curl-fetch" grants it to`) {
		t.Errorf("the refusal does not name the rule that grants the host: %q", j.Notes)
	}
}
