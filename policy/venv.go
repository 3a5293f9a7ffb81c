package policy

import (
	"path"
	"strings"
)

// Round 17: a project's virtual environment runs the system's Python by
// another path (.venv/bin/python is a link to it), so running it is
// running python, not a program named like a system tool
// (runs-from-temp-or-lookalike). Only inside the workdir, and only while
// the script itself has not written the file (runs-created-file judges
// that one).

// venvDirs are the names a virtual environment's directory goes by; a
// tox or nox environment is one level below its own.
var venvDirs = map[string]bool{".venv": true, "venv": true, "env": true, ".virtualenv": true, "virtualenv": true}

// venvInterpreter reports whether p, as written, is the Python interpreter
// of a virtual environment inside the workdir (.venv/bin/python3,
// ./services/api/venv/bin/python, .tox/py312/bin/python).
func venvInterpreter(p string) bool {
	p = strings.TrimPrefix(p, "./")
	if p == "" || p[0] == '/' || p[0] == '~' || strings.Contains(p, "..") || strings.ContainsAny(p, "$`*?[") {
		return false
	}
	dir, prog := path.Split(p)
	version, ok := strings.CutPrefix(prog, "python")
	if !ok {
		version, ok = strings.CutPrefix(prog, "pypy")
	}
	if !ok || strings.Trim(version, "0123456789.") != "" {
		return false
	}
	env, ok := strings.CutSuffix(dir, "/bin/")
	if !ok {
		return false
	}
	parent, name := path.Split(env)
	return venvDirs[name] || strings.HasSuffix(parent, ".tox/") || strings.HasSuffix(parent, ".nox/")
}

// venvPython reports whether the program name runs is a virtual
// environment's Python inside the workdir that the script did not write.
func (b *effectBuilder) venvPython(name string) bool {
	if !b.cwdKnown || !strings.Contains(name, "/bin/p") {
		return false
	}
	p := b.resolve(name)
	return venvInterpreter(p) && !b.created[p] && !under(p, b.createdDirs)
}
