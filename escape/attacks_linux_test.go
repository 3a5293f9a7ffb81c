//go:build linux

package escape

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade/policy"
)

func run(t *testing.T, attacks []attack) {
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) { runAttack(t, a) })
	}
}

const outside = "outside the writable roots"

func TestWriteOutside(t *testing.T) {
	run(t, []attack{
		{name: "write-absolute", expect: outside, as: rootAndUser},
		{name: "write-dotdot", expect: outside},
		{name: "write-symlink", expect: outside},
		{name: "write-hardlink", expect: outside},
		{name: "rename-dir", expect: outside},
		{name: "truncate", expect: outside},
		{name: "mknod-outside", expect: outside},
		{name: "mkfifo-outside", expect: outside},
		{name: "write-proc-root", expect: outside},
		{name: "write-home", expect: outside},
		{name: "chmod-outside", expect: outside},
		{name: "utimes-outside", expect: outside},
		{name: "xattr-outside", expect: outside},
		{name: "mknod-device", expect: "device node", check: func(t *testing.T, e *env, r *result) []string {
			if fi, err := os.Lstat(filepath.Join(e.work, "dev")); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				return []string{"a device node was made in the workdir: " + fi.Mode().String()}
			}
			return nil
		}},
	})
}

func TestDenyRead(t *testing.T) {
	var attacks []attack
	for _, f := range homeFiles {
		if !f.secret || f.path == ".ssh/authorized_keys" {
			continue
		}
		attacks = append(attacks, attack{name: "deny-read/" + f.path, script: readScript(t, "deny-read"), expect: "~/" + f.path,
			vars: func(*testing.T, *env) map[string]string { return map[string]string{"SECRET": f.path} }})
	}
	attacks = append(attacks,
		attack{name: "deny-read-hardlink", expect: "~/.ssh/id_rsa"},
		attack{name: "deny-read-handle", expect: "~/.ssh/id_rsa"},
		attack{name: "proc-fd", expect: "~/.ssh/id_rsa", vars: func(t *testing.T, e *env) map[string]string {
			// The test holds the secret open while the command runs.
			f, err := os.Open(filepath.Join(e.home, ".ssh/id_rsa"))
			must(t, err)
			t.Cleanup(func() { f.Close() })
			return map[string]string{"FD": strconv.Itoa(int(f.Fd()))}
		}},
	)
	run(t, attacks)
}

func TestNetwork(t *testing.T) {
	to := func(host, key string) func(*testing.T, *env) map[string]string {
		return func(t *testing.T, e *env) map[string]string {
			return map[string]string{"HOST": host, "PORT": e.ln.port(key)}
		}
	}
	bind := func(host string) attack {
		var accepted atomic.Int64
		return attack{name: "tcp-bind-" + map[string]string{"127.0.0.1": "ipv4", "::1": "ipv6"}[host], script: readScript(t, "tcp-bind"),
			expect: "listened",
			vars: func(t *testing.T, e *env) map[string]string {
				accepted.Store(0)
				return map[string]string{"HOST": host, "PORT": freePort(t, host)}
			},
			during: func(e *env, stop <-chan struct{}) {
				// Keep dialling the port the command tries to listen on.
				addr := net.JoinHostPort(host, e.vars["PORT"])
				for {
					if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
						c.Close()
						if accepted.Add(1) == 1 {
							e.note("something in the command listened on %s (the test connected to it)", addr)
						}
					}
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}}
	}
	run(t, []attack{
		{name: "tcp-connect-ipv4", script: readScript(t, "tcp-connect"), expect: "TCP listener on 127.0.0.1", vars: to("127.0.0.1", "tcp4")},
		{name: "tcp-connect-ipv6", script: readScript(t, "tcp-connect"), expect: "TCP listener on ::1", vars: to("::1", "tcp6")},
		bind("127.0.0.1"),
		bind("::1"),
		{name: "udp-send-ipv4", script: readScript(t, "udp-send"), expect: "UDP listener on 127.0.0.1", vars: to("127.0.0.1", "udp4")},
		{name: "udp-send-ipv6", script: readScript(t, "udp-send"), expect: "UDP listener on ::1", vars: to("::1", "udp6")},
		{name: "dns", expect: "DNS server", vars: to("127.0.0.1", "dns")},
		{name: "raw-socket", expect: "UDP listener on 127.0.0.1", vars: to("127.0.0.1", "udp4")},
		{name: "packet-socket", expect: "loopback traffic", vars: func(t *testing.T, e *env) map[string]string {
			e.secrets["the test's own loopback traffic"] = "TRAFFIC-" + randHex(12)
			return nil
		}, during: func(e *env, stop <-chan struct{}) {
			// Datagrams to a port nobody listens on: they cross lo all the same.
			c, err := net.Dial("udp4", "127.0.0.1:"+strconv.Itoa(1+os.Getpid()%1000))
			if err != nil {
				return
			}
			defer c.Close()
			for {
				c.Write([]byte(e.secrets["the test's own loopback traffic"]))
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}},
		{name: "io-uring", expect: "UDP listener on 127.0.0.1", vars: to("127.0.0.1", "udp4")},
		{name: "unix-connect-path", script: readScript(t, "unix-connect"), expect: "unix socket listener /",
			vars: func(t *testing.T, e *env) map[string]string { return map[string]string{"SOCK": e.ln.addr["unix"]} }},
		{name: "unix-connect-abstract", script: readScript(t, "unix-connect"), expect: "abstract unix socket listener",
			vars: func(t *testing.T, e *env) map[string]string { return map[string]string{"SOCK": e.ln.addr["abstract"]} }},
	})
}

func TestProcesses(t *testing.T) {
	run(t, []attack{
		{name: "signal-test", expect: "SIGUSR1"},
		{name: "signal-victim", expect: "victim", as: rootAndUser},
		{name: "ptrace", expect: "traced"},
		{name: "proc-environ", expect: "canary"},
		{name: "proc-mem", expect: "canary"},
		{name: "kill-parent", expect: "supervisor (bash) was killed"},
		{name: "kill-all", expect: "victim", controlUID: freeUID(), before: requireSignalScope},
	})
}

func TestOutlive(t *testing.T) {
	run(t, []attack{
		{name: "outlive-background", expect: "outlived"},
		{name: "outlive-doublefork", expect: "outlived"},
		{name: "outlive-setsid", expect: "outlived"},
		{name: "outlive-nohup", expect: "outlived"},
		{name: "outlive-daemon", expect: "outlived"},
		{name: "outlive-holding-output", expect: "outlived", timeout: time.Second, limit: 6 * time.Second},
	})
}

func TestRootSyscalls(t *testing.T) {
	// inWorkdir finds the effect in a file of the workdir: want(e) in it.
	inWorkdir := func(file string, want func(e *env) string, format string) func(*testing.T, *env, *result) []string {
		return func(t *testing.T, e *env, r *result) []string {
			if s := fileHas(e, file); s != "" && strings.Contains(s, want(e)) {
				return []string{fmt.Sprintf(format, s)}
			}
			return nil
		}
	}
	mark := func(e *env) string { return e.mark }
	literal := func(s string) func(*env) string { return func(*env) string { return s } }
	run(t, []attack{
		{name: "read-locked", expect: "$OUT/locked", check: func(t *testing.T, e *env, r *result) []string {
			for line := range strings.SplitSeq(fileHas(e, "suid-status"), "\n") {
				if v, ok := strings.CutPrefix(line, "CapEff:"); ok && strings.Trim(v, "\t 0") != "" {
					return []string{"a setuid-root program ran with capabilities: CapEff " + strings.TrimSpace(v)}
				}
			}
			return nil
		}},
		{name: "userns", expect: "$OUT/root-locked"},
		{name: "mount", expect: "mounted"},
		{name: "chroot", expect: "chroot", check: inWorkdir("chrooted", literal("chrooted"), "a program ran after chroot (it wrote %q)")},
		{name: "sethostname", expect: "host name", ns: []string{"--uts"}, after: `uname -n > "$W/.after-hostname"`,
			check: inWorkdir(".after-hostname", mark, "the host name (of a UTS namespace of the test) is now %q")},
		{name: "proc-sys", expect: "domainname", ns: []string{"--uts"}, after: `cat /proc/sys/kernel/domainname > "$W/.after-domainname"`,
			check: inWorkdir(".after-domainname", mark, "kernel.domainname (of a UTS namespace of the test) is now %q")},
		{name: "netlink-admin", expect: "127.77.0.1", ns: []string{"--net"}, after: `ip -o addr show dev lo > "$W/.after-addr"`,
			check: inWorkdir(".after-addr", literal("127.77.0.1"), "an address was added to lo (in a network namespace of the test): %s")},
		{name: "init-module", expect: "capability check", check: func(t *testing.T, e *env, r *result) []string {
			switch errno := fileHas(e, "errno"); errno {
			case "ENOSYS":
				t.Skip("this kernel has no module support: init_module gives ENOSYS, with or without CAP_SYS_MODULE")
			case "EPERM", "":
			default:
				return []string{"init_module got past the capability check: " + errno}
			}
			return nil
		}},
	})
}

// TestForkBomb shows the process bound bites: a bounded loop of 300 forks
// without the sandbox and with it (its control), then a real fork bomb, only
// ever in the sandbox with max_processes = 200 and a timeout.
func TestForkBomb(t *testing.T) {
	var most atomic.Int64
	count := func(e *env, stop <-chan struct{}) {
		most.Store(0)
		for {
			if n := int64(len(named(e.mark))); n > most.Load() {
				most.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	bomb := attack{name: "fork-bomb", policy: "bounded.toml", timeout: 5 * time.Second, before: requireProcessBound,
		noControl: "an unbounded fork bomb outside a sandbox would take the host down; fork-bounded is its control",
		during: func(e *env, stop <-chan struct{}) {
			most.Store(0)
			fails := 0
			for {
				// The host must still start processes while the bomb runs.
				if err := exec.Command("true").Run(); err != nil {
					if fails++; fails == 1 {
						e.note("the host could not start a process while the bomb ran: %v", err)
					}
				}
				if n := int64(len(marked(e.run))); n > most.Load() {
					most.Store(n)
				}
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		},
		check: func(t *testing.T, e *env, r *result) []string {
			t.Logf("at most %d processes of the bomb at once (stockade itself included)", most.Load())
			if most.Load() > 202 {
				return []string{fmt.Sprintf("%d processes of the bomb ran at once, over the bound of 200", most.Load())}
			}
			if r.json != nil && !r.json.TimedOut {
				t.Errorf("the bomb should have run until the timeout: %+v", r.json)
			}
			return nil
		},
	}
	run(t, []attack{
		{name: "fork-bounded", policy: "bounded.toml", timeout: 20 * time.Second, expect: "sleepers", during: count, before: requireProcessBound,
			check: func(t *testing.T, e *env, r *result) []string {
				t.Logf("at most %d sleepers at once", most.Load())
				if most.Load() > 200 {
					return []string{fmt.Sprintf("%d sleepers ran at once, over the bound of 200", most.Load())}
				}
				return nil
			}},
		bomb,
	})
}

// TestPolicies checks the suite's policy files: stockade accepts them, and
// they leave the built-in [sandbox] as it is (bar the process bound), so the
// sandbox attacked is the one users get.
func TestPolicies(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	want := fmt.Sprintf("%+v", policy.Default().Sandbox)
	for file, bound := range map[string]int{"allow-all.toml": 0, "bounded.toml": 200} {
		path := filepath.Join(dataDir, file)
		if out, err := exec.Command(stockade, "policy", "lint", path).CombinedOutput(); err != nil {
			t.Errorf("stockade policy lint %s: %v\n%s", file, err, out)
		}
		p, err := policy.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Rules) != 0 || p.Default != policy.Allow {
			t.Errorf("%s: want no rules and default allow, got %d rules and default %s", file, len(p.Rules), p.Default)
		}
		sb := p.Sandbox
		if sb.MaxProcesses != bound {
			t.Errorf("%s: max_processes = %d, want %d", file, sb.MaxProcesses, bound)
		}
		sb.MaxProcesses = 0
		if got := fmt.Sprintf("%+v", sb); got != want {
			t.Errorf("%s: the sandbox is not the built-in one:\n got %s\nwant %s", file, got, want)
		}
	}
}

func readScript(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join(dataDir, name+".sh"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// freePort returns a TCP port nothing listens on at the moment.
func freePort(t *testing.T, host string) string {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, p, _ := net.SplitHostPort(l.Addr().String())
	return p
}

// requireSignalScope stops the test unless a sandboxed command provably cannot
// signal outside itself: kill -9 -1 as root would otherwise hit the whole host.
func requireSignalScope(t *testing.T) {
	cmd := exec.Command(stockade, "run", "--json", "--policy", filepath.Join(dataDir, "allow-all.toml"), "-c", `kill -0 "$TESTPID"`)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TESTPID=" + strconv.Itoa(os.Getpid())}
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err == nil || !strings.Contains(string(out), `"scopes": true`) {
		t.Fatalf("refusing to run kill -9 -1 in the sandbox: a sandboxed kill -0 of the test process was not refused (%v)\n%s", err, out)
	}
}

// requireProcessBound skips the test unless stockade bounds the processes of a
// command under bounded.toml on this host.
func requireProcessBound(t *testing.T) {
	cmd := exec.Command(stockade, "run", "--json", "--policy", filepath.Join(dataDir, "bounded.toml"), "-c", "true")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	cmd.Dir = t.TempDir()
	out, _ := cmd.Output()
	if !strings.Contains(string(out), `"max_procs": 200`) {
		t.Skipf("stockade does not bound processes on this host (no writable pids cgroup?):\n%s", out)
	}
}
