package degrade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/sandbox"
)

// Plan turns what the policy requires into the spec to apply on host h, and
// reports what will and will not be enforced.
//
// With enforce = "strict" (the default), a required protection the host cannot
// fully give makes Plan return a *Refusal; the spec and report it returns with
// it describe what best-effort would get, and nothing may run. With enforce =
// "best-effort", Plan returns the weaker spec and a report with Full false.
// Any other error (an unknown value, a path that cannot be expanded) also means
// nothing may run.
//
// An empty field of want means its default: workspace-write, network off, unix
// sockets denied, strict. Paths may start with ~/, $HOME/ or ${HOME}/; relative
// paths are taken from workdir.
func Plan(h Host, want policy.Sandbox, workdir, tmpdir string) (sandbox.Spec, Report, error) {
	p, err := newPlanning(h, want, workdir, tmpdir)
	if err != nil {
		return sandbox.Spec{}, Report{}, err
	}
	rep := Report{Enforce: p.want.Enforce, Host: h.String()}
	for _, row := range protections {
		pr := row.plan(p)
		pr.Name = row.name
		rep.Protections = append(rep.Protections, pr)
	}
	missing := rep.Missing()
	rep.Full = len(missing) == 0
	if !rep.Full && p.want.Enforce == policy.EnforceStrict {
		return p.spec, rep, &Refusal{Missing: missing, Why: why(h, missing)}
	}
	return p.spec, rep, nil
}

// protections are the lines of the report, in order, each with the function
// that plans it from what the host has and the policy wants.
var protections = []struct {
	name string
	plan func(*planning) Protection
}{
	{FSWrite, planFSWrite},
	{DenyRead, planDenyRead},
	{NetworkTCP, planNetworkTCP},
	{NetworkOther, planNetworkOther},
	{UnixSockets, planUnixSockets},
	{DeviceIoctl, planDeviceIoctl},
	{Signals, planSignals},
	{KernelObjects, planKernelObjects},
	{ProtectedFiles, planProtectedFiles},
	{Containment, planContainment},
	{ProcessBound, planProcessBound},
	{EnvScrub, planEnvScrub},
}

// planning is what the planners read: the host, what the policy wants (its
// defaults filled in), and the spec that will be applied.
type planning struct {
	h    Host
	want policy.Sandbox
	spec sandbox.Spec

	abi     int    // the Landlock ABI the spec restricts with
	abiNote string // why abi differs from what the kernel reports
	ll      string // "landlock abi N", for By
	linux   bool
	// userns: a plain user's namespaces come with a user namespace of the
	// sandbox's own (the zygote starts in one).
	userns bool

	fsOn     bool
	netOff   bool // network off or allowlist
	netns    bool // the session gets a network namespace of its own
	netnsWhy string
	// supervised: allowlist without a namespace, through the connect
	// supervisor (seccomp user notification).
	supervised bool
	// proxyPort: allowlist with neither, where Landlock has TCP rules and
	// seccomp keeps other sockets closed: connects to the proxy's port only,
	// on any address (partial).
	proxyPort bool
	unixOff   bool

	bound         int  // the process bound, the policy's or the default
	boundRequired bool // the policy asks for it
}

// newPlanning checks want, expands its paths and builds the spec. The spec
// asks only for what this host can apply: sandbox.Apply refuses a mechanism it
// has no means for. What the policy wants and the spec cannot carry shows in
// the report as not enforced; under strict, Plan's refusal keeps anything
// from running.
func newPlanning(h Host, want policy.Sandbox, workdir, tmpdir string) (*planning, error) {
	want, err := normalize(want)
	if err != nil {
		return nil, err
	}
	writable, err := expandAll("writable_roots", want.WritableRoots, workdir)
	if err != nil {
		return nil, err
	}
	readable, err := expandAll("readable_roots", want.ReadableRoots, workdir)
	if err != nil {
		return nil, err
	}
	deny, err := expandAll("deny_read", want.DenyRead, workdir)
	if err != nil {
		return nil, err
	}
	protected, err := expandAll("protected", want.Protected, workdir)
	if err != nil {
		return nil, err
	}
	if workdir != "" {
		protected = append(sandbox.GitProtected(workdir), protected...)
	}

	p := &planning{h: h, want: want, linux: h.OS == "linux"}
	p.userns = p.linux && !h.Root && h.UserNS
	p.abi, p.abiNote = h.EffectiveABI()
	p.ll = fmt.Sprintf("landlock abi %d", p.abi)
	p.fsOn = want.Filesystem != string(sandbox.FSOff)
	// allowlist is network off plus the egress proxy, which a command
	// reaches in a network namespace, or through the connect supervisor
	// where there is none; without either, nothing is reachable (fail closed).
	p.netOff = want.Network == policy.NetworkOff || want.Network == policy.NetworkAllowlist
	p.netns, p.netnsWhy = h.NetNS()
	p.netns = p.netns && p.netOff
	p.supervised = want.Network == policy.NetworkAllowlist && !p.netns && p.linux && h.Seccomp && h.SeccompNotify
	p.proxyPort = want.Network == policy.NetworkAllowlist && !p.netns && !p.supervised && p.linux && h.Seccomp && p.abi >= hostfacts.ABITCP
	p.unixOff = want.UnixSockets == policy.UnixSocketsDeny

	p.spec = sandbox.Spec{
		FS: sandbox.FSMode(want.Filesystem), Workdir: workdir, TmpDir: tmpdir,
		WritableRoots: writable, ReadableRoots: readable, DenyRead: deny, Protected: protected,
		LandlockABI:    p.abi,
		NetworkOff:     p.netOff && (h.Seccomp || p.abi >= hostfacts.ABITCP || p.netns),
		NetNS:          p.netns,
		Supervised:     p.supervised,
		ProxyPortOnly:  p.proxyPort,
		UnixSocketsOff: p.unixOff && h.Seccomp,
		Seccomp:        h.Seccomp,
		IPCNamespace:   p.linux && (h.SysAdmin || p.userns),
		SysVSupervised: p.linux && h.Seccomp && h.SeccompNotify,
		PIDNamespace:   p.linux && (h.SysAdmin || p.userns),
		UserNS:         p.userns,
		Scopes:         p.abi >= hostfacts.ABIScopes,
		DropCaps:       p.linux && (h.Root || p.userns),
	}
	if p.abi == 0 {
		// No Landlock: no filesystem rule can be applied.
		p.spec.FS = sandbox.FSOff
		p.spec.WritableRoots, p.spec.ReadableRoots, p.spec.DenyRead = nil, nil, nil
	}
	// The process bound: the policy's, required; or the default one, where
	// the host can enforce it. RLIMIT_NPROC stands in for a missing pids
	// cgroup where it binds (not for uid 0).
	p.bound, p.boundRequired = want.MaxProcesses, want.MaxProcesses > 0
	if !p.boundRequired {
		p.bound = policy.DefaultMaxProcesses
	}
	switch {
	case h.PidsCgroup != "":
		p.spec.MaxProcs = p.bound
	case p.linux && !h.Root:
		p.spec.NprocLimit = p.bound
	}
	return p, nil
}

// nsBy is how a namespace is named in By: with "(in a user namespace)"
// where that is where it comes from.
func (p *planning) nsBy(ns string) string {
	if p.userns {
		return ns + " (in a user namespace)"
	}
	return ns
}

// without is what is left open below Landlock ABI abi.
func without(abi int) string { return hostfacts.ABIs[abi].Without }

func planFSWrite(p *planning) Protection {
	switch {
	case !p.fsOn:
		return Protection{Status: Off, Note: `filesystem = "off"`}
	case p.abi == 0:
		return Protection{Status: NotEnforced, Required: true, Note: p.h.LandlockWhy()}
	}
	by, rootNote := fsWriteAsRoot(p.h, p.ll, p.userns)
	if p.abi < hostfacts.ABITruncate {
		note := without(hostfacts.ABITruncate)
		if p.abi < hostfacts.ABIRefer {
			note += "; " + without(hostfacts.ABIRefer)
		}
		return Protection{Status: Partial, Required: true, By: by, Note: join(note, p.abiNote, rootNote)}
	}
	return Protection{Status: Enforced, Required: true, By: by, Note: join(erratumNote(p.h, p.abi), p.abiNote, rootNote)}
}

func planDenyRead(p *planning) Protection {
	switch {
	case len(p.want.DenyRead) == 0:
		return Protection{Status: Off, Note: "deny_read is empty"}
	case !p.fsOn && p.abi == 0:
		return Protection{Status: Off, Note: `filesystem = "off" and ` + p.h.LandlockWhy() + `: deny_read is not applied`}
	case !p.fsOn:
		// Not required, but the secrets stay unreadable where the kernel can do it.
		return Protection{Status: Enforced, By: p.ll, Note: `applied although filesystem = "off"`}
	case p.abi == 0:
		return Protection{Status: NotEnforced, Required: true, Note: p.h.LandlockWhy()}
	}
	return Protection{Status: Enforced, Required: true, By: p.ll}
}

func planNetworkTCP(p *planning) Protection {
	switch {
	case !p.netOff:
		return Protection{Status: Off, Note: `network = "on"`}
	case p.netns:
		tcp := Protection{Status: Enforced, Required: true, By: p.nsBy("network namespace"),
			Note: "the session has a loopback of its own; nothing else is reachable"}
		if p.want.Network == policy.NetworkAllowlist {
			tcp.Note = "the session has a loopback of its own; other hosts only by name, through stockade's proxy"
		}
		return tcp
	}
	tcp := Protection{Required: true}
	switch {
	case p.supervised:
		tcp.Status, tcp.By = Enforced, hostfacts.MechConnectSupervisor
		if p.abi >= hostfacts.ABITCP {
			tcp.By += " + " + p.ll
		}
		tcp.Note = "no loopback of its own (" + p.netnsWhy + "): other hosts only by name, through stockade's proxy on the host's loopback, which stockade connects the command to itself; every other destination, loopback included, is refused"
		return tcp
	case p.proxyPort:
		// The last layer: the allowlist holds only as far as a port can.
		tcp.Status, tcp.By = Partial, p.ll+" port rule + seccomp"
		tcp.Note = "no loopback of its own (" + p.netnsWhy + ") and " + p.h.SeccompNotifyWhy() +
			": TCP connects only to the port of stockade's proxy on the host's loopback, but on any address, since Landlock cannot tell addresses apart (a command that ignores the proxy reaches any host that listens on that port); a socket that never bound may listen on a port the kernel picks"
		return tcp
	case p.spec.Seccomp && p.abi >= hostfacts.ABITCP:
		tcp.Status, tcp.By = Enforced, "seccomp + "+p.ll
	case p.spec.Seccomp:
		tcp.Status, tcp.By = Enforced, "seccomp"
	case p.abi >= hostfacts.ABITCP:
		tcp.Status, tcp.By = Partial, p.ll
		tcp.Note = "without seccomp, MPTCP (Go's default for listeners) is not stopped; " + p.h.SeccompWhy()
	case p.linux:
		tcp.Status, tcp.Note = NotEnforced, p.h.SeccompWhy()+"; "+without(hostfacts.ABITCP)
	default:
		tcp.Status, tcp.Note = NotEnforced, p.h.SeccompWhy()
	}
	tcp.Note = join(tcp.Note, "no loopback of its own ("+p.netnsWhy+"), so loopback is refused too")
	if p.want.Network == policy.NetworkAllowlist {
		// Nothing can hold the allowlist: the policy's network cannot be
		// given, so strict refuses, and best-effort runs with none.
		tcp.Note = join(tcp.Note, "the allowlist's proxy needs a network namespace or the connect supervisor ("+p.h.SeccompNotifyWhy()+"), so nothing is reachable")
		if tcp.Status == Enforced {
			tcp.Status = Partial
		}
	}
	return tcp
}

func planNetworkOther(p *planning) Protection {
	switch {
	case !p.netOff:
		return Protection{Status: Off, Note: `network = "on"`}
	case p.netns:
		other := Protection{Status: Enforced, Required: true, By: "network namespace"}
		if p.spec.Seccomp {
			other.By += " + seccomp"
		}
		other.By = p.nsBy(other.By)
		return other
	case p.supervised:
		return Protection{Status: Enforced, Required: true, By: "seccomp", Note: "TCP only, through the connect supervisor: no UDP, DNS, raw or packet sockets"}
	case p.proxyPort:
		return Protection{Status: Enforced, Required: true, By: "seccomp", Note: "TCP only, to the proxy's port: no UDP, DNS, raw or packet sockets"}
	case p.spec.Seccomp:
		return Protection{Status: Enforced, Required: true, By: "seccomp"}
	case p.abi >= hostfacts.ABIUDP:
		return Protection{Status: Partial, Required: true, By: p.ll,
			Note: "UDP only; raw, packet and other sockets are not stopped without seccomp; " + p.h.SeccompWhy()}
	}
	return Protection{Status: NotEnforced, Required: true, Note: p.h.SeccompWhy()}
}

func planUnixSockets(p *planning) Protection {
	switch {
	case !p.unixOff:
		pr := Protection{Status: Off, Note: `unix_sockets = "allow"`}
		if p.spec.Scopes {
			pr.Note += "; abstract unix sockets outside the sandbox are still unreachable (landlock scopes)"
		}
		return pr
	case p.spec.Seccomp && p.spec.Scopes:
		return Protection{Status: Enforced, Required: true, By: "seccomp + landlock scopes"}
	case p.spec.Seccomp:
		return Protection{Status: Enforced, Required: true, By: "seccomp"}
	case p.spec.Scopes:
		return Protection{Status: Partial, Required: true, By: p.ll + " scopes",
			Note: "abstract sockets outside the sandbox are unreachable, pathname sockets (docker.sock, ssh-agent) are not; " + p.h.SeccompWhy()}
	}
	return Protection{Status: NotEnforced, Required: true, Note: p.h.SeccompWhy()}
}

// planDeviceIoctl: not a policy setting; follows the filesystem restriction.
func planDeviceIoctl(p *planning) Protection {
	switch {
	case !p.fsOn:
		return Protection{Status: Off, Note: `filesystem = "off"`}
	case p.abi >= hostfacts.ABIIoctlDev:
		return Protection{Status: Enforced, By: p.ll}
	case p.abi == 0:
		return Protection{Status: NotEnforced, Note: p.h.LandlockWhy()}
	}
	return Protection{Status: NotEnforced, Note: without(hostfacts.ABIIoctlDev)}
}

// planSignals, signals and ptrace: not a policy setting; always wanted.
func planSignals(p *planning) Protection {
	caps := ""
	if p.spec.DropCaps {
		caps = " + capabilities dropped"
	}
	const open = "processes of the same user outside the sandbox can be signalled and traced"
	switch {
	case p.spec.Scopes:
		return Protection{Status: Enforced, By: p.ll + " scopes" + caps}
	case p.abi > 0:
		return Protection{Status: Partial, By: p.ll + " (ptrace)" + caps,
			Note: "ptrace is bounded by the sandbox; " + without(hostfacts.ABIScopes)}
	case p.spec.DropCaps:
		return Protection{Status: Partial, By: "capabilities dropped", Note: open}
	}
	return Protection{Status: NotEnforced, Note: open}
}

// planKernelObjects: not a policy setting; always wanted.
func planKernelObjects(p *planning) Protection {
	switch {
	case p.spec.Seccomp && p.spec.IPCNamespace:
		return Protection{Status: Enforced, By: p.nsBy("seccomp + ipc namespace")}
	case p.spec.Seccomp && p.spec.SysVSupervised:
		return Protection{Status: Enforced, By: "seccomp + supervisor",
			Note: "no ipc namespace (" + p.h.NamespacesWhy() + "): " + sysvSupervisedNote}
	case p.spec.Seccomp:
		return Protection{Status: Enforced, By: "seccomp",
			Note: "no ipc namespace (" + p.h.NamespacesWhy() + ") and " + p.h.SeccompNotifyWhy() + ": System V IPC is refused by seccomp"}
	}
	return Protection{Status: NotEnforced,
		Note: "the command can change the resource limits and priorities of its user's processes, and use its user's keyrings and System V IPC; " + p.h.SeccompWhy()}
}

// sysvSupervisedNote says what System V IPC is without an IPC namespace,
// through stockade's supervisor.
const sysvSupervisedNote = "System V IPC goes through stockade's supervisor: the command reaches only the segments, semaphores and queues made for it, which are removed when it ends"

// planProtectedFiles: not a policy setting; always wanted. Read-only bind
// mounts need the mount namespace of root or of a user namespace, and a
// filesystem restriction to be inside of.
func planProtectedFiles(p *planning) Protection {
	switch {
	case len(p.spec.Protected) == 0:
		return Protection{Status: Off, Note: "no workdir and no protected paths"}
	case p.fsOn && p.abi > 0 && (p.h.SysAdmin && p.h.Root || p.userns):
		return Protection{Status: Enforced, By: p.nsBy("read-only bind mounts"),
			Note: "a protected path that does not exist when the sandbox starts is only watched: its creation is reported after the command"}
	case p.linux || p.fsOn:
		why := p.h.NamespacesWhy()
		if !p.fsOn || p.abi == 0 {
			why = "no filesystem restriction"
		}
		return Protection{Status: Partial, By: "snapshot",
			Note: "not read-only (" + why + "): a change is reported after the command, not prevented"}
	}
	return Protection{Status: Partial, By: "snapshot", Note: "a change is reported after the command, not prevented"}
}

func planContainment(p *planning) Protection {
	switch {
	case p.spec.PIDNamespace:
		return Protection{Status: Enforced, By: "process group + subreaper",
			Note: "a pid namespace of its own too (stockade run's command; an MCP session's commands), which the kernel ends when stockade dies, however it dies"}
	case p.h.OS == "linux":
		return Protection{Status: Enforced, By: "process group + subreaper"}
	case p.h.OS == "windows":
		return Protection{Status: NotEnforced, Note: "no process groups on windows: only the command's own process is killed"}
	}
	return Protection{Status: Partial, By: "process group", Note: hostfacts.MechanismNamed(hostfacts.MechProcessGroup).Without}
}

func planProcessBound(p *planning) Protection {
	defaultNote := ""
	if !p.boundRequired {
		defaultNote = fmt.Sprintf("the default bound (max_processes = 0): %d", p.bound)
	}
	noCgroup := p.h.PidsReason
	if noCgroup == "" {
		noCgroup = "no writable pids cgroup"
	}
	switch {
	case p.spec.MaxProcs > 0:
		return Protection{Status: Enforced, Required: p.boundRequired, By: "pids cgroup", Note: defaultNote}
	case p.spec.NprocLimit > 0:
		return Protection{Status: Partial, Required: p.boundRequired, By: "RLIMIT_NPROC",
			Note: join(defaultNote, noCgroup, fmt.Sprintf("RLIMIT_NPROC counts every process of the user, in the sandbox or not: the command may start %d more than the user runs when it starts", p.bound))}
	case p.linux:
		return Protection{Status: NotEnforced, Required: p.boundRequired, Note: join(defaultNote, noCgroup, "RLIMIT_NPROC does not bind uid 0")}
	}
	return Protection{Status: NotEnforced, Required: p.boundRequired, Note: join(defaultNote, noCgroup)}
}

// planEnvScrub: done by stockade itself, everywhere.
func planEnvScrub(*planning) Protection {
	return Protection{Status: Enforced, By: "stockade", Note: "secret-looking variables removed before the command starts"}
}

// normalize fills in defaults and rejects values Plan does not know: an
// unknown value must never weaken the sandbox. Both come from the policy's
// one table of [sandbox] values (policy.SandboxChoices).
func normalize(s policy.Sandbox) (policy.Sandbox, error) {
	s = s.WithDefaults()
	if err := s.Check(); err != nil {
		return s, fmt.Errorf("sandbox: %w", err)
	}
	return s, nil
}

// expandAll makes every path absolute: ~/, $HOME/ and ${HOME}/ become the home
// directory, relative paths are taken from workdir.
func expandAll(field string, paths []string, workdir string) ([]string, error) {
	var out []string
	for _, p := range paths {
		e, err := expand(p, workdir)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %s: %w", field, err)
		}
		out = append(out, e)
	}
	return out, nil
}

func expand(p, workdir string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path")
	}
	for _, pre := range []string{"~", "$HOME", "${HOME}"} {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			home := os.Getenv("HOME")
			if home == "" || !filepath.IsAbs(home) {
				return "", fmt.Errorf("%q: $HOME is not set to an absolute path", p)
			}
			return filepath.Join(home, strings.TrimPrefix(p, pre)), nil
		}
	}
	if strings.HasPrefix(p, "~") || strings.Contains(p, "$") {
		return "", fmt.Errorf("%q: only ~/, $HOME/ and ${HOME}/ are expanded", p)
	}
	if !filepath.IsAbs(p) {
		if workdir == "" {
			return "", fmt.Errorf("%q: relative path without a workdir", p)
		}
		p = filepath.Join(workdir, p)
	}
	return filepath.Clean(p), nil
}

// why is the host's side of a refusal: the reasons behind the missing protections.
func why(h Host, missing []Protection) string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	abi, _ := h.EffectiveABI()
	for _, p := range missing {
		switch p.Name {
		case FSWrite, DenyRead:
			if abi == 0 {
				add(h.LandlockWhy())
			} else {
				add(fmt.Sprintf("landlock abi %d: %s", abi, without(hostfacts.ABITruncate)))
			}
		case NetworkTCP:
			if h.Seccomp { // only the allowlist is missing
				fallback := "nothing reachable"
				if abi >= hostfacts.ABITCP {
					fallback = "TCP to the proxy's port only, on any address (landlock's port rule)"
				}
				add(`network = "allowlist" needs a network namespace or the connect supervisor (` + h.SeccompNotifyWhy() + `); use network = "off", or enforce = "best-effort" to run with ` + fallback)
			} else {
				add(h.SeccompWhy())
			}
		case NetworkOther, UnixSockets:
			add(h.SeccompWhy())
		case ProcessBound:
			add(p.Note)
		}
	}
	return strings.Join(out, "; ")
}

// erratumNote warns of a known Landlock bug that is not fixed on h.
func erratumNote(h Host, abi int) string {
	const widen = "rename or link through a directory moved out of a bind mount can widen access"
	switch {
	case abi < hostfacts.ABIFS:
		return ""
	case !h.LandlockErrataKnown:
		return "the kernel does not report landlock errata; if erratum 3 is not fixed, " + widen
	case h.LandlockErrata&hostfacts.ErratumDisconnectDir == 0:
		return "landlock erratum 3 is not fixed: " + widen
	}
	return ""
}

func join(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// fsWriteAsRoot is what fs-write adds for root: Landlock does not cover a
// file's mode, times or extended attributes, which uid 0 may change on any
// file; the sandbox closes that with read-only mounts when it has
// CAP_SYS_ADMIN, and the note says so when it has not.
func fsWriteAsRoot(h Host, ll string, userns bool) (by, note string) {
	switch {
	case userns:
		return ll + " + read-only mounts (in a user namespace)", ""
	case h.OS != "linux" || !h.Root:
		return ll, ""
	case h.SysAdmin:
		return ll + " + read-only mounts", ""
	default:
		return ll, "as root without CAP_SYS_ADMIN: no read-only mounts, so the mode, times and extended attributes of files outside the writable roots can still be changed"
	}
}

// ExpandPath expands a policy path as Plan does: ~/, $HOME/ and ${HOME}/ from
// $HOME, a relative path from workdir; the result is clean and absolute.
func ExpandPath(p, workdir string) (string, error) { return expand(p, workdir) }
