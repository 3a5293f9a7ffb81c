package degrade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	want, err := normalize(want)
	if err != nil {
		return sandbox.Spec{}, Report{}, err
	}
	writable, err := expandAll("writable_roots", want.WritableRoots, workdir)
	if err != nil {
		return sandbox.Spec{}, Report{}, err
	}
	readable, err := expandAll("readable_roots", want.ReadableRoots, workdir)
	if err != nil {
		return sandbox.Spec{}, Report{}, err
	}
	deny, err := expandAll("deny_read", want.DenyRead, workdir)
	if err != nil {
		return sandbox.Spec{}, Report{}, err
	}
	protected, err := expandAll("protected", want.Protected, workdir)
	if err != nil {
		return sandbox.Spec{}, Report{}, err
	}
	if workdir != "" {
		protected = append(sandbox.GitProtected(workdir), protected...)
	}

	abi, abiNote := h.effectiveABI()
	fsOn := want.Filesystem != string(sandbox.FSOff)
	// allowlist is network off plus the egress proxy, which only a network
	// namespace can reach; without one, nothing is reachable (fail closed).
	netOff := want.Network == "off" || want.Network == "allowlist"
	netns, netnsWhy := h.netNS()
	netns = netns && netOff
	unixOff := want.UnixSockets == "deny"
	linux := h.OS == "linux"
	// A plain user's namespaces come with a user namespace of the sandbox's own.
	userns := linux && !h.Root && h.UserNS
	nsBy := func(ns string) string {
		if userns {
			return ns + " (in a user namespace)"
		}
		return ns
	}

	// The spec asks only for what this host can apply: sandbox.Apply refuses
	// a mechanism it has no means for. What the policy wants and the spec
	// cannot carry shows in the report as not enforced; under strict, the
	// refusal below keeps anything from running.
	spec := sandbox.Spec{
		FS: sandbox.FSMode(want.Filesystem), Workdir: workdir, TmpDir: tmpdir,
		WritableRoots: writable, ReadableRoots: readable, DenyRead: deny, Protected: protected,
		LandlockABI:    abi,
		NetworkOff:     netOff && (h.Seccomp || abi >= abiTCP || netns),
		NetNS:          netns,
		UnixSocketsOff: unixOff && h.Seccomp,
		Seccomp:        h.Seccomp,
		IPCNamespace:   linux && (h.SysAdmin || userns),
		UserNS:         userns,
		Scopes:         abi >= abiScopes,
		DropCaps:       linux && (h.Root || userns),
	}
	if abi == 0 {
		// No Landlock: no filesystem rule can be applied.
		spec.FS = sandbox.FSOff
		spec.WritableRoots, spec.ReadableRoots, spec.DenyRead = nil, nil, nil
	}
	// The process bound: the policy's, required; or the default one, where
	// the host can enforce it. RLIMIT_NPROC stands in for a missing pids
	// cgroup where it binds (not for uid 0).
	bound, boundRequired := want.MaxProcesses, want.MaxProcesses > 0
	if !boundRequired {
		bound = policy.DefaultMaxProcesses
	}
	switch {
	case h.PidsCgroup != "":
		spec.MaxProcs = bound
	case linux && !h.Root:
		spec.NprocLimit = bound
	}

	ll := fmt.Sprintf("landlock abi %d", abi)
	noLandlock := h.landlockWhy()
	var ps []Protection
	add := func(p Protection) { ps = append(ps, p) }

	// fs-write
	switch {
	case !fsOn:
		add(Protection{Name: FSWrite, Status: Off, Note: `filesystem = "off"`})
	case abi == 0:
		add(Protection{Name: FSWrite, Status: NotEnforced, Required: true, Note: noLandlock})
	case abi < abiTruncate:
		note := without(abiTruncate)
		if abi < abiRefer {
			note += "; " + without(abiRefer)
		}
		by, rootNote := fsWriteAsRoot(h, ll, userns)
		add(Protection{Name: FSWrite, Status: Partial, Required: true, By: by, Note: join(note, abiNote, rootNote)})
	default:
		by, rootNote := fsWriteAsRoot(h, ll, userns)
		add(Protection{Name: FSWrite, Status: Enforced, Required: true, By: by, Note: join(erratumNote(h, abi), abiNote, rootNote)})
	}

	// deny-read
	switch {
	case len(deny) == 0:
		add(Protection{Name: DenyRead, Status: Off, Note: "deny_read is empty"})
	case !fsOn && abi == 0:
		add(Protection{Name: DenyRead, Status: Off, Note: `filesystem = "off" and ` + noLandlock + `: deny_read is not applied`})
	case !fsOn:
		// Not required, but the secrets stay unreadable where the kernel can do it.
		add(Protection{Name: DenyRead, Status: Enforced, By: ll, Note: `applied although filesystem = "off"`})
	case abi == 0:
		add(Protection{Name: DenyRead, Status: NotEnforced, Required: true, Note: noLandlock})
	default:
		add(Protection{Name: DenyRead, Status: Enforced, Required: true, By: ll})
	}

	// network-tcp and network-other
	switch {
	case !netOff:
		add(Protection{Name: NetworkTCP, Status: Off, Note: `network = "on"`})
		add(Protection{Name: NetworkOther, Status: Off, Note: `network = "on"`})
	case netns:
		tcp := Protection{Name: NetworkTCP, Status: Enforced, Required: true, By: nsBy("network namespace"),
			Note: "the session has a loopback of its own; nothing else is reachable"}
		if want.Network == "allowlist" {
			tcp.Note = "the session has a loopback of its own; other hosts only by name, through stockade's proxy"
		}
		add(tcp)
		other := Protection{Name: NetworkOther, Status: Enforced, Required: true, By: "network namespace"}
		if spec.Seccomp {
			other.By += " + seccomp"
		}
		other.By = nsBy(other.By)
		add(other)
	default:
		tcp := Protection{Name: NetworkTCP, Required: true}
		switch {
		case spec.Seccomp && abi >= abiTCP:
			tcp.Status, tcp.By = Enforced, "seccomp + "+ll
		case spec.Seccomp:
			tcp.Status, tcp.By = Enforced, "seccomp"
		case abi >= abiTCP:
			tcp.Status, tcp.By = Partial, ll
			tcp.Note = "without seccomp, MPTCP (Go's default for listeners) is not stopped; " + h.seccompWhy()
		case linux:
			tcp.Status, tcp.Note = NotEnforced, h.seccompWhy()+"; "+without(abiTCP)
		default:
			tcp.Status, tcp.Note = NotEnforced, h.seccompWhy()
		}
		tcp.Note = join(tcp.Note, "no loopback of its own ("+netnsWhy+"), so loopback is refused too")
		if want.Network == "allowlist" {
			tcp.Note = join(tcp.Note, "the allowlist's proxy needs a network namespace, so nothing is reachable")
		}
		add(tcp)
		other := Protection{Name: NetworkOther, Required: true}
		switch {
		case spec.Seccomp:
			other.Status, other.By = Enforced, "seccomp"
		case abi >= abiUDP:
			other.Status, other.By = Partial, ll
			other.Note = "UDP only; raw, packet and other sockets are not stopped without seccomp; " + h.seccompWhy()
		default:
			other.Status, other.Note = NotEnforced, h.seccompWhy()
		}
		add(other)
	}

	// unix-sockets
	switch {
	case !unixOff:
		p := Protection{Name: UnixSockets, Status: Off, Note: `unix_sockets = "allow"`}
		if spec.Scopes {
			p.Note += "; abstract unix sockets outside the sandbox are still unreachable (landlock scopes)"
		}
		add(p)
	case spec.Seccomp && spec.Scopes:
		add(Protection{Name: UnixSockets, Status: Enforced, Required: true, By: "seccomp + landlock scopes"})
	case spec.Seccomp:
		add(Protection{Name: UnixSockets, Status: Enforced, Required: true, By: "seccomp"})
	case spec.Scopes:
		add(Protection{Name: UnixSockets, Status: Partial, Required: true, By: ll + " scopes",
			Note: "abstract sockets outside the sandbox are unreachable, pathname sockets (docker.sock, ssh-agent) are not; " + h.seccompWhy()})
	default:
		add(Protection{Name: UnixSockets, Status: NotEnforced, Required: true, Note: h.seccompWhy()})
	}

	// device-ioctl: not a policy setting; follows the filesystem restriction.
	switch {
	case !fsOn:
		add(Protection{Name: DeviceIoctl, Status: Off, Note: `filesystem = "off"`})
	case abi >= abiIoctlDev:
		add(Protection{Name: DeviceIoctl, Status: Enforced, By: ll})
	case abi == 0:
		add(Protection{Name: DeviceIoctl, Status: NotEnforced, Note: noLandlock})
	default:
		add(Protection{Name: DeviceIoctl, Status: NotEnforced, Note: without(abiIoctlDev)})
	}

	// signals and ptrace: not a policy setting; always wanted.
	caps := ""
	if spec.DropCaps {
		caps = " + capabilities dropped"
	}
	switch {
	case spec.Scopes:
		add(Protection{Name: Signals, Status: Enforced, By: ll + " scopes" + caps})
	case abi > 0:
		add(Protection{Name: Signals, Status: Partial, By: ll + " (ptrace)" + caps,
			Note: "ptrace is bounded by the sandbox; " + without(abiScopes)})
	case spec.DropCaps:
		add(Protection{Name: Signals, Status: Partial, By: "capabilities dropped",
			Note: "processes of the same user outside the sandbox can be signalled and traced"})
	default:
		add(Protection{Name: Signals, Status: NotEnforced,
			Note: "processes of the same user outside the sandbox can be signalled and traced"})
	}

	// kernel-objects: not a policy setting; always wanted.
	switch {
	case spec.Seccomp && spec.IPCNamespace:
		add(Protection{Name: KernelObjects, Status: Enforced, By: nsBy("seccomp + ipc namespace")})
	case spec.Seccomp:
		add(Protection{Name: KernelObjects, Status: Enforced, By: "seccomp",
			Note: "no ipc namespace (" + h.namespacesWhy() + "): " + mechanism("ipc namespace").Without})
	default:
		add(Protection{Name: KernelObjects, Status: NotEnforced,
			Note: "the command can change the resource limits and priorities of its user's processes, and use its user's keyrings and System V IPC; " + h.seccompWhy()})
	}

	// protected-files: not a policy setting; always wanted. Read-only bind
	// mounts need the mount namespace of root or of a user namespace, and a
	// filesystem restriction to be inside of.
	switch {
	case len(protected) == 0:
		add(Protection{Name: ProtectedFiles, Status: Off, Note: "no workdir and no protected paths"})
	case fsOn && abi > 0 && (h.SysAdmin && h.Root || userns):
		add(Protection{Name: ProtectedFiles, Status: Enforced, By: nsBy("read-only bind mounts"),
			Note: "a protected path that does not exist when the sandbox starts is only watched: its creation is reported after the command"})
	case linux || fsOn:
		why := h.namespacesWhy()
		if !fsOn || abi == 0 {
			why = "no filesystem restriction"
		}
		add(Protection{Name: ProtectedFiles, Status: Partial, By: "snapshot",
			Note: "not read-only (" + why + "): a change is reported after the command, not prevented"})
	default:
		add(Protection{Name: ProtectedFiles, Status: Partial, By: "snapshot",
			Note: "a change is reported after the command, not prevented"})
	}

	// containment
	switch h.OS {
	case "linux":
		add(Protection{Name: Containment, Status: Enforced, By: "process group + subreaper"})
	case "windows":
		add(Protection{Name: Containment, Status: NotEnforced,
			Note: "no process groups on windows: only the command's own process is killed"})
	default:
		add(Protection{Name: Containment, Status: Partial, By: "process group",
			Note: mechanism("process group + subreaper").Without})
	}

	// process-bound
	defaultNote := ""
	if !boundRequired {
		defaultNote = fmt.Sprintf("the default bound (max_processes = 0): %d", bound)
	}
	noCgroup := h.PidsReason
	if noCgroup == "" {
		noCgroup = "no writable pids cgroup"
	}
	switch {
	case spec.MaxProcs > 0:
		add(Protection{Name: ProcessBound, Status: Enforced, Required: boundRequired, By: "pids cgroup", Note: defaultNote})
	case spec.NprocLimit > 0:
		add(Protection{Name: ProcessBound, Status: Partial, Required: boundRequired, By: "RLIMIT_NPROC",
			Note: join(defaultNote, noCgroup, fmt.Sprintf("RLIMIT_NPROC counts every process of the user, in the sandbox or not: the command may start %d more than the user runs when it starts", bound))})
	case linux:
		add(Protection{Name: ProcessBound, Status: NotEnforced, Required: boundRequired,
			Note: join(defaultNote, noCgroup, "RLIMIT_NPROC does not bind uid 0")})
	default:
		add(Protection{Name: ProcessBound, Status: NotEnforced, Required: boundRequired, Note: join(defaultNote, noCgroup)})
	}

	// env-scrub: done by stockade itself, everywhere.
	add(Protection{Name: EnvScrub, Status: Enforced, By: "stockade",
		Note: "secret-looking variables removed before the command starts"})

	rep := Report{Enforce: want.Enforce, Host: h.String(), Protections: ps}
	missing := rep.Missing()
	rep.Full = len(missing) == 0
	if !rep.Full && want.Enforce == "strict" {
		return spec, rep, &Refusal{Missing: missing, Why: h.why(missing)}
	}
	return spec, rep, nil
}

// normalize fills in defaults and rejects values Plan does not know: an
// unknown value must never weaken the sandbox.
func normalize(s policy.Sandbox) (policy.Sandbox, error) {
	def := func(v *string, d string, field string, allowed ...string) error {
		if *v == "" {
			*v = d
		}
		for _, a := range allowed {
			if *v == a {
				return nil
			}
		}
		return fmt.Errorf("sandbox: %s = %q: want one of %s", field, *v, strings.Join(allowed, ", "))
	}
	if err := def(&s.Filesystem, "workspace-write", "filesystem", "read-only", "workspace-write", "off"); err != nil {
		return s, err
	}
	if err := def(&s.Network, "off", "network", "off", "allowlist", "on"); err != nil {
		return s, err
	}
	if err := def(&s.UnixSockets, "deny", "unix_sockets", "deny", "allow"); err != nil {
		return s, err
	}
	if err := def(&s.Enforce, "strict", "enforce", "strict", "best-effort"); err != nil {
		return s, err
	}
	if s.MaxProcesses < 0 {
		return s, fmt.Errorf("sandbox: max_processes = %d: want 0 (no bound) or more", s.MaxProcesses)
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

// CanNetNS says whether the sandbox can give a session a network namespace of
// its own on h.
func (h Host) CanNetNS() bool {
	ok, _ := h.netNS()
	return ok
}

// netNS says whether the sandbox can give each session a network namespace of
// its own, and if not, why.
func (h Host) netNS() (bool, string) {
	switch {
	case h.OS != "linux":
		return false, "no network namespaces on " + h.OS
	case h.Root && h.SysAdmin, !h.Root && h.UserNS:
		return true, ""
	}
	return false, h.namespacesWhy()
}

// OneProcess is h for a sandbox applied to a thread of a running process
// (stockade run): a multithreaded process cannot enter a new user namespace,
// so a plain user gets none of the namespaces that come with one.
func (h Host) OneProcess() Host {
	if h.UserNS {
		h.UserNS = false
		h.UserNSReason = "stockade run applies the sandbox to a thread of its own process, which cannot enter a new user namespace (stockade serve can)"
	}
	return h
}

// namespacesWhy says why the sandbox has no mount, network or IPC namespace on h.
func (h Host) namespacesWhy() string {
	switch {
	case h.OS != "linux":
		return "no namespaces on " + h.OS
	case h.Root:
		return "root without CAP_SYS_ADMIN"
	case h.UserNSReason == "":
		return "not root: a namespace needs CAP_SYS_ADMIN or a user namespace"
	}
	return "not root, and " + h.UserNSReason
}

// landlockWhy says why h has no Landlock.
func (h Host) landlockWhy() string {
	if h.OS != "linux" {
		return "no landlock on " + h.OS
	}
	if h.LandlockReason != "" {
		return "no landlock: " + h.LandlockReason
	}
	return "no landlock"
}

// seccompWhy says why h has no seccomp filter.
func (h Host) seccompWhy() string {
	if h.OS != "linux" {
		return "no seccomp on " + h.OS
	}
	if h.SeccompReason != "" {
		return "no seccomp: " + h.SeccompReason
	}
	return "no seccomp"
}

// why is the host's side of a refusal: the reasons behind the missing protections.
func (h Host) why(missing []Protection) string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	abi, _ := h.effectiveABI()
	for _, p := range missing {
		switch p.Name {
		case FSWrite, DenyRead:
			if abi == 0 {
				add(h.landlockWhy())
			} else {
				add(fmt.Sprintf("landlock abi %d: %s", abi, without(abiTruncate)))
			}
		case NetworkTCP, NetworkOther, UnixSockets:
			add(h.seccompWhy())
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
	case abi < abiFS:
		return ""
	case !h.LandlockErrataKnown:
		return "the kernel does not report landlock errata; if erratum 3 is not fixed, " + widen
	case h.LandlockErrata&erratumDisconnectDir == 0:
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
