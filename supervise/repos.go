package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stockade/stockade/buildcache"
	"github.com/stockade/stockade/sandbox"
)

// Repositories the protected paths do not cover: one the command creates
// (git init, a clone, a bare repository), one that was already nested in the
// workdir, a submodule added after the sandbox started. The user's own git
// runs their hooks and the programs their config names, outside the sandbox,
// so stockade looks for them under the writable roots after each command and
// says what in them names a program and appeared or changed: hooks other
// than git's *.sample files, config entries other than the few known to name
// none, info/attributes.
//
// The look is incremental: a directory's ctime changes whenever an entry is
// added to it, removed or renamed, and no system call can set it back, so a
// directory whose ctime is what it was at the previous look is not read
// again; its subdirectories, remembered, are. A look costs one lstat a
// directory, and a read of the directories that changed; a session's look
// (repos_linux.go) learns from inotify which ones changed, and costs a walk
// of what it remembers.

// RepoBounds bound one look.
type RepoBounds struct {
	Dirs  int           // directories looked at, in all
	Depth int           // levels below a root
	Time  time.Duration // for the whole look
}

// DefaultRepoBounds: a workdir with a large node_modules is well inside
// them; beyond them, the result says where stockade stopped looking.
var DefaultRepoBounds = RepoBounds{Dirs: 200_000, Depth: 32, Time: 2 * time.Second}

// RepoWatch finds git repositories under the writable roots and what in
// them names a program.
type RepoWatch struct {
	mu        sync.Mutex
	workdir   string    // names inside it are given relative to it
	last      RepoState // what the previous look found
	roots     []string
	protected []string
	skip      map[string]bool // git directories whose files are protected paths
	bounds    RepoBounds
	dirs      map[string]*seenDir
	gen       int                   // looks so far
	events    *dirEvents            // a session's: which directories changed; nil: ctime alone
	git       string                // the git that reads config files; "" if none
	cfgs      map[string]seenConfig // config file -> what it named, by its signature
	buf       []byte                // a look's buffer for directory entries
}

// seenDir is what a look remembers of one directory.
type seenDir struct {
	sig     fileSig
	subdirs []string // paths
	gitdir  bool     // a git directory (HEAD, and objects and refs or a commondir)
	gen     int      // the last look that reached it
	// outside are its symbolic links that point out of the roots; the
	// repository at what each names, if any, is watched.
	outside []string
	// unreadable: why it could not be read (what is below is not looked at).
	unreadable error
	// pointers are the entries that name a git directory: a .git file or
	// symlink, a commondir. What they name is read at every look: a file's
	// content changes without its directory's ctime.
	pointers []string
}

type seenConfig struct {
	sig     fileSig
	entries map[string]string
}

// RepoState is what a look found: an entry (a hook file, a config key, an
// attributes file) by name, with its signature or value.
type RepoState struct {
	Entries map[string]string
	// Stopped says where a bound stopped the look; "" if it went everywhere.
	Stopped string
}

// WatchRepos watches the repositories under the roots spec makes writable
// but the project's build cache (which only sandboxed builds use), except
// the git directories whose files are protected paths and exist now (a
// repository that does not exist yet gets no read-only mount when it
// appears: it is watched like any other).
//
// live (a session's) follows the directories with inotify between looks,
// where it can; Close ends it.
func WatchRepos(spec sandbox.Spec, bounds RepoBounds, live bool) *RepoWatch {
	var roots []string
	if spec.FS != sandbox.FSReadOnly {
		roots = append(roots, spec.Workdir)
	}
	roots = append(roots, spec.TmpDir)
	if spec.FS != sandbox.FSReadOnly {
		roots = append(roots, spec.WritableRoots...)
	}
	cache, err := buildcache.Root()
	if err != nil {
		cache = ""
	}
	w := NewRepoWatch(slices.DeleteFunc(roots, func(r string) bool { return cache != "" && within(r, cache) }), spec.Protected, bounds)
	w.protected, w.workdir = spec.Protected, spec.Workdir
	if live {
		w.events = newDirEvents()
	}
	w.last = w.Look()
	return w
}

// Changes looks again, and lists what names a program and appeared or
// changed since the previous look (ChangedRepos), and where a bound
// stopped this one, if it did.
func (w *RepoWatch) Changes() (changed []string, stopped string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.Look()
	changed = ChangedRepos(w.last, now, w.workdir)
	w.last = now
	return changed, now.Stopped
}

// within says whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// NewRepoWatch watches the repositories under roots, except the git
// directories whose hooks protected holds and that exist now.
func NewRepoWatch(roots, protected []string, bounds RepoBounds) *RepoWatch {
	w := &RepoWatch{skip: map[string]bool{}, bounds: bounds, dirs: map[string]*seenDir{}, cfgs: map[string]seenConfig{}}
	for _, r := range roots {
		if r != "" && !slices.Contains(w.roots, r) {
			w.roots = append(w.roots, filepath.Clean(r))
		}
	}
	for _, p := range protected {
		if g := filepath.Dir(p); filepath.Base(p) == "hooks" {
			if fi, err := os.Stat(g); err == nil && fi.IsDir() {
				w.skip[g] = true
			}
		}
	}
	w.git, _ = exec.LookPath("git")
	return w
}

// Protected are the protected paths to compare before and after each
// command: those WatchRepos was given but the files of a repository that
// did not exist (this watch reports what names a program in it).
func (w *RepoWatch) Protected() []string {
	gitdirs := map[string]bool{}
	for _, p := range w.protected {
		if filepath.Base(p) == "hooks" {
			gitdirs[filepath.Dir(p)] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(w.protected), func(p string) bool {
		for _, g := range []string{filepath.Dir(p), filepath.Dir(filepath.Dir(p))} {
			if gitdirs[g] && !w.skip[g] && (p == filepath.Join(g, "hooks") || p == filepath.Join(g, "config") || p == filepath.Join(g, "info", "attributes")) {
				return true
			}
		}
		return false
	})
}

// Close stops following the directories.
func (w *RepoWatch) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events.close()
	w.events = nil
}

// Look finds the repositories and reads what in them names a program. One
// look at a time.
func (w *RepoWatch) Look() RepoState {
	st := RepoState{Entries: map[string]string{}}
	if w == nil {
		return st
	}
	w.events.drain()
	defer w.events.looked()
	deadline := time.Now().Add(w.bounds.Time)
	type item struct {
		path  string
		depth int
	}
	var stack []item
	for _, r := range slices.Backward(w.roots) {
		stack = append(stack, item{r, 0})
	}
	repos := map[string]bool{}
	w.gen++
	n := 0
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d := w.dirs[it.path]; d != nil && d.gen == w.gen {
			continue // a root inside another
		}
		if it.depth > w.bounds.Depth {
			if st.Stopped == "" {
				st.Stopped = fmt.Sprintf("at %s (more than %d levels deep)", it.path, w.bounds.Depth)
			}
			continue
		}
		if n >= w.bounds.Dirs || n%256 == 0 && time.Now().After(deadline) {
			st.Stopped = fmt.Sprintf("at %s (after %d directories, %s)", it.path, n, time.Since(deadline.Add(-w.bounds.Time)).Round(time.Millisecond))
			break
		}
		n++
		d := w.readDir(it.path)
		if d == nil {
			continue
		}
		d.gen = w.gen
		if d.unreadable != nil && st.Stopped == "" {
			st.Stopped = fmt.Sprintf("at %s (it cannot be read: %v)", it.path, errors.Unwrap(d.unreadable))
		}
		for _, f := range d.pointers {
			if g := pointedAt(f); g != "" {
				repos[g] = true
			}
		}
		for _, l := range d.outside {
			if t, err := filepath.EvalSymlinks(l); err == nil {
				repos[t] = true // a bare repository, or its .git
				if g := filepath.Join(t, ".git"); exists(g) {
					repos[g] = true
					if pg := pointedAt(g); pg != "" {
						repos[pg] = true
					}
				}
			}
		}
		subdirs := d.subdirs
		if d.gitdir {
			repos[it.path] = true
			// Inside a git directory, only its submodules' repositories.
			subdirs = nil
			if m := filepath.Join(it.path, "modules"); slices.Contains(d.subdirs, m) {
				subdirs = []string{m}
			}
		}
		for _, s := range slices.Backward(subdirs) {
			stack = append(stack, item{s, it.depth + 1})
		}
	}
	if st.Stopped == "" {
		// Forget what is gone; a stopped look keeps the rest.
		maps.DeleteFunc(w.dirs, func(_ string, d *seenDir) bool { return d.gen != w.gen })
	}
	// A repository a pointer names may point on (a worktree's commondir).
	for g := range repos {
		if d := w.dirs[g]; d == nil || d.gen != w.gen {
			if d = w.readDir(g); d != nil {
				for _, f := range d.pointers {
					if c := pointedAt(f); c != "" {
						repos[c] = true
					}
				}
			}
		}
	}
	for g := range repos {
		if !w.skip[g] && isGitDir(g) {
			w.entries(g, st.Entries)
		}
	}
	return st
}

// readDir is the directory at p, read again only if its ctime changed; nil
// if it is not a directory.
func (w *RepoWatch) readDir(p string) *seenDir {
	if d := w.dirs[p]; d != nil && w.events.unchanged(p) {
		return d
	}
	w.events.watch(p) // before it is read: what comes after is an event
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() {
		return nil
	}
	sig := signature(fi)
	if d := w.dirs[p]; d != nil && d.sig == sig && !sig.ctime.IsZero() {
		return d
	}
	if w.buf == nil {
		w.buf = make([]byte, 32<<10)
	}
	d := &seenDir{sig: sig}
	var head, objects, refs, commondir, dotGitFile bool
	err = eachEntry(p, w.buf, func(name []byte, typ fs.FileMode) {
		if typ == fs.ModeDir {
			d.subdirs = append(d.subdirs, filepath.Join(p, string(name)))
		}
		if typ == fs.ModeSymlink && string(name) != ".git" {
			// A link out of the roots looked at (into the build cache, say):
			// git run through it uses what is there.
			link := filepath.Join(p, string(name))
			if t, err := os.Readlink(link); err == nil {
				if !filepath.IsAbs(t) {
					t = filepath.Join(p, t)
				}
				if !slices.ContainsFunc(w.roots, func(r string) bool { return within(filepath.Clean(t), r) }) {
					d.outside = append(d.outside, link)
				}
			}
		}
		switch string(name) {
		case "HEAD":
			head = true
		case "objects":
			objects = true
		case "refs":
			refs = true
		case "commondir":
			commondir = true
		case ".git":
			dotGitFile = typ != fs.ModeDir
		}
	})
	if err != nil {
		return &seenDir{sig: sig, unreadable: err}
	}
	d.gitdir = head && (objects && refs || commondir)
	var ptrs []string
	if dotGitFile {
		ptrs = append(ptrs, filepath.Join(p, ".git"))
	}
	if d.gitdir && commondir {
		ptrs = append(ptrs, filepath.Join(p, "commondir"))
	}
	d.pointers = ptrs
	w.dirs[p] = d
	return d
}

// isGitDir says whether git takes dir for a git directory (what a pointer
// names may be anything).
func isGitDir(dir string) bool {
	j := func(name string) string { return filepath.Join(dir, name) }
	return exists(j("HEAD")) && (exists(j("objects")) && exists(j("refs")) || exists(j("commondir")))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// pointedAt is the git directory a .git file ("gitdir: X"), a .git symlink
// or a commondir file names, or "".
func pointedAt(f string) string {
	fi, err := os.Lstat(f)
	if err != nil {
		return ""
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(f)
		if err != nil {
			return ""
		}
		return t
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return ""
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if filepath.Base(f) == ".git" {
		var ok bool
		if s, ok = strings.CutPrefix(s, "gitdir:"); !ok {
			return ""
		}
		s = strings.TrimSpace(s)
	}
	if s == "" {
		return ""
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(filepath.Dir(f), s)
	}
	return filepath.Clean(s)
}

// entries adds what in the git directory g names a program: its hooks
// (not the samples), the config entries that name programs or may, and
// info/attributes.
func (w *RepoWatch) entries(g string, out map[string]string) {
	hooks := filepath.Join(g, "hooks")
	if fi, err := os.Lstat(hooks); err == nil && !fi.IsDir() {
		out[hooks] = sigString(fi, hooks)
	}
	if ents, err := os.ReadDir(hooks); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".sample") {
				continue // git runs none of these
			}
			p := filepath.Join(hooks, e.Name())
			if fi, err := os.Lstat(p); err == nil {
				out[p] = sigString(fi, p)
			}
		}
	}
	attrs := filepath.Join(g, "info", "attributes")
	if fi, err := os.Lstat(attrs); err == nil {
		out[attrs] = sigString(fi, attrs)
	}
	cfg := filepath.Join(g, "config")
	for k, v := range w.config(cfg) {
		out[cfg+": "+k] = v
	}
}

func sigString(fi fs.FileInfo, p string) string {
	s := signature(fi)
	if fi.Mode()&fs.ModeSymlink != 0 {
		s.link, _ = os.Readlink(p)
	}
	return fmt.Sprintf("%v", s)
}

func signature(fi fs.FileInfo) fileSig {
	s := fileSig{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime()}
	s.ctime, s.ino = statTimes(fi)
	return s
}

// config is what the config file names that may be a program, key by key,
// read by git itself (so that stockade reads it as the user's git will),
// again only when the file changed. Without git, or if git cannot read it,
// the file as a whole.
func (w *RepoWatch) config(p string) map[string]string {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	sig := signature(fi)
	if c, ok := w.cfgs[p]; ok && c.sig == sig && !sig.ctime.IsZero() {
		return c.entries
	}
	entries := map[string]string{}
	var out []byte
	if w.git != "" && fi.Mode().IsRegular() {
		cmd := exec.Command(w.git, "config", "--file", p, "--no-includes", "--list", "-z")
		cmd.Dir = "/"
		cmd.Env = []string{"PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent"}
		out, err = cmd.Output()
	}
	if w.git == "" || !fi.Mode().IsRegular() || err != nil {
		entries["(the whole file: git could not read it)"] = sigString(fi, p)
	} else {
		for _, kv := range bytes.Split(out, []byte{0}) {
			k, v, _ := strings.Cut(string(kv), "\n")
			if k != "" && namesProgram(k, v) {
				entries[k] += v + "\n"
			}
		}
	}
	w.cfgs[p] = seenConfig{sig, entries}
	return entries
}

// quietKeys are the config keys git init, clone, submodule and worktree
// write, and the everyday ones, that name no program: the rest may
// (core.hooksPath, core.fsmonitor, core.sshCommand, core.pager,
// credential.helper, diff.external, filter.*, alias.*, include.path,
// protocol.*.allow, submodule.*.update, remote.*.uploadpack, and every key
// git adds later), and are reported. A key is section.key, or
// section.*.key for a key with a subsection.
var quietKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.worktree": true, "core.autocrlf": true, "core.eol": true,
	"core.safecrlf": true, "core.quotepath": true, "core.sharedrepository": true,
	"remote.*.url": true, "remote.*.pushurl": true, "remote.*.fetch": true, "remote.*.push": true,
	"remote.*.tagopt": true, "remote.*.prune": true, "remote.*.mirror": true,
	"branch.*.remote": true, "branch.*.merge": true, "branch.*.rebase": true,
	"branch.*.pushremote": true, "branch.*.description": true,
	"submodule.*.url": true, "submodule.*.active": true, "submodule.*.branch": true, "submodule.active": true,
	"user.name": true, "user.email": true, "init.defaultbranch": true, "extensions.objectformat": true,
	"pull.rebase": true, "pull.ff": true, "push.default": true, "fetch.prune": true,
}

// namesProgram says whether the config entry key=value may name a program.
func namesProgram(key, value string) bool {
	section, rest, _ := strings.Cut(key, ".")
	if i := strings.LastIndex(rest, "."); i >= 0 {
		key = section + ".*" + rest[i:]
	}
	if !quietKeys[key] {
		return true
	}
	// A URL through a transport helper runs it: ext::sh -c ...
	return strings.HasSuffix(key, "url") && strings.Contains(value, "::")
}

// ChangedRepos lists what names a program in after and is new or different
// from before, paths inside workdir relative to it. What went away is not
// listed: nothing can be planted by removing it.
func ChangedRepos(before, after RepoState, workdir string) []string {
	var out []string
	for e, a := range after.Entries {
		name := e
		if rel, err := filepath.Rel(workdir, e); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		switch b, ok := before.Entries[e]; {
		case !ok:
			out = append(out, name+" (created)")
		case a != b:
			out = append(out, name+" (changed)")
		}
	}
	slices.Sort(out)
	return out
}

// ReposNote is the note a result carries when ChangedRepos found something.
func ReposNote(changed []string) string {
	return "a git repository that stockade does not protect (created or cloned since the sandbox started, or nested in the workdir) has code that runs outside the sandbox later, when you run git in it; review it before you do: " + strings.Join(changed, ", ")
}

// ReposStoppedNote is the note a result carries when a bound stopped the look.
func ReposStoppedNote(stopped string) string {
	return "stockade stopped looking for git repositories under the writable roots " + stopped + ": the hooks and config of repositories beyond that point are not watched; review them before you run git there"
}
