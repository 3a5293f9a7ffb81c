package policy

import (
	"path"
	"strings"
)

// Round 22: a project links or copies one of its own files into a place
// tools look programs up (ln -sf ../../scripts/dev.sh node_modules/.bin/dev,
// cp build/cli .venv/bin/cli): what the next npx or activated shell runs is
// the project's file, there to read, as npm's own links to a package's bin
// are. A source outside the workdir, one the script itself downloaded or
// wrote, or one named by a variable is still a program planted unseen.

// copiesWorkdirFile reports whether invocation i (cp, ln or install) puts
// in place only files of the workdir that no earlier command of the script
// wrote, and only into the workdir.
func (ctx *scriptCtx) copiesWorkdirFile(i int, a *argv) bool {
	switch a.name {
	case "cp", "ln", "install":
	default:
		return false
	}
	inv := &ctx.invs[i]
	if inv.Dynamic || len(inv.Redirects) > 0 || len(a.positionals) < 2 || a.hasShort('t') || contains(a.longs, "target-directory") {
		return false
	}
	dest := a.positionals[len(a.positionals)-1]
	if strings.ContainsAny(dest, "$`") {
		return false
	}
	// where the destination is, from the workdir: the write's own path
	var destPath string
	for _, e := range ctx.effectsOf(i) {
		if e.kind == effWrite {
			if destPath != "" || !inWorkdir(e.path) {
				return false
			}
			destPath = e.path
		}
	}
	if destPath == "" {
		return false
	}
	// the directory the script's cd's lead to, from the workdir
	cwd, ok := strings.CutSuffix(destPath, normPath(dest, ctx.at))
	if !ok {
		return false
	}
	cwd = strings.TrimSuffix(cwd, "/")
	symbolic := a.name == "ln" && (a.hasShort('s') || contains(a.longs, "symbolic"))
	for _, src := range a.positionals[:len(a.positionals)-1] {
		var inside []string // the source, from the workdir, as each reading of the command has it
		switch rel, pwd := cutPWD(src); {
		case pwd:
			if cwd != "" || ctx.text != nil && strings.Contains(*ctx.text, "PWD=") {
				return false // $PWD is the workdir only where no cd or assignment moved it
			}
			inside = []string{path.Clean(rel)}
		case strings.ContainsAny(src, "$`") || src == "" || src[0] == '/' || src[0] == '~':
			return false
		case symbolic:
			// a relative link target is read from the link's directory:
			// the destination's, or the destination itself if a directory
			inside = []string{path.Join(path.Dir(destPath), src), path.Join(destPath, src)}
		default:
			inside = []string{path.Join(cwd, src)}
		}
		for _, p := range inside {
			if !inWorkdir(p) || p == "." || ctx.writtenBefore(i, p) {
				return false
			}
		}
	}
	return true
}

// cutPWD: a word "$PWD/x" or "${PWD}/x" (quoted or not) with nothing else
// computed, as x.
func cutPWD(w string) (string, bool) {
	if strings.ContainsAny(w, "'\\") {
		return "", false
	}
	w = strings.ReplaceAll(w, `"`, "")
	for _, p := range []string{"$PWD/", "${PWD}/"} {
		if rest, ok := strings.CutPrefix(w, p); ok && rest != "" && !strings.ContainsAny(rest, "$`") {
			return rest, true
		}
	}
	return "", false
}

// inWorkdir: a normalised path relative to the workdir, not leaving it.
func inWorkdir(p string) bool {
	return p != "" && p[0] != '/' && p[0] != '~' && p != ".." && !strings.HasPrefix(p, "../")
}

// writtenBefore reports whether an invocation before i may have written
// the path p: it writes p or a directory p lies in, it fetches or extracts
// files (a download, an archive, a clone), or a cd to a directory the
// analysis does not know makes p another file than it reads.
func (ctx *scriptCtx) writtenBefore(i int, p string) bool {
	for j := range i {
		inv := &ctx.invs[j]
		a := ctx.arg(j)
		if inv.Dynamic || fetches(a.name) || extractsHere(a.name) || (a.name == "cd" || a.name == "pushd" || a.name == "popd") && (a.dynamicArg || len(a.positionals) == 0 || a.positionals[0] == "-") {
			return true
		}
		for _, e := range ctx.effectsOf(j) {
			if e.kind == effWrite && (e.path == p || e.path == "." || strings.HasPrefix(p, e.path+"/")) {
				return true
			}
		}
	}
	return false
}
