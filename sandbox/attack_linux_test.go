//go:build linux

package sandbox

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stockade/stockade/hostfacts"
	"golang.org/x/sys/unix"
)

// Each test here is an attack: it runs once without the sandbox, where it must
// work, and once after Apply, where it must fail the expected way.

// fsVars makes a workdir, a tmpdir and an outside directory holding a file.
func fsVars(t *testing.T) map[string]string {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "file"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(out, "dir"), 0o755)
	return map[string]string{"work": t.TempDir(), "tmp": t.TempDir(), "out": out}
}

func wsSpec(v map[string]string) Spec { return strictSpec(v["work"], v["tmp"]) }

func roSpec(v map[string]string) Spec {
	s := strictSpec(v["work"], v["tmp"])
	s.FS = FSReadOnly
	return s
}

func TestAttackFilesystem(t *testing.T) {
	requireABI(t, hostfacts.ABITruncate)
	uniq := func(v map[string]string, name string) string {
		return filepath.Join(v["work"], name+"-"+os.Getenv(envChild))
	}
	cases := map[string]attack{
		"read-only write in workdir": {spec: roSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			return os.WriteFile(uniq(v, "x"), nil, 0o644)
		}},
		"write outside": {spec: wsSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			return os.WriteFile(filepath.Join(v["out"], "new-"+os.Getenv(envChild)), nil, 0o644)
		}},
		"write outside through ..": {spec: wsSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			rel, _ := filepath.Rel(v["work"], filepath.Join(v["out"], "dotdot-"+os.Getenv(envChild)))
			os.Chdir(v["work"])
			return os.WriteFile(rel, nil, 0o644)
		}},
		"write through a symlink made inside": {spec: wsSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			link := uniq(v, "link")
			if err := os.Symlink(filepath.Join(v["out"], "file"), link); err != nil {
				t.Fatalf("making the symlink inside: %v", err)
			}
			return os.WriteFile(link, []byte("overwritten"), 0o644)
		}},
		"hard link to an outside file": {spec: wsSpec, want: unix.EXDEV, do: func(t *testing.T, v map[string]string) error {
			return os.Link(filepath.Join(v["out"], "file"), uniq(v, "hard"))
		}},
		"rename an outside directory inside": {spec: wsSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			err := os.Rename(filepath.Join(v["out"], "dir"), uniq(v, "dir"))
			if err == nil {
				os.Rename(uniq(v, "dir"), filepath.Join(v["out"], "dir"))
			}
			return err
		}},
		"truncate outside": {spec: wsSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			return os.Truncate(filepath.Join(v["out"], "file"), 7)
		}},
		"mkfifo outside": {spec: wsSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			return unix.Mkfifo(filepath.Join(v["out"], "fifo-"+os.Getenv(envChild)), 0o600)
		}},
		"mknod outside": {spec: wsSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			return unix.Mknod(filepath.Join(v["out"], "node-"+os.Getenv(envChild)), unix.S_IFREG|0o600, 0)
		}},
		"write /proc/sys": {spec: wsSpec, want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			b, _ := os.ReadFile("/proc/sys/kernel/domainname")
			return os.WriteFile("/proc/sys/kernel/domainname", b, 0)
		}},
	}
	for name, a := range cases {
		a.setup = fsVars
		t.Run(name, a.run)
		if os.Geteuid() == 0 {
			// As root, the read-only mounts refuse most of these first.
			a.setup = landlockOnly(fsVars)
			t.Run(name+" (landlock only)", a.run)
		}
	}
}

// TestWorkspaceWriteAllows checks that the workdir and tmpdir stay usable:
// files, directories, renames within, symlinks, truncation, /dev/null.
func TestWorkspaceWriteAllows(t *testing.T) {
	requireABI(t, hostfacts.ABITruncate)
	if inChild() {
		a := applyFromEnv(t)
		var v map[string]string
		if err := jsonVars(&v); err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{v["work"], v["tmp"]} {
			must(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "a", "b", "f"), []byte("x"), 0o644))
			must(t, os.Rename(filepath.Join(dir, "a", "b", "f"), filepath.Join(dir, "a", "g")))
			must(t, os.Truncate(filepath.Join(dir, "a", "g"), 0))
			must(t, os.Symlink("g", filepath.Join(dir, "a", "s")))
			must(t, unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600))
			must(t, os.RemoveAll(filepath.Join(dir, "a")))
		}
		// Between writable roots (Landlock ABI 2); with read-only mounts each
		// is a mount of its own, and rename(2) says EXDEV (mv copies).
		err := os.Rename(filepath.Join(v["work"], "fifo"), filepath.Join(v["tmp"], "fifo2"))
		if a.ReadOnlyMounts && errors.Is(err, unix.EXDEV) {
			err = nil
		}
		must(t, err)
		must(t, os.WriteFile("/dev/null", []byte("x"), 0))
		if _, err := os.ReadFile("/etc/hostname"); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("reading /etc: %v", err)
		}
		return
	}
	v := fsVars(t)
	if out, err := runChild(t, "sandboxed", wsSpec(v), v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if os.Geteuid() == 0 {
		v := landlockOnly(fsVars)(t)
		if out, err := runChild(t, "sandboxed", wsSpec(v), v); err != nil {
			t.Fatalf("landlock only: %v\n%s", err, out)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
	}
}

// denyVars makes a home-like tree: secrets beside ordinary files.
func denyVars(t *testing.T) map[string]string {
	home := t.TempDir()
	for _, f := range []string{".ssh/id_ed25519", ".ssh/config", ".aws/credentials", ".netrc", "notes.txt", "proj/main.go"} {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("secret "+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(".ssh/id_ed25519", filepath.Join(home, "key-link"))
	os.Symlink(".aws", filepath.Join(home, "aws-link"))
	return map[string]string{"home": home, "tmp": t.TempDir()}
}

func denySpec(workdir string) func(v map[string]string) Spec {
	return func(v map[string]string) Spec {
		s := strictSpec(filepath.Join(v["home"], workdir), v["tmp"])
		h := v["home"]
		s.DenyRead = []string{h + "/.ssh", h + "/.aws", h + "/.netrc", h + "/.gnupg", h + "/aws-link"}
		return s
	}
}

func TestAttackDenyRead(t *testing.T) {
	requireABI(t, 1)
	read := func(name string) func(t *testing.T, v map[string]string) error {
		return func(t *testing.T, v map[string]string) error {
			// What is beside the secrets stays readable.
			for _, ok := range []string{"notes.txt", "proj/main.go"} {
				if _, err := os.ReadFile(filepath.Join(v["home"], ok)); err != nil {
					t.Errorf("reading %s beside the secrets: %v", ok, err)
				}
			}
			if _, err := os.ReadDir(v["home"]); err != nil {
				t.Errorf("listing home: %v", err)
			}
			_, err := os.ReadFile(filepath.Join(v["home"], name))
			return err
		}
	}
	cases := map[string]attack{
		"directory":                {spec: denySpec("proj"), do: read(".ssh/id_ed25519")},
		"second dir, same parent":  {spec: denySpec("proj"), do: read(".aws/credentials")},
		"file":                     {spec: denySpec("proj"), do: read(".netrc")},
		"through a symlink":        {spec: denySpec("proj"), do: read("key-link")},
		"denied through a symlink": {spec: denySpec("proj"), do: read("aws-link/credentials")},
		"workdir is home":          {spec: denySpec(""), do: read(".ssh/config")},
		"workdir is home, file":    {spec: denySpec(""), do: read(".netrc")},
		"workdir is home, overwrite": {spec: denySpec(""), do: func(t *testing.T, v map[string]string) error {
			// Writable home must not make the secrets writable either.
			if err := os.WriteFile(filepath.Join(v["home"], "notes.txt"), []byte("ok"), 0o644); err != nil {
				t.Errorf("writing beside the secrets: %v", err)
			}
			return os.WriteFile(filepath.Join(v["home"], ".ssh", "authorized_keys"), []byte("ssh-ed25519 AAAA"), 0o600)
		}},
	}
	for name, a := range cases {
		a.setup, a.want = denyVars, unix.EACCES
		t.Run(name, a.run)
	}
}

// TestDenyReadOfMissingPath checks a deny-read path that does not exist is a note.
func TestDenyReadOfMissingPath(t *testing.T) {
	requireABI(t, 1)
	if inChild() {
		a := applyFromEnv(t)
		if !strings.Contains(a.Notes, "does not exist") {
			t.Errorf("notes %q do not say the path does not exist", a.Notes)
		}
		return
	}
	v := denyVars(t)
	s := denySpec("proj")(v)
	s.DenyRead = append(s.DenyRead, filepath.Join(v["home"], "no-such-file"))
	if out, err := runChild(t, "sandboxed", s, v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestDenyReadRefusesWorkdirInside checks that a writable root inside a
// deny-read path is an error, not a silent hole.
func TestDenyReadRefusesWorkdirInside(t *testing.T) {
	requireABI(t, 1)
	v := denyVars(t)
	s := denySpec(".ssh")(v)
	p, err := landlockPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := newRuleset(s, p)
	if err == nil {
		rs.close()
		t.Fatal("a workdir inside a deny-read path was accepted")
	}
	if !strings.Contains(err.Error(), "inside deny-read") {
		t.Errorf("error %q does not say why", err)
	}
}

// netVars starts TCP and UDP listeners on loopback (IPv4 and, where there is
// one, IPv6) that count what reaches them.
func netVars(t *testing.T) map[string]string {
	v := map[string]string{}
	for _, network := range []string{"tcp4", "tcp6"} {
		l, err := net.Listen(network, map[string]string{"tcp4": "127.0.0.1:0", "tcp6": "[::1]:0"}[network])
		if err != nil {
			continue
		}
		t.Cleanup(func() { l.Close() })
		go closeEach(l)
		v[network] = l.Addr().String()
	}
	u, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	v["udp"] = u.LocalAddr().String()
	received := make(chan struct{}, 16)
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := u.ReadFrom(buf); err != nil {
				return
			}
			received <- struct{}{}
		}
	}()
	udpReceived[v["udp"]] = received
	return v
}

var udpReceived = map[string]chan struct{}{}

// udpAfter checks what reached the UDP listener: something without the
// sandbox, nothing with it.
func udpAfter(t *testing.T, v map[string]string, sandboxed bool, out string) {
	received := udpReceived[v["udp"]]
	if !sandboxed {
		select {
		case <-received:
		case <-time.After(2 * time.Second):
			t.Error("the UDP listener received nothing without the sandbox")
		}
		time.Sleep(100 * time.Millisecond)
		for len(received) > 0 {
			<-received
		}
		return
	}
	select {
	case <-received:
		t.Error("the UDP listener received a datagram from the sandbox")
	case <-time.After(300 * time.Millisecond):
	}
}

func netSpec(landlockOnly bool) func(map[string]string) Spec {
	return func(map[string]string) Spec {
		s := strictSpec("", "")
		s.FS = FSOff
		if landlockOnly {
			s.Seccomp, s.UnixSocketsOff = false, false
		}
		return s
	}
}

func TestAttackNetwork(t *testing.T) {
	requireABI(t, 1)
	dial := func(network string) func(t *testing.T, v map[string]string) error {
		return func(t *testing.T, v map[string]string) error {
			if v[network] == "" {
				t.Skipf("no %s loopback", network)
			}
			c, err := net.DialTimeout(network, v[network], 2*time.Second)
			if err == nil {
				c.Close()
			}
			return err
		}
	}
	cases := map[string]attack{
		"tcp4 connect (seccomp)": {spec: netSpec(false), want: unix.EPERM, do: dial("tcp4")},
		"tcp6 connect (seccomp)": {spec: netSpec(false), want: unix.EPERM, do: dial("tcp6")},
		"tcp bind (seccomp)": {spec: netSpec(false), want: unix.EPERM, do: func(t *testing.T, v map[string]string) error {
			l, err := net.Listen("tcp4", "127.0.0.1:0")
			if err == nil {
				l.Close()
			}
			return err
		}},
		"udp sendto": {spec: netSpec(false), want: unix.EPERM, after: udpAfter, do: func(t *testing.T, v map[string]string) error {
			c, err := net.Dial("udp4", v["udp"])
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = c.Write([]byte("hello"))
			return err
		}},
		"dns lookup": {spec: netSpec(false), want: unix.EPERM, after: udpAfter, do: func(t *testing.T, v map[string]string) error {
			// The UDP listener stands in for a resolver on loopback; it never
			// answers, so a lookup that sent its query times out.
			dialErr := make(chan error, 8)
			r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
				c, err := net.Dial("udp4", v["udp"])
				dialErr <- err
				return c, err
			}}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			r.LookupHost(ctx, "example.com")
			return <-dialErr
		}},
		"raw socket": {spec: netSpec(false), want: unix.EPERM, do: func(t *testing.T, v map[string]string) error {
			requireRoot(t)
			return socketErr(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)
		}},
		"packet socket": {spec: netSpec(false), want: unix.EPERM, do: func(t *testing.T, v map[string]string) error {
			requireRoot(t)
			return socketErr(unix.AF_PACKET, unix.SOCK_RAW, 0x0300)
		}},
		"mptcp socket": {spec: netSpec(false), want: unix.EPERM, do: func(t *testing.T, v map[string]string) error {
			err := socketErr(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
			if os.Getenv(envChild) == "plain" && errors.Is(err, unix.EPROTONOSUPPORT) {
				t.Skip("no MPTCP in this kernel")
			}
			return err
		}},
		"netlink sock_diag": {spec: netSpec(false), want: unix.EPERM, do: func(t *testing.T, v map[string]string) error {
			return socketErr(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_SOCK_DIAG)
		}},
		"unix socket": {spec: netSpec(false), want: unix.EPERM, do: func(t *testing.T, v map[string]string) error {
			if os.Getenv(envChild) == "sandboxed" {
				fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
				if err != nil {
					t.Errorf("socketpair must keep working: %v", err)
				} else {
					unix.Close(fds[0])
					unix.Close(fds[1])
				}
				if err := socketErr(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE); err != nil {
					t.Errorf("netlink route must keep working: %v", err)
				}
			}
			return socketErr(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		}},
		"io_uring": {spec: netSpec(false), want: unix.ENOSYS, do: func(t *testing.T, v map[string]string) error {
			var params [120]byte
			fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
			if errno != 0 {
				if os.Getenv(envChild) == "plain" {
					t.Skipf("io_uring is not available here: %v", errno)
				}
				return errno
			}
			unix.Close(int(fd))
			return nil
		}},
	}
	if kernelABI() >= hostfacts.ABITCP {
		cases["tcp4 connect (landlock only)"] = attack{spec: netSpec(true), want: unix.EACCES, do: dial("tcp4")}
		cases["tcp6 connect (landlock only)"] = attack{spec: netSpec(true), want: unix.EACCES, do: dial("tcp6")}
		cases["tcp bind (landlock only)"] = attack{spec: netSpec(true), want: unix.EACCES, do: func(t *testing.T, v map[string]string) error {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			return unix.Bind(fd, &unix.SockaddrInet4{Port: 0, Addr: [4]byte{127, 0, 0, 1}})
		}}
	}
	for name, a := range cases {
		a.setup = netVars
		t.Run(name, a.run)
	}
}

func socketErr(domain, typ, proto int) error {
	fd, err := unix.Socket(domain, typ|unix.SOCK_CLOEXEC, proto)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

func capSpec(map[string]string) Spec {
	// Capabilities alone, without Landlock (which refuses mounts by itself).
	return Spec{FS: FSOff, DropCaps: true}
}

func TestAttackRootSyscalls(t *testing.T) {
	requireRoot(t)
	cases := map[string]attack{
		"mount": {do: func(t *testing.T, v map[string]string) error {
			err := unix.Mount("none", v["dir"], "tmpfs", 0, "size=1m")
			if err == nil {
				unix.Unmount(v["dir"], 0)
			}
			return err
		}},
		"chroot": {do: func(t *testing.T, v map[string]string) error { return unix.Chroot("/") }},
		"sethostname": {do: func(t *testing.T, v map[string]string) error {
			name, _ := os.Hostname()
			return unix.Sethostname([]byte(name))
		}},
		"setuid binary keeps no caps": {do: func(t *testing.T, v map[string]string) error {
			// Regaining capabilities: raising one back into the effective set.
			var hdr unix.CapUserHeader
			var data [2]unix.CapUserData
			hdr.Version = unix.LINUX_CAPABILITY_VERSION_3
			data[0].Effective = 1 << unix.CAP_SYS_ADMIN
			data[0].Permitted = 1 << unix.CAP_SYS_ADMIN
			return unix.Capset(&hdr, &data[0])
		}},
		"module loading": {do: func(t *testing.T, v map[string]string) error {
			// An empty module image: EPERM before anything is parsed without
			// CAP_SYS_MODULE, ENOEXEC (or similar) with it.
			_, _, errno := unix.Syscall(unix.SYS_INIT_MODULE, 0, 0, uintptr(unsafe.Pointer(&[]byte{0}[0])))
			if errno == unix.EPERM {
				return errno
			}
			if errno == unix.ENOSYS {
				t.Skip("this kernel has no module support")
			}
			t.Logf("init_module: %v", errno)
			return nil
		}},
		"kill init": {do: func(t *testing.T, v map[string]string) error {
			// Signal 0 only checks the permission; uid 0 may signal anyone.
			return unix.Kill(1, 0)
		}},
	}
	for name, a := range cases {
		a.spec, a.want = capSpec, unix.EPERM
		a.setup = func(t *testing.T) map[string]string { return map[string]string{"dir": t.TempDir()} }
		if name == "kill init" {
			// uid 0 may signal any process without capabilities: only the
			// Landlock signal scope stops it.
			a.spec = func(map[string]string) Spec { s := strictSpec("", ""); s.FS = FSOff; return s }
			if kernelABI() < hostfacts.ABIScopes {
				continue
			}
		}
		t.Run(name, a.run)
	}
}

func TestAttackScopes(t *testing.T) {
	requireABI(t, hostfacts.ABIScopes)
	scoped := func(map[string]string) Spec { s := strictSpec("", ""); s.FS = FSOff; s.DropCaps = false; return s }
	cases := map[string]attack{
		"signal the parent": {do: func(t *testing.T, v map[string]string) error {
			return unix.Kill(os.Getppid(), 0)
		}, want: unix.EPERM},
		"read the parent's memory": {do: func(t *testing.T, v map[string]string) error {
			f, err := os.Open("/proc/" + strconv.Itoa(os.Getppid()) + "/mem")
			if err == nil {
				f.Close()
			}
			return err
		}, want: unix.EACCES},
		"read the parent's environment": {do: func(t *testing.T, v map[string]string) error {
			// Landlock alone does not refuse this on 6.18 (see SECURITY.md);
			// as root, the capability drop does: the parent has capabilities
			// the sandbox lacks.
			requireRoot(t)
			_, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/environ")
			return err
		}, want: unix.EACCES},
		"ptrace attach to the parent": {do: func(t *testing.T, v map[string]string) error {
			// PTRACE_SEIZE does not stop the tracee.
			err := unix.PtraceSeize(os.Getppid())
			if err == nil {
				unix.PtraceDetach(os.Getppid())
			}
			return err
		}, want: unix.EPERM},
		"abstract unix socket outside": {do: func(t *testing.T, v map[string]string) error {
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			return unix.Connect(fd, &unix.SockaddrUnix{Name: "@" + v["abstract"]})
		}, want: unix.EPERM, setup: func(t *testing.T) map[string]string {
			name := "stockade-test-" + strconv.Itoa(os.Getpid())
			l, err := net.Listen("unix", "@"+name)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return map[string]string{"abstract": name}
		}},
	}
	for name, a := range cases {
		a.spec = scoped
		if name == "read the parent's environment" {
			a.spec = func(v map[string]string) Spec { s := scoped(v); s.DropCaps = true; return s }
		}
		if name == "abstract unix socket outside" {
			a.spec = func(v map[string]string) Spec { s := scoped(v); s.UnixSocketsOff = false; s.Seccomp = false; return s }
		}
		t.Run(name, a.run)
	}
}

// TestAttackX32 makes a system call with an x32 number: the filter kills the
// process where the kernel would just say ENOSYS.
func TestAttackX32(t *testing.T) {
	if _, ok := seccompArchFor("amd64"); !ok || runtime.GOARCH != "amd64" {
		t.Skip("x32 exists on amd64 only")
	}
	if inChild() {
		if os.Getenv(envChild) == "sandboxed" {
			applyFromEnv(t)
		}
		syscall.RawSyscall(x32SyscallBit|39, 0, 0, 0) // x32 getpid
		return
	}
	s := Spec{FS: FSOff, Seccomp: true}
	if out, err := runChild(t, "plain", s, nil); err != nil {
		t.Fatalf("without the filter: %v\n%s", err, out)
	}
	out, err := runChild(t, "sandboxed", s, nil)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGSYS {
		t.Fatalf("the x32 call did not kill the process with SIGSYS: %v\n%s", err, out)
	}
}

func forkSpec(map[string]string) Spec {
	s := strictSpec("", "")
	s.FS = FSReadOnly
	s.MaxProcs = 50
	return s
}

// TestAttackForkBomb starts processes until the kernel refuses: under
// MaxProcs=50 that happens before 50; without the bound, 60 start fine.
func TestAttackForkBomb(t *testing.T) {
	requireABI(t, 1)
	attack{spec: forkSpec, want: unix.EAGAIN, do: func(t *testing.T, v map[string]string) error {
		var pids []int
		defer func() {
			for _, pid := range pids {
				unix.Kill(pid, unix.SIGKILL)
				var ws unix.WaitStatus
				unix.Wait4(pid, &ws, 0, nil)
			}
		}()
		sleep, err := exec.LookPath("sleep")
		if err != nil {
			t.Fatal(err)
		}
		for len(pids) < 60 {
			pid, err := syscall.ForkExec(sleep, []string{"sleep", "30"}, nil)
			if err != nil {
				t.Logf("started %d processes, then: %v", len(pids), err)
				if len(pids) >= 50 {
					t.Errorf("%d processes started under MaxProcs=50", len(pids))
				}
				return err
			}
			pids = append(pids, pid)
		}
		return nil
	}}.run(t)
}

// TestForkBombContained runs a real shell fork bomb under MaxProcs=50 for a
// moment; RemoveProcLimit must then stop all of it, and this host must still
// start processes.
func TestForkBombContained(t *testing.T) {
	requireABI(t, 1)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if inChild() {
		a := applyFromEnv(t)
		// This process shares the bound with the bomb, which soon fills it:
		// from then on the Go runtime cannot start a thread, and dies if it
		// needs one (a write that blocks long enough for sysmon to hand its P
		// to another thread, as on a loaded one-CPU guest). Start the threads
		// it may need now.
		startThreads(8)
		cmd := exec.Command("bash", "-c", ":(){ :|:& };:")
		cmd.Start()
		// Until the bomb hits the bound: on a loaded machine it may take
		// longer than a second to fork that many.
		var events []byte
		for deadline := time.Now().Add(30 * time.Second); ; {
			var err error
			if events, err = os.ReadFile(filepath.Join(a.ProcLimit, "pids.events")); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(events), "max 0") || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !strings.Contains(string(events), "max ") || strings.Contains(string(events), "max 0") {
			t.Errorf("the fork bomb never hit the bound: %s", events)
		}
		cur, _ := os.ReadFile(filepath.Join(a.ProcLimit, "pids.current"))
		t.Logf("pids.current %s, pids.events %s", strings.TrimSpace(string(cur)), strings.TrimSpace(string(events)))
		return
	}
	out, err := runChild(t, "sandboxed", forkSpec(nil), nil) // runChild removes the cgroup
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	dir := procLimitOf(out)
	if dir == "" {
		t.Fatalf("the child reported no cgroup:\n%s", out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the cgroup %s is still there: %v", dir, err)
	}
	if err := exec.Command("true").Run(); err != nil {
		t.Errorf("this host cannot start a process after the fork bomb: %v", err)
	}
}

// startThreads makes the Go runtime start n more OS threads and keep them
// idle for later use: each of n goroutines locks itself to a thread and
// parks, so the runtime starts another thread for the rest, then unlocks and
// exits, which leaves its thread idle rather than gone.
func startThreads(n int) {
	var locked, done sync.WaitGroup
	release := make(chan struct{})
	for range n {
		locked.Add(1)
		done.Go(func() {
			runtime.LockOSThread()
			locked.Done()
			<-release
			runtime.UnlockOSThread()
		})
	}
	locked.Wait()
	close(release)
	done.Wait()
}

// TestAttackLeaveProcLimit moves the process out of its pids cgroup, which
// would also lift the bound: refused even with the filesystem mode off.
func TestAttackLeaveProcLimit(t *testing.T) {
	requireRoot(t)
	requireABI(t, 1)
	parent, err := pidsCgroupDir()
	if err != nil {
		t.Skip(err)
	}
	attack{want: unix.EACCES, spec: func(map[string]string) Spec {
		s := forkSpec(nil)
		s.FS = FSOff
		return s
	}, setup: func(t *testing.T) map[string]string {
		return map[string]string{"procs": filepath.Join(parent, "cgroup.procs")}
	}, do: func(t *testing.T, v map[string]string) error {
		return os.WriteFile(v["procs"], []byte(strconv.Itoa(os.Getpid())), 0)
	}}.run(t)
}
