package pipeline

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/policy"
)

// dangerousWorkdir is a workdir that would make too much writable in
// workspace-write mode: / (the whole filesystem), the home directory (shell
// rc files, ~/.config, every other project), or a directory that holds a
// deny-read path. stockade serve started by a desktop client from / would
// otherwise hand the agent the filesystem, silently.
type dangerousWorkdir struct {
	workdir string
	why     string
}

func (e *dangerousWorkdir) Error() string {
	return fmt.Sprintf("workdir %s is %s; in workspace-write mode all of it would be writable", e.workdir, e.why)
}

func (e *dangerousWorkdir) Hints() []string {
	return []string{
		"pass --workdir with the project's own directory (for example --workdir ~/src/myproject), or start stockade from it",
		"or pass --fs read-only to look around without writing",
		"to make it writable anyway, knowingly: --allow-dangerous-workdir",
	}
}

// checkWorkdir refuses a workdir that is /, $HOME, or holds $HOME or a
// deny-read path. Paths are compared after resolving symlinks where they exist.
func checkWorkdir(workdir string, denyRead []string) error {
	real := resolver{}
	wd := real.path(workdir)
	if wd == "/" {
		return &dangerousWorkdir{workdir, "/, the whole filesystem"}
	}
	if home := os.Getenv("HOME"); filepath.IsAbs(home) {
		switch h := real.path(home); {
		case wd == h:
			return &dangerousWorkdir{workdir, "your home directory"}
		case within(h, wd):
			return &dangerousWorkdir{workdir, "a directory that holds your home directory " + home}
		}
	}
	for _, p := range denyRead {
		abs, err := degrade.ExpandPath(p, workdir)
		if err != nil {
			continue // Plan reports it
		}
		if d := real.path(abs); within(d, wd) {
			return &dangerousWorkdir{workdir, "a directory that holds the deny-read path " + p}
		}
	}
	return nil
}

// InWorkdir returns p judging scripts that start in workdir: a path in the
// workdir is judged as the workdir's own, however a script names it
// (policy.InWorkdir). Not in a workdir checkWorkdir calls dangerous (/, the
// home or above it, one holding a deny-read path): there p is returned
// as it is.
func InWorkdir(p *policy.Policy, workdir string) *policy.Policy {
	if checkWorkdir(workdir, p.Sandbox.DenyRead) != nil {
		return p
	}
	return p.InWorkdir(workdir)
}

// within reports whether path is strictly inside dir.
func within(path, dir string) bool {
	return strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// resolver resolves symlinks in paths, each directory once: the deny-read
// paths share their parents (most are under ~), and most do not exist.
type resolver map[string]string

// path resolves symlinks in p, or in its longest existing prefix: what
// filepath.EvalSymlinks gives for a path that exists, and for one that does
// not, its longest existing prefix resolved and the rest as it is.
func (r resolver) path(p string) string {
	p = filepath.Clean(p)
	if real, ok := r[p]; ok {
		return real
	}
	real := p
	if dir, base := filepath.Split(p); dir == "" || base == "" {
		if e, err := filepath.EvalSymlinks(p); err == nil { // "/" or a relative name
			real = e
		}
	} else {
		real = filepath.Join(r.path(dir), base)
		if fi, err := os.Lstat(real); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if e, err := filepath.EvalSymlinks(real); err == nil {
				real = e
			}
		}
	}
	r[p] = real
	return real
}
