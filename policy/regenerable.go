package policy

import (
	"path"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 19: deleting only what a project's own tools make again (compiled
// objects, bytecode and tool caches, the files git ignores, the volumes of
// a compose project) is everyday cleanup, even where the project is named
// by an absolute path: agents cd into their project by its absolute path
// as often as they work in the workdir. Such a delete is marked disposable
// and the deletes key passes it by, so the rules that guard the home, the
// dot-directories and the system see only what else is deleted there.
// The same names under the home directory itself, a dot-directory or a
// system directory keep their verdict: there they are not one project's
// output (find ~ -name '*.o' -delete sweeps every tool's tree).

// regenerableNames are find -name patterns that select only build output
// and caches that the project's build, test or install run writes again.
// find-exec-write's not_args (default.toml) lists them too, among other
// names find may harmlessly act on.
var regenerableNames = map[string]bool{
	"__pycache__": true, "*.pyc": true, "*.pyo": true, ".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true,
	".tox": true, ".nox": true, "*.egg-info": true, "*.o": true, "*.obj": true, "*.class": true, "*.gcda": true, "*.gcno": true,
	"node_modules": true, ".next": true, ".turbo": true, ".parcel-cache": true, ".eslintcache": true, "*.tsbuildinfo": true,
}

// systemTops are the first parts of absolute paths that hold the system,
// not a project's tree.
var systemTops = map[string]bool{
	"etc": true, "usr": true, "bin": true, "sbin": true, "lib": true, "lib32": true, "lib64": true, "libx32": true, "boot": true,
	"dev": true, "proc": true, "sys": true, "run": true, "var": true, "root": true, "snap": true, "nix": true,
	"System": true, "Library": true, "Applications": true, "private": true,
}

// projectTree reports whether p (an effect's path: ~/..., /abs or
// relative to the workdir) lies in some project's tree rather than being
// the home directory, a directory right under it, a dot-directory or a
// system directory: ~/src/api, /srv/repos/web, /work/app/build. A
// relative path is in the workdir unless it climbs out.
func projectTree(p string) bool {
	parts := strings.Split(p, "/")
	switch {
	case parts[0] == "~":
		parts = parts[1:]
	case parts[0] == "":
		parts = parts[1:]
		if len(parts) > 0 && (systemTops[parts[0]] || parts[0] == "home" || parts[0] == "Users") {
			if parts[0] != "Users" {
				return false // /home/NAME/... is written ~/... (homeAlias)
			}
			parts = parts[min(2, len(parts)):] // /Users/NAME: a home
		}
	default:
		for _, s := range parts {
			if s == ".." {
				return false
			}
		}
		return true
	}
	if len(parts) < 2 {
		return false // ~, ~/src, /work, /srv: the roots of many projects
	}
	for _, s := range parts {
		if s == "" || s[0] == '.' || strings.ContainsAny(s, "*?[$`") {
			return false
		}
	}
	return true
}

// scratchNames are find -name patterns of files a tool leaves behind
// that nothing reads again: patch rejects and originals, editor swap
// files, Finder's folder settings (Round 21). Unlike regenerable output
// they are disposable only in the workdir (markDisposableInWorkdir):
// elsewhere they may be another project's work in progress.
var scratchNames = map[string]bool{"*.orig": true, "*.rej": true, "*.swp": true, "*~": true, ".DS_Store": true, "*.tmp": true}

func regenerableName(n string) bool { return regenerableNames[n] }
func scratchName(n string) bool     { return regenerableNames[n] || scratchNames[n] }

// findSelectsRegenerable reports whether find's expression (args) selects
// only regenerable files by name (findSelects).
func findSelectsRegenerable(inv *parse.Invocation) bool {
	return findSelects(inv, regenerableName)
}

// findSelects reports whether find's expression (args) selects only files
// whose -name or -iname pattern is one of those ok takes, or a
// parenthesised -o of only such names (\( -name '*.orig' -o -name '*.rej'
// \), Round 21), with no other -o, !, -not or comma that would let other
// files through.
func findSelects(inv *parse.Invocation, ok func(string) bool) bool {
	named := false
	depth := 0
	for k, w := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			return false
		}
		if depth > 0 {
			// inside ( ): only -name NAME, -iname NAME and -o between them
			switch {
			case w == ")":
				depth--
			case w == "-o" || w == "-or":
			case (w == "-name" || w == "-iname") && k+1 < len(inv.Args):
			case k > 0 && (inv.Args[k-1] == "-name" || inv.Args[k-1] == "-iname") && ok(w):
				named = true
			default:
				return false
			}
			continue
		}
		switch w {
		case "(":
			depth++
		case "-o", "-or", "!", "-not", ",", "-L", "-follow", ")":
			return false
		case "-exec", "-execdir", "-ok", "-okdir":
			return named && depth == 0 // what runs comes after the tests
		case "-name", "-iname":
			if k+1 < len(inv.Args) && ok(inv.Args[k+1]) {
				named = true
			}
		}
	}
	return named && depth == 0
}

// findRoots returns the starting points of find: the words before its
// expression, after its options (-H, -L, -P, -Olevel, -D debugopts), up
// to the first one known only at run time.
func findRoots(inv *parse.Invocation) []string {
	var roots []string
	for i := 0; i < len(inv.Args); i++ {
		w := inv.Args[i]
		switch {
		case w == "-D":
			i++ // -D tree,stat
			continue
		case w == "-H" || w == "-L" || w == "-P" || strings.HasPrefix(w, "-O") || strings.HasPrefix(w, "-D"):
			continue
		case w == "" || w[0] == '-' || w == "(" || w == "!" || inv.DynamicArgs != nil && inv.DynamicArgs[i]:
			return roots
		}
		roots = append(roots, w)
	}
	return roots
}

// regenerableFindExec reports whether invocation i is rm or rmdir run by
// find -exec on {} where that find selects only regenerable names under
// roots in a project's tree: find ~/src/api -name __pycache__ -prune
// -exec rm -rf {} +. Then {} is a regenerable path there, not one known
// only at run time.
func (ctx *scriptCtx) regenerableFindExec(i int) bool {
	inv := &ctx.invs[i]
	n := len(inv.Via)
	if n == 0 || !strings.HasPrefix(inv.Via[n-1], "find -") || inv.Dynamic {
		return false
	}
	if name := commandName(inv.Name); name != "rm" && name != "rmdir" {
		return false
	}
	for k, d := range inv.DynamicArgs {
		if d && inv.Args[k] != "{}" {
			return false
		}
	}
	for j := i - 1; j >= 0; j-- {
		f := &ctx.invs[j]
		if len(f.Via) >= n && sameVia(f.Via[:n], inv.Via) {
			continue // another command of the same find
		}
		if f.Dynamic || commandName(f.Name) != "find" || !sameVia(f.Via, inv.Via[:n-1]) || !findSelectsRegenerable(f) {
			return false
		}
		roots := findRoots(f)
		for _, r := range roots {
			if r[0] != '/' && r[0] != '~' || !projectTree(homeAlias(normPath(r, ctx.at))) {
				return false
			}
		}
		return len(roots) > 0
	}
	return false
}

// composeDownEffects: compose down -v removes the volumes of the compose
// project whose file it is given (-f), of --project-directory's, or of the
// current directory's: the project's data, a delete of its compose file
// (the file names the project; its directory may be the home itself,
// which is not deleted). Disposable when the project is the workdir's or
// a project's tree in the home directory; services set up under /srv or
// /opt keep their data there, and -p names a project by name, which says
// nothing of where it lives (containers-remove).
func composeDownEffects(inv *parse.Invocation, a *argv, b *effectBuilder) {
	if !contains(a.positionals, "down") || !a.hasShort('v') && !containsLong(a.longs, "volumes") {
		return
	}
	file, known := "compose.yaml", true
	for k := len(inv.Args) - 1; k >= 0; k-- {
		w, v := inv.Args[k], ""
		switch {
		case inv.DynamicArgs != nil && (inv.DynamicArgs[k] || k+1 < len(inv.DynamicArgs) && inv.DynamicArgs[k+1]):
			known = false // -f "$F": which project is known at run time
		case (w == "-f" || w == "--file") && k+1 < len(inv.Args):
			v = inv.Args[k+1]
		case strings.HasPrefix(w, "--file="):
			v = w[len("--file="):]
		case w == "--project-directory" && k+1 < len(inv.Args):
			v = inv.Args[k+1] + "/compose.yaml"
		case strings.HasPrefix(w, "--project-directory="):
			v = w[len("--project-directory="):] + "/compose.yaml"
		}
		if v != "" {
			file = v // the first -f names the project
		}
	}
	n := len(b.all)
	b.add(effDelete, file)
	for k := n; k < len(b.all); k++ {
		e := &b.all[k]
		e.disposable = known && e.path[0] != '/' && projectTree(path.Dir(e.path))
	}
}

// markDisposableInWorkdir marks the effects b added since n disposable
// where they lie in the workdir (inWorkdir).
func (b *effectBuilder) markDisposableInWorkdir(n int) {
	for k := n; k < len(b.all); k++ {
		b.all[k].disposable = inWorkdir(b.all[k].path)
	}
}

// markDisposable marks the effects b added since n disposable where they
// lie in a project's tree.
func (b *effectBuilder) markDisposable(n int) {
	for k := n; k < len(b.all); k++ {
		b.all[k].disposable = projectTree(b.all[k].path)
	}
}

// disposableUnder reports whether a word known only at run time names
// only regenerable or temporary files in the directory a quoted variable
// holds: "$OUT"/*.tmp, "${BUILD:?}/"__pycache__. Whatever the directory,
// rm reaches only files of that name there. An expansion outside quotes,
// which may split into other words (rm -rf $D/*.o with D='/ x'), or a
// pattern in the directory part is not.
func disposableUnder(w string) bool {
	i := strings.LastIndexByte(w, '/')
	if i <= 0 || w[0] != '"' {
		return false
	}
	leaf := strings.Trim(w[i+1:], `"`)
	if !regenerableNames[leaf] && leaf != "*.tmp" {
		return false
	}
	quoted := false
	for k := 0; k < len(w); k++ {
		switch c := w[k]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' || c == '\'' || c == '`':
			return false
		case !quoted && k < i && strings.IndexByte("$*?[{", c) >= 0:
			return false
		}
	}
	return !quoted
}

// gitCleanDir returns the directory git clean works in as git's options
// before the subcommand name it (-C DIR, --work-tree=DIR), or "." for
// the current one; false when an option's value is known only at run
// time.
func gitCleanDir(inv *parse.Invocation) (string, bool) {
	dir := "."
	for k := 0; k < len(inv.Args); k++ {
		w, v := inv.Args[k], ""
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			return "", false
		}
		switch {
		case !strings.HasPrefix(w, "-"):
			return dir, true // the subcommand
		case (w == "-C" || w == "--work-tree") && k+1 < len(inv.Args):
			k++
			if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
				return "", false
			}
			v = inv.Args[k]
		case strings.HasPrefix(w, "--work-tree="):
			v = w[len("--work-tree="):]
		}
		if v != "" && (v[0] == '/' || v[0] == '~' || dir == ".") {
			dir = v
		} else if v != "" {
			dir += "/" + v // git -C a -C b works in a/b
		}
	}
	return dir, true
}
