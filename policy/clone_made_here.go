package policy

import (
	"path"
	"strings"
)

// Round 22: git rewrites history (filter-repo, filter-branch) in a clone
// the script itself just made (git clone --no-local . /tmp/slim && cd
// /tmp/slim && git filter-repo ...): the commits it drops are still in the
// repository cloned, so nothing is lost. Pushing the result is judged by
// the push rules.

// inCloneMadeHere reports whether git invocation i runs, with no option
// naming another repository, in a directory an earlier git clone of the
// script made, the cd's between known.
func (ctx *scriptCtx) inCloneMadeHere(i int, a *argv) bool {
	inv := &ctx.invs[i]
	if a.name != "git" || inv.Dynamic || len(inv.Args) == 0 || strings.HasPrefix(inv.Args[0], "-") || !oneAndChain(ctx.text) {
		return false
	}
	cwd := "."
	var clones []string
	for j := range i {
		b := ctx.arg(j)
		if ctx.invs[j].Dynamic {
			return false
		}
		switch {
		case b.name == "cd" || b.name == "pushd" || b.name == "popd":
			if b.name == "popd" || b.dynamicArg || len(b.positionals) == 0 || b.positionals[0] == "-" || strings.HasPrefix(b.positionals[0], "~") {
				return false
			}
			cwd = joinDir(cwd, b.positionals[0])
		case b.name == "git" && b.subcommand == "clone" && len(b.positionals) >= 3 && !b.dynamicArg:
			clones = append(clones, joinDir(cwd, b.positionals[len(b.positionals)-1]))
		}
	}
	for _, c := range clones {
		if cwd == c || strings.HasPrefix(cwd, c+"/") {
			return true
		}
	}
	return false
}

// joinDir is the directory d names from cwd.
func joinDir(cwd, d string) string {
	if strings.HasPrefix(d, "/") {
		return path.Clean(d)
	}
	return path.Join(cwd, d)
}

// oneAndChain reports whether a script's text is one chain of commands
// joined by && (no ;, newline, ||, & or GIT_DIR anywhere): each runs only
// when the one before succeeded, so a git clone that failed, into a
// directory that held another repository, stops the commands after it.
func oneAndChain(text *string) bool {
	if text == nil {
		return false
	}
	t := strings.TrimRight(*text, " \t\n")
	if strings.ContainsAny(t, ";\n") || strings.Contains(t, "GIT_DIR") || strings.Contains(t, "||") {
		return false
	}
	return !strings.Contains(strings.ReplaceAll(t, "&&", ""), "&")
}
