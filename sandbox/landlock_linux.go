//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/stockade/stockade/hostfacts"
	"golang.org/x/sys/unix"
)

// Landlock access rights stockade grants. A right is granted only where the ABI
// in use handles it (see handledFS); a right that is not handled is not
// restricted at all.
const (
	accessRead uint64 = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	// accessFileOnly are the rights that apply to files; a rule on a file must
	// not carry any other.
	accessFileOnly uint64 = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev
	// accessDevRW is what /dev/null, /dev/zero and /dev/full get.
	accessDevRW uint64 = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate
	// accessNotInWrite are never part of a write grant: ioctl on devices, and
	// (added back when unix sockets are on) connecting to pathname unix sockets.
	accessNotInWrite uint64 = ll.AccessFSIoctlDev | ll.AccessFSResolveUnix
)

// ruleset is a Landlock ruleset being built.
type ruleset struct {
	fd        int
	abi       int
	handledFS uint64
	rules     int
	notes     []string
	// procAccess is what the rules give /proc itself (0: no rule of its
	// own); a PID namespace's /proc mounted over it is given the same.
	procAccess uint64
}

func (r *ruleset) close() {
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}

// plan is what the Landlock part of a Spec comes to.
type plan struct {
	handledFS, handledNet, scoped uint64
	// referEverywhere: the ruleset handles LANDLOCK_ACCESS_FS_REFER too and
	// grants it on the whole tree (see nestScopes).
	referEverywhere bool
}

// landlockPlan decides what the ruleset handles. A handled right with no rule
// that grants it is refused everywhere.
func landlockPlan(spec Spec) (plan, error) {
	var p plan
	// stockade asks for one version exactly and never for less than it says.
	if spec.LandlockABI < 0 || spec.LandlockABI > hostfacts.MaxLandlockABI {
		return p, fmt.Errorf("landlock ABI %d is unknown to this stockade (it knows 1 to %d)", spec.LandlockABI, hostfacts.MaxLandlockABI)
	}
	cfg := hostfacts.ABIs[spec.LandlockABI].Config
	if spec.FS != FSOff || len(spec.DenyRead) > 0 || spec.MaxProcs > 0 || spec.PrivateRoot != "" {
		// With fs "off", deny-read, other sessions' state and the process
		// bound still need filesystem rules: everything is granted but the
		// denied paths, and the cgroup filesystem stays read-only so no
		// command can leave its cgroup.
		p.handledFS = uint64(cfg.HandledAccessFS)
	}
	if spec.NetworkOff && !spec.NetNS {
		// In a namespace of its own, TCP reaches only the session's loopback.
		p.handledNet = uint64(cfg.HandledAccessNet)
	}
	if spec.Scopes {
		if cfg.Scoped == 0 {
			return p, fmt.Errorf("landlock scopes need ABI 6 or later, the spec asks for ABI %d", spec.LandlockABI)
		}
		p.scoped = uint64(cfg.Scoped)
	}
	return p, nil
}

// newRuleset creates the ruleset for spec at exactly spec.LandlockABI, with
// every rule added. Paths are opened now, while the child may still have the
// capabilities to reach them; the ruleset is enforced later by restrict.
func newRuleset(spec Spec, p plan) (*ruleset, error) {
	kernel, errno := hostfacts.LandlockVersion()
	if errno != 0 {
		return nil, fmt.Errorf("landlock is not available on this kernel: %w", errno)
	}
	if kernel < spec.LandlockABI {
		return nil, fmt.Errorf("landlock ABI %d asked for, this kernel has ABI %d", spec.LandlockABI, kernel)
	}
	if p.scoped&ll.ScopeSignal != 0 {
		// Without the fix, the per-thread domains psx creates break the Go
		// runtime's signals.
		errata, err := hostfacts.LandlockErrata()
		if err != nil || !hostfacts.SignalScopeSafe(errata) {
			return nil, fmt.Errorf("landlock signal scoping is unsafe on this kernel (erratum 2 not fixed); ask for an ABI below 6 or update the kernel")
		}
	}
	attr := ll.RulesetAttr{HandledAccessFS: p.handledFS, HandledAccessNet: p.handledNet, Scoped: p.scoped}
	if p.referEverywhere {
		attr.HandledAccessFS |= ll.AccessFSRefer
	}
	fd, err := ll.LandlockCreateRuleset(&attr, 0) // the fd is close-on-exec
	if err != nil {
		return nil, fmt.Errorf("landlock_create_ruleset (ABI %d): %w", spec.LandlockABI, err)
	}
	r := &ruleset{fd: fd, abi: spec.LandlockABI, handledFS: uint64(attr.HandledAccessFS)}
	if p.handledFS != 0 {
		if err := r.addFS(spec); err != nil {
			r.close()
			return nil, err
		}
	}
	if p.referEverywhere {
		if err := r.addRoot(ll.AccessFSRefer); err != nil {
			r.close()
			return nil, err
		}
	}
	if spec.ProxyPortOnly && p.handledNet&ll.AccessNetConnectTCP != 0 {
		if err := r.addProxyPort(spec.ProxyTo); err != nil {
			r.close()
			return nil, err
		}
	}
	return r, nil
}

// addProxyPort lets the command connect to the port of the proxy at addr
// (Spec.ProxyPortOnly): on any address, since a Landlock rule names a port
// only.
func (r *ruleset) addProxyPort(addr string) error {
	proxy, err := netip.ParseAddrPort(addr)
	if err != nil || proxy.Port() == 0 {
		return fmt.Errorf("connects to the proxy's port only, and the proxy's address is %q", addr)
	}
	attr := ll.NetPortAttr{AllowedAccess: ll.AccessNetConnectTCP, Port: uint64(proxy.Port())}
	if err := ll.LandlockAddNetPortRule(r.fd, &attr, 0); err != nil {
		return fmt.Errorf("landlock rule for the proxy's port %d: %w", proxy.Port(), err)
	}
	r.rules++
	return nil
}

// nestScopes enforces on the calling thread alone a Landlock domain that
// handles no access right, only the scopes of spec. It is nested in the
// thread's domain: what the thread starts may not signal, nor reach the
// abstract sockets of, a process of the outer domain (the zygote), while the
// outer domain keeps its rights over them. Without scopes it does nothing.
//
// Every layer of a domain refuses a link or rename into another directory
// (EXDEV) unless a rule of its own grants LANDLOCK_ACCESS_FS_REFER, even a
// layer that handles no filesystem right; so this one grants it on the whole
// tree and leaves the decision to the outer domain. Without it, git could not
// move the objects a push or a fetch received into place.
func nestScopes(spec Spec) error {
	p, err := landlockPlan(spec)
	if err != nil || p.scoped == 0 {
		return err
	}
	r, err := newRuleset(spec, plan{scoped: p.scoped, referEverywhere: true})
	if err != nil {
		return err
	}
	defer r.close()
	return r.restrict(false)
}

// grant is a file hierarchy and the rights over it.
type grant struct {
	path     string
	access   uint64
	required bool   // an error when missing or denied, not a note
	what     string // for messages
}

// essentialReadable is what a shell needs when the readable roots are narrowed.
var essentialReadable = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc"}

// devReadable are the device files readable in the read-only and
// workspace-write modes; devWritable are also writable. Nothing else in /dev:
// as root, block devices would give the raw disk (and every denied file on it),
// and terminals would take keystrokes (TIOCSTI).
var (
	devReadable = []string{"null", "zero", "full", "random", "urandom"}
	devWritable = []string{"null", "zero", "full"}
)

// cgroupRoot is kept read-only, whatever the mode, when processes are bounded.
const cgroupRoot = "/sys/fs/cgroup"

// addFS adds the filesystem rules of spec.
func (r *ruleset) addFS(spec Spec) error {
	read := uint64(accessRead)
	write := r.handledFS &^ accessNotInWrite
	all := r.handledFS
	if spec.UnixSocketsOff {
		all &^= ll.AccessFSResolveUnix
	} else {
		read |= ll.AccessFSResolveUnix
		write |= ll.AccessFSResolveUnix
	}
	read &= r.handledFS
	write &= r.handledFS

	var grants []grant
	broad := false // a grant covers the whole tree: /dev must be narrowed
	switch spec.FS {
	case FSOff:
		grants = append(grants, grant{path: "/", access: all, what: "the filesystem (fs off)"})
		if spec.SessionDir != "" {
			grants = append(grants, grant{path: spec.SessionDir, access: all, required: true, what: "session directory"})
		}
		broad = true
	case FSReadOnly, FSWorkspaceWrite:
		if len(spec.ReadableRoots) == 0 {
			grants = append(grants, grant{path: "/", access: read, what: "readable root /"})
			broad = true
		} else {
			for _, p := range spec.ReadableRoots {
				grants = append(grants, grant{path: p, access: read, what: "readable root"})
			}
			for _, p := range essentialReadable {
				grants = append(grants, grant{path: p, access: read, what: "system directory"})
			}
			for _, name := range devReadable {
				grants = append(grants, grant{path: "/dev/" + name, access: read, what: "device"})
			}
			for _, p := range []string{spec.Workdir, spec.TmpDir} {
				if p != "" {
					grants = append(grants, grant{path: p, access: read, what: "workdir or tmpdir"})
				}
			}
		}
		if spec.SessionDir != "" {
			// Its shell init file, full outputs and task logs.
			grants = append(grants, grant{path: spec.SessionDir, access: read, required: true, what: "session directory"})
		}
		for _, name := range devWritable {
			grants = append(grants, grant{path: "/dev/" + name, access: accessDevRW & r.handledFS, what: "device"})
		}
		// The private TMPDIR is writable in both modes: it is the session's
		// own, and read-only means the user's files, not scratch space.
		if spec.TmpDir != "" {
			grants = append(grants, grant{path: spec.TmpDir, access: write, required: true, what: "tmpdir"})
		}
		if spec.FS == FSWorkspaceWrite {
			if spec.Workdir != "" {
				grants = append(grants, grant{path: spec.Workdir, access: write, required: true, what: "workdir"})
			}
			for _, p := range spec.WritableRoots {
				grants = append(grants, grant{path: p, access: write, required: true, what: "writable root"})
			}
		}
	default:
		return fmt.Errorf("unknown filesystem mode %q", spec.FS)
	}

	tree, err := r.hiddenTree(spec, broad, read)
	if err != nil {
		return err
	}
	for _, g := range grants {
		if err := r.addGrant(g, tree); err != nil {
			return err
		}
	}
	return nil
}

// hiddenTree builds the tree of paths that broad grants must go around: the
// deny-read paths, /dev (narrowed to a few devices) and, when processes are
// bounded, the cgroup filesystem (narrowed to reading).
func (r *ruleset) hiddenTree(spec Spec, broad bool, read uint64) (*node, error) {
	root := &node{}
	for _, p := range spec.DenyRead {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("deny-read path %q is not absolute", p)
		}
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, os.ErrNotExist) {
			r.notes = append(r.notes, fmt.Sprintf("deny-read %s does not exist (nothing to deny)", p))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("deny-read %s: %w", p, err)
		}
		if real == "/" {
			return nil, fmt.Errorf("deny-read %s denies the whole filesystem", p)
		}
		root.insert(real).denied = true
	}
	if spec.PrivateRoot != "" {
		real, err := filepath.EvalSymlinks(spec.PrivateRoot)
		if err != nil {
			return nil, fmt.Errorf("session state directory %s: %w", spec.PrivateRoot, err)
		}
		if real == "/" {
			return nil, fmt.Errorf("session state directory %s is the whole filesystem", spec.PrivateRoot)
		}
		root.insert(real).private = true
	}
	if broad {
		dev := root.insert("/dev")
		if spec.FS == FSOff {
			dev.filter = func(e os.DirEntry) bool { return e.Type()&os.ModeDevice == 0 || e.Type()&os.ModeCharDevice != 0 }
		} else {
			dev.only = devReadable
		}
	}
	if spec.MaxProcs > 0 {
		root.insert(cgroupRoot).mask = read
	}
	return root, nil
}

// node is a directory on the way to a hidden path.
type node struct {
	children map[string]*node
	denied   bool                   // never readable: no rule at or below
	private  bool                   // no rule from a grant around it; a grant inside it applies as it is
	mask     uint64                 // nonzero: rules at or below get at most these rights
	filter   func(os.DirEntry) bool // non-nil: only the entries it accepts get rules
	only     []string               // non-nil: only these entries get rules (no listing)
}

// insert adds the absolute, clean path p and returns its node.
func (n *node) insert(p string) *node {
	for _, c := range strings.Split(strings.Trim(p, "/"), "/") {
		if c == "" {
			continue
		}
		if n.children == nil {
			n.children = map[string]*node{}
		}
		next := n.children[c]
		if next == nil {
			next = &node{}
			n.children[c] = next
		}
		n = next
	}
	return n
}

// lookup walks p down the tree. It returns the node of p (nil if no hidden path
// is at or below p), and the first denied path found on the way (p inside a
// denied path), and the tightest mask on the way.
func (n *node) lookup(p string) (at *node, deniedBy string, mask uint64) {
	walked := ""
	for _, c := range strings.Split(strings.Trim(p, "/"), "/") {
		if c == "" {
			continue
		}
		next := n.children[c]
		if next == nil {
			return nil, "", mask
		}
		walked += "/" + c
		if next.denied {
			return nil, walked, mask
		}
		if next.private {
			return nil, "", mask
		}
		if next.mask != 0 {
			mask = next.mask
		}
		n = next
	}
	return n, "", mask
}

// addGrant adds the rules for g, going around hidden paths.
func (r *ruleset) addGrant(g grant, tree *node) error {
	if g.access == 0 {
		return nil
	}
	if !filepath.IsAbs(g.path) {
		return fmt.Errorf("%s %q is not absolute", g.what, g.path)
	}
	real, err := filepath.EvalSymlinks(g.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !g.required {
			return nil
		}
		return fmt.Errorf("%s %s: %w", g.what, g.path, err)
	}
	n, deniedBy, mask := tree.lookup(real)
	if deniedBy != "" {
		if g.required {
			return fmt.Errorf("%s %s is inside deny-read path %s", g.what, g.path, deniedBy)
		}
		r.notes = append(r.notes, fmt.Sprintf("%s %s not granted: inside deny-read path %s", g.what, g.path, deniedBy))
		return nil
	}
	access := g.access
	if mask != 0 {
		access &= mask
	}
	if n == nil || (len(n.children) == 0 && n.filter == nil && n.only == nil) {
		// Nothing hidden below: one rule for the whole hierarchy.
		fd, err := unix.Open(real, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%s %s: %w", g.what, g.path, err)
		}
		defer unix.Close(fd)
		return r.addFD(fd, real, access, -1)
	}
	return r.split(real, n, access)
}

// split grants access to everything in dir except the hidden paths below it.
// Landlock rules are inherited by everything beneath, so dir itself gets only
// the right to list it; every entry beside a hidden path gets its own rule, and
// the directories on the way to a hidden path are split in turn. Symbolic links
// get no rule: what they point to is governed by the rules on the target.
func (r *ruleset) split(dir string, n *node, access uint64) error {
	if n.mask != 0 {
		access &= n.mask
	}
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("deny-read: opening %s: %w", dir, err)
	}
	f := os.NewFile(uintptr(dfd), dir)
	defer f.Close()
	if access&ll.AccessFSReadDir != 0 {
		if err := r.addFD(dfd, dir, ll.AccessFSReadDir, 1); err != nil {
			return err
		}
	}
	if len(n.children) == 0 && n.filter == nil && n.only == nil && n.mask != 0 {
		return r.addFD(dfd, dir, access, 1)
	}
	if n.only != nil {
		for _, name := range n.only {
			if child := n.children[name]; child != nil && (child.denied || child.private) {
				continue
			}
			fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				continue // a device this system does not have
			}
			err = r.addFD(fd, filepath.Join(dir, name), access, -1)
			unix.Close(fd)
			if err != nil {
				return err
			}
		}
		return nil
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return fmt.Errorf("deny-read: listing %s: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if child := n.children[name]; child != nil {
			if child.denied || child.private {
				continue
			}
			if e.IsDir() {
				if err := r.split(path, child, access); err != nil {
					return err
				}
			}
			continue
		}
		if n.filter != nil && !n.filter(e) {
			continue
		}
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // gone since it was listed
			}
			return fmt.Errorf("deny-read: opening %s: %w", path, err)
		}
		isDir := 0
		if e.IsDir() {
			isDir = 1
		}
		err = r.addFD(fd, path, access, isDir)
		unix.Close(fd)
		if err != nil {
			return err
		}
	}
	return nil
}

// addFD adds a path-beneath rule for the file open at fd. isDir is 1 or 0 when
// the caller knows, -1 to look. Rules on anything but a directory carry only
// the rights that apply to files.
func (r *ruleset) addFD(fd int, path string, access uint64, isDir int) error {
	if isDir < 0 {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return fmt.Errorf("landlock rule for %s: %w", path, err)
		}
		isDir = 0
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			isDir = 1
		}
	}
	if isDir == 0 {
		access &= accessFileOnly
	}
	access &= r.handledFS
	if access == 0 {
		return nil
	}
	attr := ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}
	if err := ll.LandlockAddPathBeneathRule(r.fd, &attr, 0); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	r.rules++
	if path == "/proc" {
		r.procAccess |= access
	}
	return nil
}

// addRoot grants access on the whole tree.
func (r *ruleset) addRoot(access uint64) error {
	fd, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock rule for /: %w", err)
	}
	defer unix.Close(fd)
	return r.addFD(fd, "/", access, 1)
}

// addProc gives the /proc mounted now at /proc (a PID namespace's) what the
// host's /proc was given. Landlock's rules are on files, and a walk up from
// a file of the new mount passes no file of the mount below it.
func (r *ruleset) addProc() error {
	if r.procAccess == 0 {
		return nil // covered by a rule on /
	}
	fd, err := unix.Open("/proc", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock rule for the pid namespace's /proc: %w", err)
	}
	defer unix.Close(fd)
	return r.addFD(fd, "/proc", r.procAccess, 1)
}

// restrict enforces the ruleset on every thread (or the calling one only).
// no_new_privs must be set on those threads already.
func (r *ruleset) restrict(all bool) error {
	kernel, _ := hostfacts.LandlockVersion()
	var err error
	if !all {
		err = ll.LandlockRestrictSelf(r.fd, 0)
	} else if kernel >= hostfacts.ABITSync {
		err = ll.LandlockRestrictSelf(r.fd, ll.FlagRestrictSelfTSync)
	} else {
		err = ll.AllThreadsLandlockRestrictSelf(r.fd, 0)
	}
	if err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}
