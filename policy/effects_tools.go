package policy

import (
	"path"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 14: file effects the signatures table cannot say, each gated on
// the command's name first so that everyday commands pay one comparison.

// toolEffects adds, for invocation i, the file effects of:
//   - jq --rawfile/--slurpfile NAME FILE: FILE is read (two values);
//   - a reader run by xargs on names another command lists (ls ~/.aws/* |
//     xargs cat reads what ls names);
//   - a tree copied or cloned into a directory (cp -r, rsync -a, git
//     clone URL DIR): a file under DIR is written, so that rules on DIR/**
//     see it;
//   - go build -o FILE, and go install with GOBIN=DIR: FILE (DIR/NAME) is
//     written, where a program named like a system tool may land on PATH.
func (ctx *scriptCtx) toolEffects(i int, inv *parse.Invocation, a *argv, b *effectBuilder) {
	switch a.name {
	case "jupyter", "jupyter-nbconvert", "jupyter-execute", "papermill", "ipython", "ipython3":
		notebookRunEffects(inv, a, b)
	case "jq", "gojq", "jaq":
		for k := 0; k+2 < len(inv.Args); k++ {
			if w := inv.Args[k]; (w == "--rawfile" || w == "--slurpfile") && !dynArg(inv, k+2) {
				b.add(effRead, inv.Args[k+2])
			}
		}
	case "cp", "rsync":
		if !(a.hasShort('r') || a.hasShort('R') || a.hasShort('a') || containsLong(a.longs, "recursive") || containsLong(a.longs, "archive")) {
			break
		}
		ops, _ := operands(signatureOf(a.name), inv)
		n := len(ops)
		if n < 2 || ops[n-1].dyn {
			break
		}
		d := ops[n-1].value
		b.add(effWrite, strings.TrimSuffix(d, "/")+"/*")
		if strings.HasSuffix(d, "/") {
			// cp -r nvim ~/.config/: the tree lands as ~/.config/nvim
			for _, src := range ops[:n-1] {
				if base := path.Base(src.value); !src.dyn && !strings.HasSuffix(src.value, "/") && base != "." && base != "/" {
					b.add(effWrite, d+base+"/*")
				}
			}
		}
	case "git":
		if a.subcommand == "clone" && len(a.positionals) >= 3 && !a.dynamicArg {
			d := a.positionals[len(a.positionals)-1]
			b.add(effWrite, d)
			b.add(effWrite, strings.TrimSuffix(d, "/")+"/*")
		}
	case "go":
		if a.subcommand == "build" || a.subcommand == "install" {
			goOutputWrites(inv, a, b)
		}
	case "hg", "svn":
		if (a.subcommand == "clone" || a.subcommand == "checkout" || a.subcommand == "co" || a.subcommand == "export") && len(a.positionals) >= 3 && !a.dynamicArg {
			d := a.positionals[len(a.positionals)-1]
			b.add(effWrite, d)
			b.add(effWrite, strings.TrimSuffix(d, "/")+"/*")
		}
	case "gcc", "cc", "clang", "g++", "c++", "clang++", "tcc", "rustc", "nim", "ghc", "gfortran":
		for k, w := range inv.Args {
			if w == "-o" && k+1 < len(inv.Args) && !dynArg(inv, k+1) {
				b.add(effWrite, inv.Args[k+1])
			}
		}
	case "7z", "7za", "7zz":
		// 7z x a.7z -oDIR: files land under DIR.
		for k, w := range inv.Args {
			if d, ok := strings.CutPrefix(w, "-o"); ok && d != "" && !dynArg(inv, k) && a.subcommand != "a" {
				b.add(effWrite, strings.TrimSuffix(d, "/")+"/*")
			}
		}
	case "tar", "bsdtar", "gtar", "unzip", "wget":
		// tar -x -C DIR, unzip -d DIR, wget -P DIR: files land under DIR.
		opt, long := "C", "--directory"
		if a.name != "unzip" && a.name != "wget" && !tarExtracts(inv, a) {
			break // tar -c -C DIR reads DIR
		}
		switch a.name {
		case "unzip":
			opt, long = "d", ""
		case "wget":
			opt, long = "P", "--directory-prefix"
		}
		for k, w := range inv.Args {
			d := ""
			switch {
			case w == "-"+opt && k+1 < len(inv.Args) && !dynArg(inv, k+1):
				d = inv.Args[k+1]
			case long != "" && strings.HasPrefix(w, long+"=") && !dynArg(inv, k):
				d = w[len(long)+1:]
			}
			if d != "" && d != "." && d != "-" {
				b.add(effWrite, strings.TrimSuffix(d, "/")+"/*")
			}
		}
	}
	if len(inv.Via) > 0 && i >= 2 && inv.PipedInto {
		if x := &ctx.invs[i-1]; (x.Name == "xargs" || x.Name == "parallel") && x.PipedInto {
			if sig := signatureOf(a.name); sig != nil && sig.reads != none {
				pipedNameReads(ctx.arg(i-2), b)
			}
		}
	}
}

func dynArg(inv *parse.Invocation, k int) bool {
	return inv.DynamicArgs != nil && k < len(inv.DynamicArgs) && inv.DynamicArgs[k]
}

// goOutputWrites: go build -o FILE writes FILE; go install with GOBIN=DIR
// writes DIR/NAME for each package path given (NAME its last element).
func goOutputWrites(inv *parse.Invocation, a *argv, b *effectBuilder) {
	for k, w := range inv.Args {
		switch {
		case w == "-o" && k+1 < len(inv.Args) && !dynArg(inv, k+1):
			b.add(effWrite, inv.Args[k+1])
		case strings.HasPrefix(w, "-o=") && !dynArg(inv, k):
			b.add(effWrite, w[len("-o="):])
		}
	}
	if a.subcommand != "install" {
		return
	}
	for _, e := range inv.Env {
		dir, ok := strings.CutPrefix(e, "GOBIN=")
		if !ok || !(strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "~") || strings.HasPrefix(dir, "$HOME") || strings.HasPrefix(dir, "${HOME}")) {
			continue // go refuses a relative GOBIN
		}
		for _, p := range a.positionals[1:] {
			p, _, _ = strings.Cut(p, "@")
			if name := path.Base(strings.TrimSuffix(p, "/...")); name != "." && name != "" && !strings.HasPrefix(p, "-") {
				b.add(effWrite, dir+"/"+name)
			}
		}
	}
}

// escapeAlias: a relative path that climbs out of the workdir
// (../../../home/dev/.ssh/id_rsa, ../.aws/credentials) names, from a
// workdir at a depth the analysis does not know, a path under the root
// (when it climbs two or more levels to a top directory) or under the home
// (a dot-file next to the project). It returns that path, or "".
func escapeAlias(p string) string {
	if !strings.HasPrefix(p, "../") {
		return ""
	}
	ups := 0
	for strings.HasPrefix(p, "../") {
		p, ups = p[3:], ups+1
	}
	top, _, _ := strings.Cut(p, "/")
	switch {
	case top == "" || top == "..":
		return ""
	case top[0] == '.' && top != ".":
		return "~/" + p
	case ups >= 2 && rootTops[top]:
		return homeAlias("/" + p)
	}
	return ""
}

// rootTops are the directories at the top of the file system.
var rootTops = map[string]bool{"home": true, "root": true, "etc": true, "proc": true, "usr": true, "var": true, "opt": true, "tmp": true, "dev": true, "run": true, "srv": true, "boot": true}

// tarExtracts reports whether tar is told to extract: -x, --extract, --get,
// or x in its first word's old bundled options (tar xzf a.tgz).
func tarExtracts(inv *parse.Invocation, a *argv) bool {
	if a.hasShort('x') || containsLong(a.longs, "extract") || containsLong(a.longs, "get") {
		return true
	}
	return len(inv.Args) > 0 && !strings.HasPrefix(inv.Args[0], "-") && strings.Contains(inv.Args[0], "x") && !strings.ContainsAny(inv.Args[0], "./")
}

// gitFilterOptions: git filter-branch's options whose value is shell code
// it runs for every commit (commandArgCode).
var gitFilterOptions = map[string]bool{"--tree-filter": true, "--index-filter": true, "--msg-filter": true, "--env-filter": true,
	"--commit-filter": true, "--parent-filter": true, "--tag-name-filter": true, "--setup": true}

// notebookRunEffects: Round 20: a notebook run (jupyter nbconvert
// --execute NB, jupyter execute NB, papermill NB OUT, ipython NB.ipynb)
// runs its cells' code, as python3 f.py runs its file: the notebook is run.
// nbconvert without --execute only converts.
func notebookRunEffects(inv *parse.Invocation, a *argv, b *effectBuilder) {
	run := a.name == "papermill" || a.name == "jupyter-execute" || a.name == "jupyter" && a.subcommand == "execute" ||
		a.name == "ipython" || a.name == "ipython3"
	if (a.name == "jupyter" && a.subcommand == "nbconvert" || a.name == "jupyter-nbconvert") && containsLong(a.longs, "execute") {
		run = true
	}
	if !run {
		return
	}
	for k, w := range inv.Args {
		if dynArg(inv, k) || !strings.HasSuffix(w, ".ipynb") || strings.HasPrefix(w, "-") || k > 0 && (inv.Args[k-1] == "--output" || inv.Args[k-1] == "-o") {
			continue // --output NB is written
		}
		b.add(effExec, w)
		if a.name == "papermill" || a.name == "ipython" || a.name == "ipython3" {
			return // the second is the output, or the notebook's argument
		}
	}
}
