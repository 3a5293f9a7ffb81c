package policy

import (
	"slices"
	"strings"
)

// Files found and then read: find ... -exec cat {} \; and find ... | xargs
// cat (or locate ... | xargs cat) read every file the search names, as if
// their paths were written out. The reader's reads are the search's start directories joined with
// its name patterns (~/.mozilla/**/logins.json, /**/.env.production), so
// the rules on reads (credential files, deny_read) judge them like any
// other read.

// foundFileReads adds to b the reads of invocation i when it is the
// program a find runs on what it finds, directly (-exec, -execdir, -ok) or
// through xargs.
func (ctx *scriptCtx) foundFileReads(i int, a *argv, b *effectBuilder) {
	inv := &ctx.invs[i]
	if len(inv.Via) == 0 || notContentReaders[a.name] {
		return
	}
	find := -1
	switch via := inv.Via[len(inv.Via)-1]; {
	case strings.HasPrefix(via, "find "): // find -exec, -execdir, -ok
		for k := i - 1; k >= 0; k-- {
			if commandName(ctx.invs[k].Name) == "find" {
				find = k
				break
			}
		}
	case via == "xargs":
		if i >= 2 && inv.PipedInto && commandName(ctx.invs[i-1].Name) == "xargs" && ctx.invs[i-1].PipedInto {
			switch commandName(ctx.invs[i-2].Name) {
			case "find":
				find = i - 2
			case "locate", "plocate", "mlocate", "slocate":
				if !ctx.invs[i-2].Dynamic {
					for _, p := range locatedPaths(ctx.invs[i-2].Args) {
						b.add(effRead, p)
					}
				}
				return
			}
		}
	}
	if find < 0 || ctx.invs[find].Dynamic {
		return
	}
	for _, p := range foundPaths(ctx.invs[find].Args) {
		b.add(effRead, p)
	}
}

// notContentReaders are programs that, given a file's name, do not read
// what is in it.
var notContentReaders = map[string]bool{
	"ls": true, "stat": true, "rm": true, "rmdir": true, "chmod": true, "chown": true, "chgrp": true, "touch": true,
	"echo": true, "printf": true, "du": true, "basename": true, "dirname": true, "realpath": true, "readlink": true,
	"test": true, "[": true, "mv": true, "ln": true, "setfacl": true, "getfacl": true, "shred": true, "unlink": true,
}

// foundPaths returns the paths a find's arguments name: each start
// directory joined with each name pattern not negated (-name, -iname,
// -path, -wholename), or with ** when there is none.
func foundPaths(args []string) []string {
	var starts, names, paths []string
	for k := 0; k < len(args); k++ {
		w := args[k]
		if len(names) == 0 && len(paths) == 0 && (w == "-H" || w == "-L" || w == "-P") {
			continue
		}
		if len(w) > 0 && w[0] != '-' && w != "(" && w != "!" && len(names)+len(paths) == 0 && !slices.ContainsFunc(args[:k], isFindExpr) {
			starts = append(starts, w)
			continue
		}
		if k+1 >= len(args) || k > 0 && (args[k-1] == "!" || args[k-1] == "-not") {
			continue
		}
		switch w {
		case "-name", "-iname":
			names = append(names, args[k+1])
		case "-path", "-ipath", "-wholename", "-iwholename":
			paths = append(paths, args[k+1])
		}
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	var out []string
	for _, s := range starts {
		s = strings.TrimSuffix(s, "/")
		if len(names)+len(paths) == 0 {
			out = append(out, s+"/**")
		}
		for _, n := range names {
			out = append(out, s+"/**/"+n)
		}
		for _, p := range paths {
			if strings.HasPrefix(p, s) {
				out = append(out, p)
			} else {
				out = append(out, s+"/**/"+strings.TrimPrefix(p, "*/"))
			}
		}
	}
	return out
}

// isFindExpr: a word that starts find's expression.
func isFindExpr(w string) bool {
	return len(w) > 1 && w[0] == '-' && w != "-H" && w != "-L" && w != "-P" || w == "(" || w == "!"
}

// locatedPaths returns the paths locate's patterns name anywhere on the
// machine: a pattern without a wildcard matches any path that contains it
// (locate .env: /**/.env and /**/.env.production), one with a wildcard
// the whole path.
func locatedPaths(args []string) []string {
	var out []string
	for k := 0; k < len(args); k++ {
		w := args[k]
		switch {
		case w == "-d" || w == "--database" || w == "-l" || w == "-n" || w == "--limit":
			k++ // an option's value
			continue
		case w == "" || w[0] == '-':
			continue
		case strings.ContainsAny(w, "*?["):
			out = append(out, "/**/"+strings.TrimLeft(w, "*/"))
		default:
			w = strings.TrimLeft(w, "/")
			out = append(out, "/**/"+w, "/**/"+w+"*")
		}
	}
	return out
}
