package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stockade/stockade/degrade"
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
	wd := realPath(workdir)
	if wd == "/" {
		return &dangerousWorkdir{workdir, "/, the whole filesystem"}
	}
	if home := os.Getenv("HOME"); filepath.IsAbs(home) {
		switch h := realPath(home); {
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
		if d := realPath(abs); within(d, wd) {
			return &dangerousWorkdir{workdir, "a directory that holds the deny-read path " + p}
		}
	}
	return nil
}

// within reports whether path is strictly inside dir.
func within(path, dir string) bool {
	return strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// realPath resolves symlinks in p, or in its longest existing prefix.
func realPath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == "" || dir == p || base == "" {
		return p
	}
	return filepath.Join(realPath(filepath.Clean(dir)), base)
}
