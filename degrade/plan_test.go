package degrade

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/sandbox"
)

var update = flag.Bool("update", false, "rewrite testdata/degrade/matrix.txt")

// Simulated hosts: the detection seam. Each stands for a kind of machine.
var hosts = map[string]Host{
	// This machine: Linux 6.18, everything.
	"abi7": {OS: "linux", Arch: "amd64", Kernel: "6.18.0", LandlockABI: 7, LandlockErrata: 7, LandlockErrataKnown: true,
		Seccomp: true, Root: true, SysAdmin: true, PidsCgroup: "/sys/fs/cgroup/pids"},
	// The same machine as root in a container without CAP_SYS_ADMIN (Docker's default).
	"abi7-container-root": {OS: "linux", Arch: "amd64", Kernel: "6.18.0", LandlockABI: 7, LandlockErrata: 7, LandlockErrataKnown: true,
		Seccomp: true, Root: true},
	// 6.12 LTS before the erratum 2 backport: go-landlock drops to 5.
	"abi6-no-erratum2": {OS: "linux", Arch: "amd64", Kernel: "6.12.0", LandlockABI: 6, Seccomp: true,
		PidsReason: "cgroup /sys/fs/cgroup/user.slice is not writable (not delegated to this user)"},
	// This machine as a plain user, where user namespaces are allowed.
	"abi7-user-userns": {OS: "linux", Arch: "amd64", Kernel: "6.18.0", LandlockABI: 7, LandlockErrata: 7, LandlockErrataKnown: true,
		Seccomp: true, UserNS: true},
	// The same where they are not (user.max_user_namespaces = 0).
	"abi7-user": {OS: "linux", Arch: "amd64", Kernel: "6.18.0", LandlockABI: 7, LandlockErrata: 7, LandlockErrataKnown: true,
		Seccomp: true, SeccompNotify: true, UserNSReason: "a user namespace cannot be made here (no space left on device): user.max_user_namespaces = 0"},
	// Ubuntu 24.04 (6.8): TCP rules, no device ioctl, no scopes.
	"abi4": {OS: "linux", Arch: "amd64", Kernel: "6.8.0", LandlockABI: 4, Seccomp: true, SeccompNotify: true},
	// Debian 12 (6.1).
	"abi3": {OS: "linux", Arch: "amd64", Kernel: "6.1.0", LandlockABI: 3, Seccomp: true,
		SeccompNotifyReason: "kernel.yama.ptrace_scope = 2: stockade may not read the command's memory"},
	// 5.19: refer, no truncate.
	"abi2": {OS: "linux", Arch: "arm64", Kernel: "5.19.0", LandlockABI: 2, Seccomp: true},
	// Landlock ABI 4 in a container whose profile blocks seccomp(2).
	"abi4-no-seccomp": {OS: "linux", Arch: "amd64", Kernel: "6.8.0", LandlockABI: 4, SeccompMode: 2,
		SeccompReason: "the seccomp system call fails with ENOSYS"},
	// A future kernel with UDP rules, but no seccomp.
	"abi11-no-seccomp": {OS: "linux", Arch: "amd64", Kernel: "7.9.0", LandlockABI: 12, LandlockErrata: 7, LandlockErrataKnown: true,
		SeccompReason: "the kernel is built without seccomp filters (CONFIG_SECCOMP_FILTER)"},
	// 5.10: no Landlock, seccomp only.
	"no-landlock": {OS: "linux", Arch: "amd64", Kernel: "5.10.0", Seccomp: true,
		LandlockReason: "kernel 5.10.0 predates landlock (5.13)"},
	// Nothing at all on Linux.
	"linux-nothing": {OS: "linux", Arch: "amd64", Kernel: "4.9.0", Root: true,
		LandlockReason: "kernel 4.9.0 predates landlock (5.13)", SeccompReason: "the kernel is built without seccomp (CONFIG_SECCOMP)"},
	"darwin":  {OS: "darwin", Arch: "arm64", LandlockReason: "landlock is a Linux security module", SeccompReason: "seccomp is a Linux feature", Root: true},
	"windows": {OS: "windows", Arch: "amd64", LandlockReason: "landlock is a Linux security module", SeccompReason: "seccomp is a Linux feature"},
}

func sb(mut func(*policy.Sandbox)) policy.Sandbox {
	s := policy.Default().Sandbox
	if mut != nil {
		mut(&s)
	}
	return s
}

var (
	bestEffort = func(s *policy.Sandbox) { s.Enforce = "best-effort" }
	netOn      = func(s *policy.Sandbox) { s.Network = "on"; s.UnixSockets = "allow" }
	fsOff      = func(s *policy.Sandbox) { s.Filesystem = "off" }
	readOnly   = func(s *policy.Sandbox) { s.Filesystem = "read-only" }
	bound      = func(s *policy.Sandbox) { s.MaxProcesses = 64 }
)

func all(fs ...func(*policy.Sandbox)) func(*policy.Sandbox) {
	return func(s *policy.Sandbox) {
		for _, f := range fs {
			f(s)
		}
	}
}

// TestPlanIPCNamespace: an IPC namespace where the child will have
// CAP_SYS_ADMIN, and the report says what stands in for it elsewhere.
func TestPlanIPCNamespace(t *testing.T) {
	for host, want := range map[string]string{"abi7": "seccomp + ipc namespace", "abi7-container-root": "seccomp", "abi4": "seccomp + supervisor", "abi3": "seccomp"} {
		spec, rep, err := Plan(hosts[host], sb(nil), "/work", "/tmp/s")
		if err != nil {
			t.Fatal(err)
		}
		p, _ := rep.Get(KernelObjects)
		if p.Status != Enforced || p.By != want || spec.IPCNamespace != (want == "seccomp + ipc namespace") {
			t.Errorf("%s: kernel-objects %s by %q (%s), ipc namespace %v; want enforced by %q", host, p.Status, p.By, p.Note, spec.IPCNamespace, want)
		}
		if want == "seccomp" && !strings.Contains(p.Note, "System V IPC is refused") {
			t.Errorf("%s: the note does not say System V IPC is refused: %q", host, p.Note)
		}
		if want == "seccomp + supervisor" && (!spec.SysVSupervised || !strings.Contains(p.Note, "System V IPC goes through stockade's supervisor")) {
			t.Errorf("%s: System V IPC is not supervised, or the note does not say so: %v %q", host, spec.SysVSupervised, p.Note)
		}
	}
}

// TestPlanPIDNamespace: a PID namespace where the child will have
// CAP_SYS_ADMIN (root), or a user namespace (a plain user's session, whose
// zygote is its init), said in the containment line's note; elsewhere
// containment is what it was.
func TestPlanPIDNamespace(t *testing.T) {
	for host, want := range map[string]bool{"abi7": true, "abi7-container-root": false, "abi7-user-userns": true, "abi4": false} {
		spec, rep, err := Plan(hosts[host], sb(nil), "/work", "/tmp/s")
		if err != nil {
			t.Fatal(err)
		}
		p, _ := rep.Get(Containment)
		if spec.PIDNamespace != want || p.Status != Enforced || p.By != "process group + subreaper" ||
			strings.Contains(p.Note, "pid namespace") != want {
			t.Errorf("%s: pid namespace %v, containment %s by %q (%q); want a pid namespace: %v", host, spec.PIDNamespace, p.Status, p.By, p.Note, want)
		}
	}
}

// TestPlanProcessBound: a default bound wherever the host has one, never a
// reason to refuse; the policy's own bound is required.
func TestPlanProcessBound(t *testing.T) {
	cases := []struct {
		host     string
		max      int
		status   Status
		by       string
		maxProcs int
		nproc    int
		refused  bool
	}{
		{"abi7", 0, Enforced, "pids cgroup", 1024, 0, false},
		{"abi7", 64, Enforced, "pids cgroup", 64, 0, false},
		{"abi6-no-erratum2", 0, Partial, "RLIMIT_NPROC", 0, 1024, false},
		{"abi6-no-erratum2", 64, Partial, "RLIMIT_NPROC", 0, 64, true},
		{"abi7-container-root", 0, NotEnforced, "", 0, 0, false},
		{"abi7-container-root", 64, NotEnforced, "", 0, 0, true},
		{"darwin", 0, NotEnforced, "", 0, 0, false},
	}
	for _, c := range cases {
		want := sb(func(s *policy.Sandbox) {
			s.MaxProcesses = c.max
			s.Enforce = "strict"
			s.Filesystem = "off"
			s.Network = "on"
			s.UnixSockets = "allow"
		})
		spec, rep, err := Plan(hosts[c.host], want, "/work", "/tmp/s")
		p, _ := rep.Get(ProcessBound)
		name := fmt.Sprintf("%s max_processes=%d", c.host, c.max)
		if p.Status != c.status || p.By != c.by || p.Required != (c.max > 0) {
			t.Errorf("%s: %s by %q required %v (%s); want %s by %q required %v", name, p.Status, p.By, p.Required, p.Note, c.status, c.by, c.max > 0)
		}
		if spec.MaxProcs != c.maxProcs || spec.NprocLimit != c.nproc {
			t.Errorf("%s: spec bound %d, nproc %d; want %d, %d", name, spec.MaxProcs, spec.NprocLimit, c.maxProcs, c.nproc)
		}
		var r *Refusal
		if refused := errors.As(err, &r) && slices.ContainsFunc(r.Missing, func(m Protection) bool { return m.Name == ProcessBound }); refused != c.refused {
			t.Errorf("%s: refused for the process bound: %v, want %v (%v)", name, refused, c.refused, err)
		}
		if c.max == 0 && !strings.Contains(p.Note, "default bound") {
			t.Errorf("%s: the note does not say the bound is the default: %q", name, p.Note)
		}
	}
}

func TestPlan(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	type mech struct {
		abi                       int
		seccomp, scopes, dropCaps bool
		maxProcs                  int
		netOff, unixOff           bool
		fs                        sandbox.FSMode
	}
	tests := []struct {
		host    string
		policy  func(*policy.Sandbox)
		spec    mech
		status  map[string]Status // only the protections named
		full    bool
		refused []string // names in the *Refusal, nil: no refusal
	}{
		{host: "abi7", spec: mech{abi: 7, seccomp: true, scopes: true, dropCaps: true, maxProcs: 1024, netOff: true, unixOff: true, fs: "workspace-write"},
			status: map[string]Status{FSWrite: Enforced, DenyRead: Enforced, NetworkTCP: Enforced, NetworkOther: Enforced,
				UnixSockets: Enforced, DeviceIoctl: Enforced, Signals: Enforced, KernelObjects: Enforced, Containment: Enforced, ProcessBound: Enforced, EnvScrub: Enforced},
			full: true},
		{host: "abi7", policy: bound, spec: mech{abi: 7, seccomp: true, scopes: true, dropCaps: true, maxProcs: 64, netOff: true, unixOff: true, fs: "workspace-write"},
			status: map[string]Status{ProcessBound: Enforced}, full: true},
		{host: "abi7", policy: all(netOn, fsOff), spec: mech{abi: 7, seccomp: true, scopes: true, dropCaps: true, maxProcs: 1024, fs: "off"},
			status: map[string]Status{FSWrite: Off, DenyRead: Enforced, NetworkTCP: Off, NetworkOther: Off, UnixSockets: Off, DeviceIoctl: Off, Signals: Enforced},
			full:   true},
		{host: "abi7", policy: all(netOn, func(s *policy.Sandbox) { s.UnixSockets = "deny" }),
			spec:   mech{abi: 7, seccomp: true, scopes: true, dropCaps: true, maxProcs: 1024, unixOff: true, fs: "workspace-write"},
			status: map[string]Status{NetworkTCP: Off, UnixSockets: Enforced}, full: true},
		// The erratum lowers the ABI; the default policy still gets everything it requires.
		{host: "abi6-no-erratum2", spec: mech{abi: 5, seccomp: true, netOff: true, unixOff: true, fs: "workspace-write"},
			status: map[string]Status{FSWrite: Enforced, UnixSockets: Enforced, DeviceIoctl: Enforced, Signals: Partial}, full: true},
		{host: "abi6-no-erratum2", policy: bound, spec: mech{abi: 5, seccomp: true, netOff: true, unixOff: true, fs: "workspace-write"},
			status: map[string]Status{ProcessBound: Partial}, refused: []string{ProcessBound}},
		{host: "abi4", spec: mech{abi: 4, seccomp: true, netOff: true, unixOff: true, fs: "workspace-write"},
			status: map[string]Status{FSWrite: Enforced, NetworkTCP: Enforced, DeviceIoctl: NotEnforced, Signals: Partial}, full: true},
		{host: "abi3", policy: readOnly, spec: mech{abi: 3, seccomp: true, netOff: true, unixOff: true, fs: "read-only"},
			status: map[string]Status{FSWrite: Enforced, NetworkTCP: Enforced}, full: true},
		// No truncate control: fs-write is partial, and strict refuses.
		{host: "abi2", spec: mech{abi: 2, seccomp: true, netOff: true, unixOff: true, fs: "workspace-write"},
			status: map[string]Status{FSWrite: Partial, DenyRead: Enforced}, refused: []string{FSWrite}},
		{host: "abi2", policy: bestEffort, spec: mech{abi: 2, seccomp: true, netOff: true, unixOff: true, fs: "workspace-write"},
			status: map[string]Status{FSWrite: Partial}},
		{host: "abi2", policy: fsOff, spec: mech{abi: 2, seccomp: true, netOff: true, unixOff: true, fs: "off"},
			status: map[string]Status{FSWrite: Off}, full: true},
		// Network off by Landlock TCP rules alone; nothing to refuse unix sockets with.
		{host: "abi4-no-seccomp", spec: mech{abi: 4, netOff: true, fs: "workspace-write"},
			status:  map[string]Status{NetworkTCP: Partial, NetworkOther: NotEnforced, UnixSockets: NotEnforced, KernelObjects: NotEnforced},
			refused: []string{NetworkTCP, NetworkOther, UnixSockets}},
		{host: "abi11-no-seccomp", policy: bestEffort, spec: mech{abi: 11, scopes: true, netOff: true, fs: "workspace-write"},
			status: map[string]Status{NetworkTCP: Partial, NetworkOther: Partial, UnixSockets: Partial}},
		// No Landlock: the spec carries no filesystem rule (Apply would refuse
		// one); the report says fs-write and deny-read are not enforced, and
		// strict refuses.
		{host: "no-landlock", spec: mech{seccomp: true, netOff: true, unixOff: true, fs: "off"},
			status:  map[string]Status{FSWrite: NotEnforced, DenyRead: NotEnforced, NetworkTCP: Enforced, NetworkOther: Enforced, Signals: NotEnforced},
			refused: []string{FSWrite, DenyRead}},
		{host: "no-landlock", policy: bestEffort, spec: mech{seccomp: true, netOff: true, unixOff: true, fs: "off"},
			status: map[string]Status{FSWrite: NotEnforced, DenyRead: NotEnforced, DeviceIoctl: NotEnforced, NetworkTCP: Enforced}},
		{host: "no-landlock", policy: fsOff, spec: mech{seccomp: true, netOff: true, unixOff: true, fs: "off"}, full: true},
		{host: "linux-nothing", policy: bestEffort, spec: mech{dropCaps: true, fs: "off"},
			status: map[string]Status{FSWrite: NotEnforced, NetworkTCP: NotEnforced, Signals: Partial, Containment: Enforced}},
		{host: "darwin", refused: []string{FSWrite, DenyRead, NetworkTCP, NetworkOther, UnixSockets},
			spec:   mech{fs: "off"},
			status: map[string]Status{Signals: NotEnforced, Containment: Partial, EnvScrub: Enforced}},
		// Root on darwin: nothing to drop capabilities with.
		{host: "darwin", policy: all(bestEffort, bound), spec: mech{fs: "off"},
			status: map[string]Status{FSWrite: NotEnforced, ProcessBound: NotEnforced}},
		{host: "darwin", policy: all(netOn, fsOff), spec: mech{fs: "off"}, full: true},
		{host: "windows", policy: bestEffort, spec: mech{fs: "off"},
			status: map[string]Status{Containment: NotEnforced}},
	}
	for _, tt := range tests {
		want := sb(tt.policy)
		name := fmt.Sprintf("%s/%s,%s,%s,%s,max=%d", tt.host, want.Filesystem, want.Network, want.UnixSockets, want.Enforce, want.MaxProcesses)
		t.Run(name, func(t *testing.T) {
			h, ok := hosts[tt.host]
			if !ok {
				t.Fatalf("no host %q", tt.host)
			}
			spec, rep, err := Plan(h, want, "/work", "/tmp/s")
			got := mech{spec.LandlockABI, spec.Seccomp, spec.Scopes, spec.DropCaps, spec.MaxProcs, spec.NetworkOff, spec.UnixSocketsOff, spec.FS}
			if got != tt.spec {
				t.Errorf("spec mechanisms:\n got %+v\nwant %+v", got, tt.spec)
			}
			for n, st := range tt.status {
				p, ok := rep.Get(n)
				if !ok || p.Status != st {
					t.Errorf("%s: got %q (%s), want %q", n, p.Status, p.Note, st)
				}
			}
			if rep.Full != tt.full {
				t.Errorf("Full = %v, want %v (missing %v)", rep.Full, tt.full, rep.Missing())
			}
			var r *Refusal
			switch {
			case tt.refused == nil && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.refused != nil && !errors.As(err, &r):
				t.Fatalf("want a *Refusal, got %v", err)
			case r != nil:
				var names []string
				for _, p := range r.Missing {
					names = append(names, p.Name)
				}
				if !reflect.DeepEqual(names, tt.refused) {
					t.Errorf("refused for %v, want %v", names, tt.refused)
				}
				if r.Why == "" {
					t.Errorf("refusal without a reason")
				}
			}
			// Invariants over every case.
			if len(rep.Protections) != 12 {
				t.Errorf("%d protections, want 12", len(rep.Protections))
			}
			for _, p := range rep.Protections {
				if (p.Status == Enforced || p.Status == Partial) && p.By == "" {
					t.Errorf("%s is %s by nothing", p.Name, p.Status)
				}
				if (p.Status == Partial || p.Status == NotEnforced) && p.Note == "" {
					t.Errorf("%s is %s without a note saying what is open", p.Name, p.Status)
				}
				if p.Status == Off && p.Required {
					t.Errorf("%s is off but required", p.Name)
				}
			}
			if h.OS != "linux" && (spec.LandlockABI != 0 || spec.Seccomp || spec.Scopes || spec.DropCaps || spec.MaxProcs != 0) {
				t.Errorf("%s spec asks for a Linux mechanism: %+v", h.OS, spec)
			}
			if rep.Enforce != want.Enforce {
				t.Errorf("report enforce %q, want %q", rep.Enforce, want.Enforce)
			}
		})
	}
}

// TestMatrix checks every simulated host against every filesystem mode, with the
// default policy in best-effort, against the expectation table in
// testdata/degrade/matrix.txt. Run with -update after a deliberate change and
// read the diff.
func TestMatrix(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	var b strings.Builder
	b.WriteString("# host × filesystem mode -> status of each protection (E enforced, P partial, N not enforced, - off)\n")
	b.WriteString("# then what strict would do. Generated by TestMatrix -update; review the diff.\n")
	names := []string{}
	for n := range hosts {
		names = append(names, n)
	}
	slices.Sort(names)
	_, rep0, _ := Plan(hosts["abi7"], sb(nil), "/w", "/t")
	fmt.Fprintf(&b, "%-18s %-16s", "host", "mode")
	for _, p := range rep0.Protections {
		fmt.Fprintf(&b, " %s", p.Name)
	}
	b.WriteString("  strict\n")
	for _, hn := range names {
		for _, mode := range []string{"read-only", "workspace-write", "off"} {
			want := sb(func(s *policy.Sandbox) { s.Filesystem = mode })
			_, rep, err := Plan(hosts[hn], want, "/w", "/t")
			if err != nil {
				var r *Refusal
				if !errors.As(err, &r) {
					t.Fatal(err)
				}
			}
			fmt.Fprintf(&b, "%-18s %-16s", hn, mode)
			for _, p := range rep.Protections {
				fmt.Fprintf(&b, " %-*s", len(p.Name), letter(p.Status))
			}
			if err != nil {
				b.WriteString("  refuse\n")
			} else {
				b.WriteString("  run\n")
			}
		}
	}
	golden := filepath.Join("..", "testdata", "degrade", "matrix.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(old) != b.String() {
		t.Errorf("matrix differs from %s (rerun with -update and review the diff):\n%s", golden, b.String())
	}
}

func letter(s Status) string {
	switch s {
	case Enforced:
		return "E"
	case Partial:
		return "P"
	case NotEnforced:
		return "N"
	}
	return "-"
}

func TestRefusalMessage(t *testing.T) {
	_, _, err := Plan(hosts["darwin"], sb(bound), "/w", "/t")
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("got %v, want a *Refusal", err)
	}
	msg := err.Error()
	for _, s := range []string{"fs-write", "network-other", "process-bound", "no landlock on darwin", "no seccomp on darwin"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q does not mention %q", msg, s)
		}
	}
	if msg != strings.ToLower(msg[:1])+msg[1:] || strings.HasSuffix(msg, ".") {
		t.Errorf("error %q: want lowercase start and no trailing period", msg)
	}
	hints := r.Hints()
	wantHints := []string{
		`enforce = "best-effort" in [sandbox]`,
		`filesystem = "off"`,
		`network = "on"`,
		`unix_sockets = "allow"`,
		`max_processes = 0`,
		`stockade doctor`,
	}
	joined := strings.Join(hints, "\n")
	for _, w := range wantHints {
		if !strings.Contains(joined, w) {
			t.Errorf("hints do not mention %q:\n%s", w, joined)
		}
	}
	if len(hints) != len(wantHints) {
		t.Errorf("%d hints, want %d (one per change, no repeats):\n%s", len(hints), len(wantHints), joined)
	}
}

func TestSummary(t *testing.T) {
	_, rep, err := Plan(hosts["abi4-no-seccomp"], sb(bestEffort), "/w", "/t")
	if err != nil {
		t.Fatal(err)
	}
	want := "best-effort: partial: network-tcp; not enforced: network-other, unix-sockets"
	if got := rep.Summary(); got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

func TestPlanPaths(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	tests := []struct {
		in, want string
		err      bool
	}{
		{in: "~/.ssh", want: "/home/u/.ssh"},
		{in: "~", want: "/home/u"},
		{in: "$HOME/.aws", want: "/home/u/.aws"},
		{in: "${HOME}/.kube/", want: "/home/u/.kube"},
		{in: "/etc/shadow", want: "/etc/shadow"},
		{in: "/a/../b", want: "/b"},
		{in: "build", want: "/work/build"},
		{in: "~other/.ssh", err: true},
		{in: "$XDG_CONFIG_HOME/gh", err: true},
		{in: "", err: true},
	}
	for _, tt := range tests {
		_, _, err := Plan(hosts["abi7"], sb(func(s *policy.Sandbox) { s.DenyRead = []string{tt.in} }), "/work", "/t")
		spec, _, err2 := Plan(hosts["abi7"], sb(func(s *policy.Sandbox) { s.WritableRoots = []string{tt.in} }), "/work", "/t")
		if tt.err {
			if err == nil || err2 == nil {
				t.Errorf("%q: want an error, got %v and %v", tt.in, err, err2)
			}
			continue
		}
		if err != nil || err2 != nil {
			t.Errorf("%q: %v, %v", tt.in, err, err2)
			continue
		}
		if len(spec.WritableRoots) != 1 || spec.WritableRoots[0] != tt.want {
			t.Errorf("%q: got %v, want %s", tt.in, spec.WritableRoots, tt.want)
		}
	}

	t.Setenv("HOME", "")
	if _, _, err := Plan(hosts["abi7"], sb(nil), "/work", "/t"); err == nil || !strings.Contains(err.Error(), "$HOME") {
		t.Errorf("deny_read with ~ and no $HOME: got %v, want an error naming $HOME", err)
	}
}

func TestPlanRejectsUnknownValues(t *testing.T) {
	for _, mut := range []func(*policy.Sandbox){
		func(s *policy.Sandbox) { s.Filesystem = "workspace_write" },
		func(s *policy.Sandbox) { s.Network = "none" },
		func(s *policy.Sandbox) { s.UnixSockets = "no" },
		func(s *policy.Sandbox) { s.Enforce = "besteffort" },
		func(s *policy.Sandbox) { s.MaxProcesses = -1 },
	} {
		want := sb(mut)
		_, _, err := Plan(hosts["abi7"], want, "/w", "/t")
		var r *Refusal
		if err == nil || errors.As(err, &r) {
			t.Errorf("%+v: got %v, want a plain error", want, err)
		}
	}
	// Empty fields are the defaults, which are the strictest.
	spec, rep, err := Plan(hosts["abi7"], policy.Sandbox{}, "/w", "/t")
	if err != nil || spec.FS != sandbox.FSWorkspaceWrite || !spec.NetworkOff || !spec.UnixSocketsOff || rep.Enforce != "strict" {
		t.Errorf("empty sandbox table: got %+v, %v, %v", spec, rep.Enforce, err)
	}
}

// TestPlanSpecsApply checks that every spec Plan returns, for every simulated
// host and every combination of the sandbox settings, is one sandbox.Apply
// accepts: best-effort must be able to run whatever the host lacks, and what
// the host lacks must show in the report, not as a spec the child refuses.
func TestPlanSpecsApply(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	names := slices.Sorted(maps.Keys(hosts))
	for _, hn := range names {
		h := hosts[hn]
		for _, fs := range []string{"read-only", "workspace-write", "off"} {
			for _, network := range []string{"off", "on"} {
				for _, unixSockets := range []string{"deny", "allow"} {
					for _, enforce := range []string{"strict", "best-effort"} {
						for _, maxProcs := range []int{0, 64} {
							want := sb(func(s *policy.Sandbox) {
								s.Filesystem, s.Network, s.UnixSockets, s.Enforce, s.MaxProcesses = fs, network, unixSockets, enforce, maxProcs
								s.WritableRoots = []string{"~/.cache"}
								s.ReadableRoots = []string{"/usr", "/etc"}
							})
							name := fmt.Sprintf("%s/%s,%s,%s,%s,max=%d", hn, fs, network, unixSockets, enforce, maxProcs)
							spec, rep, err := Plan(h, want, "/work", "/tmp/s")
							var r *Refusal
							if err != nil && !errors.As(err, &r) {
								t.Errorf("%s: %v", name, err)
								continue
							}
							if (r != nil) != (enforce == "strict" && !rep.Full) {
								t.Errorf("%s: refusal %v with full = %v", name, err, rep.Full)
							}
							if err := sandbox.Validate(spec); err != nil {
								t.Errorf("%s: sandbox.Validate: %v\nspec %+v", name, err, spec)
							}
							// The report never claims what the spec does not carry.
							fw, _ := rep.Get(FSWrite)
							dr, _ := rep.Get(DenyRead)
							tcp, _ := rep.Get(NetworkTCP)
							if (fw.Status == Enforced || fw.Status == Partial) && (spec.FS == sandbox.FSOff || spec.LandlockABI == 0) {
								t.Errorf("%s: fs-write %s, but the spec has filesystem mode %q at landlock abi %d", name, fw.Status, spec.FS, spec.LandlockABI)
							}
							if dr.Status == Enforced && (len(spec.DenyRead) == 0 || spec.LandlockABI == 0) {
								t.Errorf("%s: deny-read enforced, but the spec has deny-read %q at landlock abi %d", name, spec.DenyRead, spec.LandlockABI)
							}
							if (tcp.Status == Enforced || tcp.Status == Partial) && !spec.NetworkOff {
								t.Errorf("%s: network-tcp %s, but the spec does not turn the network off", name, tcp.Status)
							}
						}
					}
				}
			}
		}
	}
}

// As root, Landlock leaves a file's mode, times and extended attributes open;
// the report says whether read-only mounts close that.
func TestFSWriteAsRoot(t *testing.T) {
	for _, tt := range []struct {
		host, by, note string
	}{
		{host: "abi7", by: "landlock abi 7 + read-only mounts"},
		{host: "abi7-container-root", by: "landlock abi 7", note: "as root without CAP_SYS_ADMIN"},
		{host: "abi4", by: "landlock abi 4"},
	} {
		_, rep, err := Plan(hosts[tt.host], sb(nil), "/work", "/tmp/s")
		if err != nil {
			t.Fatalf("%s: %v", tt.host, err)
		}
		p, _ := rep.Get(FSWrite)
		if p.Status != Enforced || p.By != tt.by || tt.note == "" && strings.Contains(p.Note, "root") || !strings.Contains(p.Note, tt.note) {
			t.Errorf("%s: fs-write %s by %q, note %q; want enforced by %q, note with %q", tt.host, p.Status, p.By, p.Note, tt.by, tt.note)
		}
	}
}
