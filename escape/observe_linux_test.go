//go:build linux

package escape

// What the test sees from outside the command: the state of directories, the
// processes of a run, what its listeners received.

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fileState is what a write, chmod, touch or setxattr would change.
type fileState struct {
	mode     fs.FileMode
	uid, gid uint32
	size     int64
	mtime    int64
	sum      [32]byte
	link     string
	xattrs   string
}

// snapshot records every file and directory under the roots.
func snapshot(roots ...string) map[string]fileState {
	m := map[string]fileState{}
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			var st unix.Stat_t
			if unix.Lstat(p, &st) != nil {
				return nil
			}
			fi, _ := d.Info()
			if fi == nil {
				return nil
			}
			s := fileState{mode: fi.Mode(), uid: st.Uid, gid: st.Gid, size: st.Size, mtime: st.Mtim.Nano()}
			switch {
			case fi.Mode().IsRegular():
				if b, err := os.ReadFile(p); err == nil {
					s.sum = sha256.Sum256(b)
				}
			case fi.Mode()&fs.ModeSymlink != 0:
				s.link, _ = os.Readlink(p)
			}
			s.xattrs = xattrs(p)
			m[p] = s
			return nil
		})
	}
	return m
}

// xattrs renders the extended attributes of p (not following symlinks).
func xattrs(p string) string {
	buf := make([]byte, 4096)
	n, err := unix.Llistxattr(p, buf)
	if err != nil || n == 0 {
		return ""
	}
	var out []string
	for name := range strings.SplitSeq(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		v := make([]byte, 4096)
		k, _ := unix.Lgetxattr(p, name, v)
		if k < 0 {
			k = 0
		}
		out = append(out, name+"="+string(v[:k]))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// changes lists how after differs from before.
func changes(before, after map[string]fileState) []string {
	var out []string
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s appeared (%v)", p, a.mode))
		case a.mode != b.mode:
			out = append(out, fmt.Sprintf("%s: mode %v -> %v", p, b.mode, a.mode))
		case a.uid != b.uid || a.gid != b.gid:
			out = append(out, fmt.Sprintf("%s: owner %d:%d -> %d:%d", p, b.uid, b.gid, a.uid, a.gid))
		case a.sum != b.sum || a.size != b.size:
			out = append(out, fmt.Sprintf("%s: contents changed (%d -> %d bytes)", p, b.size, a.size))
		case a.link != b.link:
			out = append(out, fmt.Sprintf("%s: symlink %q -> %q", p, b.link, a.link))
		case a.xattrs != b.xattrs:
			out = append(out, fmt.Sprintf("%s: xattrs %q -> %q", p, b.xattrs, a.xattrs))
		case a.mtime != b.mtime:
			out = append(out, fmt.Sprintf("%s: mtime %s -> %s", p, time.Unix(0, b.mtime).Format(time.RFC3339Nano), time.Unix(0, a.mtime).Format(time.RFC3339Nano)))
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p+" disappeared")
		}
	}
	slices.Sort(out)
	return out
}

// leaked lists the regular files under dir that hold one of the secrets.
func leaked(dir string, secrets map[string]string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 16<<20 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for name, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				out = append(out, fmt.Sprintf("%s holds the contents of %s", p, name))
			}
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// pids lists the live processes for which match returns true.
func pids(match func(pid string) bool) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		if match(e.Name()) {
			out = append(out, pid)
		}
	}
	return out
}

// marked lists the live processes whose initial environment holds the run's
// marker variable: every process of the run, unless it exec'd with another
// environment.
func marked(run string) []int {
	needle := []byte("\x00" + runVar + "=" + run + "\x00")
	return pids(func(pid string) bool {
		b, err := os.ReadFile("/proc/" + pid + "/environ")
		return err == nil && bytes.Contains(append([]byte{0}, b...), needle)
	})
}

// named lists the live processes whose argv[0] is name.
func named(name string) []int {
	return pids(func(pid string) bool {
		b, err := os.ReadFile("/proc/" + pid + "/cmdline")
		return err == nil && bytes.HasPrefix(b, []byte(name+"\x00"))
	})
}

// cmdline is the command line of pid, for messages.
func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// kill stops pid and reaps it when it is a child of the test (orphans are:
// the test binary is a subreaper).
func kill(pid int) {
	if pid <= 1 || pid == os.Getpid() {
		return
	}
	unix.Kill(pid, unix.SIGKILL)
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if got == pid || errors.Is(err, unix.ECHILD) && !alive(pid) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tracer returns the TracerPid of this process.
func tracer() int {
	b, _ := os.ReadFile("/proc/self/status")
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "TracerPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// mountsUnder lists the mount points under dir, from this process's view.
func mountsUnder(dir string) []string {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			out = append(out, f[4])
		}
	}
	return out
}

// listeners are the test's own servers on loopback; each counts what reaches
// it. The command must reach none of them.
type listeners struct {
	tcp4, tcp6, udp4, udp6, dns, unixPath, unixAbstract atomic.Int64
	closers                                             []func()
	wg                                                  sync.WaitGroup
	addr                                                map[string]string
}

func startListeners(t *testing.T, sockDir string) *listeners {
	l := &listeners{addr: map[string]string{}}
	stream := func(network, addr, key string, n *atomic.Int64) {
		ln, err := net.Listen(network, addr)
		if err != nil {
			t.Fatalf("listen %s %s: %v", network, addr, err)
		}
		l.addr[key] = ln.Addr().String()
		l.closers = append(l.closers, func() { ln.Close() })
		l.wg.Go(func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				n.Add(1)
				c.Close()
			}
		})
	}
	packet := func(network, addr, key string, n *atomic.Int64, dns bool) {
		pc, err := net.ListenPacket(network, addr)
		if err != nil {
			t.Fatalf("listen %s %s: %v", network, addr, err)
		}
		l.addr[key] = pc.LocalAddr().String()
		l.closers = append(l.closers, func() { pc.Close() })
		l.wg.Go(func() {
			buf := make([]byte, 2048)
			for {
				k, from, err := pc.ReadFrom(buf)
				if err != nil {
					return
				}
				n.Add(1)
				if dns && k > 12 {
					pc.WriteTo(dnsAnswer(buf[:k]), from)
				}
			}
		})
	}
	stream("tcp4", "127.0.0.1:0", "tcp4", &l.tcp4)
	stream("tcp6", "[::1]:0", "tcp6", &l.tcp6)
	packet("udp4", "127.0.0.1:0", "udp4", &l.udp4, false)
	packet("udp6", "[::1]:0", "udp6", &l.udp6, false)
	packet("udp4", "127.0.0.1:0", "dns", &l.dns, true)
	stream("unix", filepath.Join(sockDir, "agent.sock"), "unix", &l.unixPath)
	stream("unix", "@stockade-escape-"+randHex(8), "abstract", &l.unixAbstract)
	t.Cleanup(l.close)
	return l
}

func (l *listeners) close() {
	for _, c := range l.closers {
		c()
	}
	l.closers = nil
	l.wg.Wait()
}

// port returns the port of listener key.
func (l *listeners) port(key string) string {
	_, p, _ := net.SplitHostPort(l.addr[key])
	return p
}

// hits lists the listeners something reached.
func (l *listeners) hits() []string {
	var out []string
	for _, c := range []struct {
		name string
		n    *atomic.Int64
	}{
		{"TCP listener on 127.0.0.1 accepted %d connection(s)", &l.tcp4},
		{"TCP listener on ::1 accepted %d connection(s)", &l.tcp6},
		{"UDP listener on 127.0.0.1 received %d datagram(s)", &l.udp4},
		{"UDP listener on ::1 received %d datagram(s)", &l.udp6},
		{"DNS server on 127.0.0.1 received %d query(ies)", &l.dns},
		{"unix socket listener " + l.addr["unix"] + " accepted %d connection(s)", &l.unixPath},
		{"abstract unix socket listener " + l.addr["abstract"] + " accepted %d connection(s)", &l.unixAbstract},
	} {
		if n := c.n.Load(); n > 0 {
			out = append(out, fmt.Sprintf(c.name, n))
		}
	}
	return out
}

// dnsAnswer answers a query with 127.0.0.2, enough for a resolver to be happy.
func dnsAnswer(q []byte) []byte {
	a := append([]byte(nil), q...)
	a[2] |= 0x80 // QR
	a[7] = 1     // ANCOUNT = 1
	a[8], a[9], a[10], a[11] = 0, 0, 0, 0
	return append(a, 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 2)
}

// waitStatus renders how a process ended.
func waitStatus(ps *os.ProcessState) string {
	if ps == nil {
		return "not started"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by " + unix.SignalName(ws.Signal())
	}
	return fmt.Sprintf("exit status %d", ps.ExitCode())
}
