package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Files git prints from its history. git show REV:PATH and git cat-file
// -p REV:PATH print a file as a commit holds it, and the patches of git
// show, git log -p and git diff limited to paths (-- .env) print its lines:
// a file deleted from the tree long ago (.env removed in a cleanup) is
// read all the same. Each such path is read where the repository is (after
// a cd there, or git -C DIR), so the rules on reads judge it as they judge
// cat: another project's .env, a production secrets file, a key. Patches
// printed with no path, in a directory the script went into, read that
// whole repository (cd ~/.password-store && git log -p).

// gitShownReads adds to b the files invocation inv (git, subcommand
// a.subcommand) prints from the repository's history.
func gitShownReads(inv *parse.Invocation, a *argv, b *effectBuilder) {
	var patches bool
	switch a.subcommand {
	case "show", "cat-file":
		patches = a.subcommand == "show"
	case "log", "whatchanged":
		patches = a.hasShort('p') || a.hasShort('u') || containsLong(a.longs, "patch") || containsLong(a.longs, "patch-with-stat") || containsLong(a.longs, "patch-with-raw")
	case "diff":
		patches = true
	default:
		return
	}
	dir, ok := gitCleanDir(inv)
	if !ok {
		return
	}
	in := func(p string) string {
		if dir == "." || p == "" || p[0] == '/' || p[0] == '~' {
			return p
		}
		return dir + "/" + p
	}
	seen, named := false, false
	for k, w := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			continue
		}
		if !seen {
			seen = w == a.subcommand
			continue
		}
		if w == "--" {
			if !patches {
				break // git log --name-only -- .env: names, not content
			}
			for _, p := range inv.Args[k+1:] {
				if p != "" && !strings.ContainsAny(p, "*?[") {
					b.add(effRead, in(p))
					named = true
				}
			}
			break
		}
		// REV:PATH (HEAD~3:.env, :config/x.yml for the index); not an
		// option's value (--format=%h:%s), an address or a range (a..b)
		if w == "" || w[0] == '-' || strings.Contains(w, "://") {
			continue
		}
		if _, p, ok := strings.Cut(w, ":"); ok && p != "" && !strings.Contains(p, ":") {
			b.add(effRead, in(p))
			named = true
		}
	}
	if patches && !named && (b.cwd != "" || dir != ".") {
		b.add(effRead, dir)
	}
}
