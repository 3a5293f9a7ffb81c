package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 15: a program the script itself made, from the workdir's sources
// (go build -o /tmp/x ./cmd/x, rustc a.rs -o /tmp/a, gcc -o /tmp/t t.c),
// or a file it wrote with text it shows (cat > /tmp/x.py <<'EOF') and runs
// with an interpreter whose code written_code.go judges as if inline, is
// not a program someone else left in a temporary directory.

// outputCompilers write the program they build to their -o operand.
var outputCompilers = map[string]bool{"rustc": true, "gcc": true, "cc": true, "clang": true, "g++": true, "c++": true, "clang++": true,
	"swiftc": true, "ghc": true, "gfortran": true, "tcc": true, "gccgo": true, "ldc2": true}

// How a file was made here: built by a compiler, or written with shown text.
const (
	madeBuilt byte = 'b'
	madeText  byte = 't'
)

// madeHereRun reports whether exec effect e of inv runs a file made here
// in a way whose code is judged: a built program, or shown text run by an
// interpreter written_code.go reads (python3 /tmp/x.py, bash /tmp/x.sh).
func (b *effectBuilder) madeHereRun(inv *parse.Invocation, p string) bool {
	switch b.madeHere[p] {
	case madeBuilt:
		return true
	case madeText:
		n := commandName(inv.Name)
		if n != "." {
			n = strings.TrimRight(n, "0123456789.")
		}
		_, ok := writtenCodeInterpreters[n]
		return ok
	}
	return false
}

// noteMadeHere records the files invocation i makes from what the script
// shows, and forgets the ones it overwrites otherwise.
func (b *effectBuilder) noteMadeHere(inv *parse.Invocation, a *argv, effs []effect) {
	if out := compilerOutput(inv, a); out != "" {
		for _, p := range a.positionals {
			if p == out {
				continue
			}
			r := b.resolve(p)
			if r == "" || r[0] == '/' || r[0] == '~' || strings.HasPrefix(r, "..") || b.created[r] || under(r, b.createdDirs) {
				return // a source from outside the workdir, or downloaded: never seen
			}
		}
		if b.madeHere == nil {
			b.madeHere = map[string]byte{}
		}
		b.madeHere[b.resolve(out)] = madeBuilt
		return
	}
	if len(effs) == 0 {
		return
	}
	_, known := writtenText(inv)
	for _, e := range effs {
		if e.kind != effWrite {
			continue
		}
		if known {
			if b.madeHere == nil {
				b.madeHere = map[string]byte{}
			}
			b.madeHere[e.path] = madeText
		} else if b.madeHere != nil {
			delete(b.madeHere, e.path)
		}
	}
}

// compilerOutput returns the file a compiler invocation writes its
// program to (go build -o F, cc -o F, cc -oF), or "".
func compilerOutput(inv *parse.Invocation, a *argv) string {
	if !outputCompilers[a.name] && !(a.name == "go" && a.subcommand == "build") || a.dynamicArg {
		return ""
	}
	for k, w := range inv.Args {
		switch {
		case w == "-o" && k+1 < len(inv.Args):
			return inv.Args[k+1]
		case a.name != "go" && strings.HasPrefix(w, "-o") && len(w) > 2 && a.name != "rustc":
			return w[2:]
		}
	}
	return ""
}

// executesMadeHere reports whether invocation i runs a file the script
// made earlier from what it shows (see noteMadeHere).
func (ctx *scriptCtx) executesMadeHere(i int) bool {
	for _, e := range ctx.effectsOf(i) {
		if e.kind == effExec && e.madeHere {
			return true
		}
	}
	return false
}
