// Package refusal explains, after a command ran, what the sandbox refused
// it: one line per refusal that says what was refused, why, and the flag
// or policy key that would allow it, for the model (MCP notes) and for a
// person (stockade run).
//
// The kernel does not tell the parent what Landlock or seccomp refused
// (Landlock's audit records, where the kernel has them, cover only domains
// that ask for them and go to the host's audit log, mixed with every other
// process), so the evidence is the command's own error messages: a line of
// stderr that names a path and "Permission denied", "Read-only file system"
// or the like, or a socket that was "not permitted". A line becomes a note
// only when the sandbox's rules account for it and the host does not: a path
// under a deny-read entry; a write outside the writable roots to a place the
// user could write without the sandbox, on a mount that is not read-only;
// a socket when the network or unix sockets are off. Anything else (a file
// mode in the workdir, a read-only mount of the host) gets no note: a cause
// is never claimed that was not seen.
package refusal

import (
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/sandbox"
)

// MaxNotes bounds the notes for one command; a build that fails on one
// refused directory can print it a thousand times.
const MaxNotes = 5

// kind is what a line of stderr says went wrong.
type kind int

const (
	none   kind = iota
	denied      // EACCES
	rofs        // EROFS
	eperm       // EPERM
	busy        // EBUSY: a rename over a file that is a read-only mount
)

// patterns are the regular expressions below, compiled on first use: not in
// every stockade process (the sandboxed child included) at start.
var patterns = sync.OnceValue(func() *pats {
	return &pats{
		denied: regexp.MustCompile(`(?i)permission denied|\bEACCES\b|\[Errno 13\]`),
		rofs:   regexp.MustCompile(`(?i)read-only file system|\bEROFS\b|\[Errno 30\]`),
		eperm:  regexp.MustCompile(`(?i)operation not permitted|\bEPERM\b|\[Errno 1\]`),
		busy:   regexp.MustCompile(`(?i)device or resource busy|\bEBUSY\b|\[Errno 16\]`),
		socket: regexp.MustCompile(`(?i)\bsocket\b|\bconnect\b|\bdial\b|\bbind\b|\blisten\b`),
		listen: regexp.MustCompile(`(?i)\blisten\b|\bbind\b`),
		server: regexp.MustCompile(`\.(?:bind|listen)\(`),
		made:   regexp.MustCompile(`\bsocket\.socket\(|\b_socket\.socket\.__init__\(`),
		afUnix: regexp.MustCompile(`\bAF_UNIX\b`),
		inet:   regexp.MustCompile(`(?i)((?:\d{1,3}\.){3}\d{1,3}|\[[0-9a-f:.]+\]|localhost):(\d{1,5})\b`),
		mount:  regexp.MustCompile(`(?i)\bmount`),
		unix:   regexp.MustCompile(`(?i)\bunix\b|\.sock\b`),
		dns:    regexp.MustCompile(`(?i)temporary failure in name resolution|\bEAI_AGAIN\b|could not resolve host|could not resolve hostname|lookup \S+ on \S+: dial udp`),
		read:   regexp.MustCompile(`(?i)cannot open directory|cannot read|cannot access|\bopendir\b|\bscandir\b|error reading|failed to read|could not read|unable to read`),
		prog:   regexp.MustCompile(`^\s*[^\s:'"]+: (?:line \d+: )?`),
		before: regexp.MustCompile(`(?i)(\S+): (?:permission denied|read-only file system|operation not permitted)`),
		quoted: regexp.MustCompile("['\"‘`]([^'\"’`\\s][^'\"’`]*)['\"’`]"),
		path:   regexp.MustCompile(`(?:^|[\s(=:])((?:~|\.{1,2})?/[^\s:'"(),;]*)`),
	}
})

type pats struct {
	// denied, rofs, eperm: the error a line reports (EACCES, EROFS, EPERM).
	// busy: EBUSY, which a rename over a read-only mounted file gets.
	denied, rofs, eperm, busy *regexp.Regexp
	// socket: the line is about a socket or a connection; unix: a unix one.
	socket, unix *regexp.Regexp
	// listen: the line is about a server socket; server: a line of source
	// that makes one (a traceback's line before its error); inet: the
	// address it names; mount: a bind mount, which is none. made: a line
	// of source that makes a socket (a Python traceback's, before the error
	// of a socket the sandbox refused).
	// afUnix: such a line makes a unix socket.
	listen, server, inet, mount, made, afUnix *regexp.Regexp
	// dns: a name lookup failed, which with the network off the sandbox
	// causes (the resolver's socket is refused).
	dns *regexp.Regexp
	// read: the operation was a read, not a write.
	read *regexp.Regexp
	// prog: the "program: " or "bash: line 3: " a message starts with;
	// before: the word just before the error ("x.txt: Permission denied").
	prog, before *regexp.Regexp
	// quoted and path find the paths a line names.
	quoted, path *regexp.Regexp
}

// Notes returns what spec refused the command, read from its stderr; cwd
// is where the command ran (relative paths are taken from it).
func Notes(stderr, cwd string, spec sandbox.Spec) []string {
	var notes []string
	add := func(n string) {
		if n != "" && !slices.Contains(notes, n) && len(notes) < MaxNotes {
			notes = append(notes, n)
		}
	}
	// The three lines before each: a Python traceback names the source
	// line that failed, and the frame of the socket module, before its error.
	var recent [3]string
	for line := range strings.Lines(stderr) {
		if len(notes) >= MaxNotes {
			break
		}
		before := strings.Join(recent[:], "")
		recent = [3]string{recent[1], recent[2], line}
		k := lineKind(line)
		if k == none && !patterns().dns.MatchString(line) {
			continue
		}
		if serverSocket(line, before) {
			add(listenNote(line, k, spec))
			continue
		}
		if n := socketNote(line, before, k, spec); n != "" {
			add(n)
			continue
		}
		if k == none || k == eperm {
			continue
		}
		if n := protectedNote(line, cwd, spec); n != "" {
			add(n)
			continue
		}
		if k == busy {
			continue
		}
		for _, p := range paths(line, cwd) {
			add(fileNote(p, k, patterns().read.MatchString(line), spec))
		}
	}
	return notes
}

func lineKind(line string) kind {
	switch {
	case patterns().rofs.MatchString(line):
		return rofs
	case patterns().denied.MatchString(line):
		return denied
	case patterns().eperm.MatchString(line):
		return eperm
	case patterns().busy.MatchString(line):
		return busy
	}
	return none
}

// socketNote explains a refused socket or name lookup, if the line (or,
// for a socket, the source lines before it) is one and the sandbox refuses it.
func socketNote(line, before string, k kind, spec sandbox.Spec) string {
	lookup := patterns().dns.MatchString(line)
	if !lookup && (k == none || !patterns().socket.MatchString(line) && !patterns().made.MatchString(before)) {
		return ""
	}
	switch {
	case !lookup && (patterns().unix.MatchString(line) || patterns().afUnix.MatchString(before)):
		if spec.UnixSocketsOff && k == eperm {
			return `unix socket refused: new unix sockets are off in this sandbox (unix_sockets = "deny"); allow with [sandbox] unix_sockets = "allow" in a policy file (--policy)`
		}
	case spec.NetworkOff && (lookup || k == eperm || k == denied):
		what := "network connection refused"
		if lookup {
			what = "name lookup failed"
		}
		return what + `: this sandbox has no network (network = "off"); allow hosts by name with --allow-host NAME or [network] allow (network = "allowlist"), or everything with --network on`
	}
	return ""
}

// serverSocket reports whether line is about a server socket (an inet
// one: not a unix socket, not a bind mount), or follows lines of source
// that make one (a Python traceback's).
func serverSocket(line, before string) bool {
	p := patterns()
	return (p.listen.MatchString(line) || p.server.MatchString(before)) && !p.unix.MatchString(line) && !p.afUnix.MatchString(before) && !p.mount.MatchString(line)
}

// listenNote explains a server socket the sandbox refused (line is about
// one), where the session has no network namespace: with the network off no
// inet socket can be made, and under Landlock's port rule (allowlist,
// best-effort) every bind is refused. In a namespace of its own the session
// may listen (a refusal there is the host's: a port below 1024), and under
// the connect supervisor, which sees each bind and listen itself, the
// supervisor's note says it.
func listenNote(line string, k kind, spec sandbox.Spec) string {
	if k != denied && k != eperm || spec.NetNS || spec.Supervised || !spec.NetworkOff && !spec.ProxyPortOnly {
		return ""
	}
	p := patterns()
	by := `network = "off": no inet socket can be made`
	if spec.ProxyPortOnly {
		by = "Landlock's port rule refuses every bind"
	}
	var addr netip.AddrPort
	if m := p.inet.FindStringSubmatch(line); m != nil {
		host := strings.Trim(m[1], "[]")
		if strings.EqualFold(host, "localhost") {
			host = "127.0.0.1"
		}
		addr, _ = netip.ParseAddrPort(net.JoinHostPort(host, m[2]))
	}
	return netproxy.Notes([]netproxy.Event{netproxy.Listen(addr, by)})[0]
}

// protectedNote explains a refused write to a protected path (git hooks
// and config, the policy files in use), if the line names one: by its
// absolute path or relative to cwd (git says ".git/config").
func protectedNote(line, cwd string, spec sandbox.Spec) string {
	for _, p := range spec.Protected {
		rel, err := filepath.Rel(cwd, p)
		if mentions(line, p, false) || err == nil && !strings.HasPrefix(rel, "..") && mentions(line, rel, true) {
			return fmt.Sprintf("write to %s refused: it is protected (read-only in this sandbox), because git or stockade runs what it names outside the sandbox later; make this change yourself, outside stockade, if you want it", p)
		}
	}
	return ""
}

// mentions reports whether line names path as a whole path: not as part
// of a longer name (".git" in ".gitignore") nor, for a relative path, as
// the tail of another one ("/elsewhere/.git/config").
func mentions(line, path string, relative bool) bool {
	nameByte := func(c byte) bool {
		return c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(line[i:], path)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(path)
		before := start == 0 || !nameByte(line[start-1]) && !(relative && line[start-1] == '/')
		after := end == len(line) || !nameByte(line[end]) || line[end] == '.' && (end+1 == len(line) || !nameByte(line[end+1]))
		if before && after {
			return true
		}
		i = start + 1
	}
}

// paths lists the paths a line names, absolute and clean.
func paths(line, cwd string) []string {
	var out []string
	seen := map[string]bool{}
	addPath := func(p string) {
		p = strings.TrimRight(p, ".,;")
		if p == "" || strings.HasPrefix(p, "//") || strings.Contains(p, "://") {
			return
		}
		if !filepath.IsAbs(p) {
			if strings.HasPrefix(p, "~") || cwd == "" {
				return
			}
			p = filepath.Join(cwd, p)
		}
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if rest := patterns().prog.ReplaceAllString(line, ""); lineKind(rest) != none {
		line = rest
	}
	for _, m := range patterns().before.FindAllStringSubmatch(line, -1) {
		addPath(strings.Trim(m[1], "'\"‘’`"))
	}
	for _, m := range patterns().quoted.FindAllStringSubmatch(line, -1) {
		addPath(m[1])
	}
	for _, m := range patterns().path.FindAllStringSubmatch(line, -1) {
		addPath(m[1])
	}
	return out
}

// fileNote explains a refused access to path, if the sandbox refuses it
// and the host would not.
func fileNote(path string, k kind, read bool, spec sandbox.Spec) string {
	if spec.FS == sandbox.FSOff && len(spec.DenyRead) == 0 {
		return ""
	}
	real := realPath(path)
	// /proc and /dev are narrowed by other means (ptrace scoping, the
	// device list) that no flag opens; their errors are not explained here.
	if under(real, "/proc") || under(real, "/dev") {
		return ""
	}
	for _, d := range spec.DenyRead {
		if under(real, realPath(d)) && k == denied {
			return fmt.Sprintf("access to %s refused: %s is on the sandbox's deny-read list; allow by leaving it out of [sandbox] deny_read in a policy file (--policy)", path, d)
		}
	}
	if read || spec.FS == sandbox.FSOff {
		return ""
	}
	if len(spec.ReadableRoots) > 0 && !slices.ContainsFunc(spec.ReadableRoots, func(r string) bool { return under(real, realPath(r)) }) {
		return "" // a read may have been refused as well: which one is not known
	}
	roots := writable(spec)
	for _, r := range roots {
		if under(real, realPath(r)) {
			return "" // the sandbox lets it write here: not its refusal
		}
	}
	switch k {
	case rofs:
		if hostReadOnly(real) {
			return ""
		}
	case denied:
		if !hostWritable(real) {
			return ""
		}
	}
	if spec.FS == sandbox.FSReadOnly {
		return fmt.Sprintf(`write to %s refused: the filesystem is read-only in this sandbox (only $TMPDIR %s is writable); allow with --fs workspace-write or [sandbox] filesystem = "workspace-write"`, path, spec.TmpDir)
	}
	return fmt.Sprintf("write to %s refused: outside the writable roots (%s); allow with --allow-write %s or [sandbox] writable_roots", path, strings.Join(roots, ", "), existingDir(real))
}

// writable lists what spec lets the command write, as the sandbox does.
func writable(spec sandbox.Spec) []string {
	var roots []string
	if spec.FS == sandbox.FSWorkspaceWrite {
		roots = append(roots, spec.Workdir)
	}
	roots = append(roots, spec.TmpDir)
	if spec.FS == sandbox.FSWorkspaceWrite {
		roots = append(roots, spec.WritableRoots...)
	}
	return slices.DeleteFunc(roots, func(p string) bool { return p == "" })
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// realPath resolves the symlinks of the longest existing prefix of p.
func realPath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == "" || filepath.Clean(dir) == p {
		return p
	}
	return filepath.Join(realPath(filepath.Clean(dir)), base)
}

// existingDir is path if it is a directory, else its nearest existing
// ancestor directory: what --allow-write would need.
func existingDir(path string) string {
	for p := path; ; p = filepath.Dir(p) {
		if isDir(p) || p == "/" {
			return p
		}
	}
}
