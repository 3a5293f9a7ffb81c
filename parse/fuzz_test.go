package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// corpus returns the scripts of ../testdata/corpus/*.txtar by section name.
func corpus(t testing.TB) map[string]string {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "*.txtar"))
	out := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range txtar.Parse(data).Files {
			out[filepath.Base(f)+":"+sec.Name] = string(sec.Data)
		}
	}
	return out
}

func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.src)
	}
	for _, tt := range errorTests {
		if len(tt.src) < 4096 {
			f.Add(tt.src)
		}
	}
	for _, w := range append(wordTests, dynamicWords...) {
		f.Add(w)
	}
	for _, src := range corpus(f) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		lines := strings.Split(src, "\n")
		inside := func(p Pos) bool {
			return p.Line >= 1 && int(p.Line) <= len(lines) && p.Col >= 1 && int(p.Col) <= len(lines[p.Line-1])+1
		}
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			if strings.Contains(pe.Msg, errInternal) {
				t.Fatal(err)
			}
			if !inside(pe.Pos) && len(src) <= MaxScriptSize {
				t.Fatalf("error position %v outside the input: %v", pe.Pos, err)
			}
			if s != nil {
				t.Fatalf("both a script and an error")
			}
			return
		}
		if off, _ := checkText(src); off >= 0 {
			t.Fatalf("accepted text that checkText refuses at %d", off)
		}
		for _, inv := range s.Invocations {
			if !inside(inv.Pos) {
				t.Fatalf("invocation %s at %v outside the input", summary(inv), inv.Pos)
			}
			if inv.Args == nil {
				t.Fatalf("invocation %s has nil Args", summary(inv))
			}
			if inv.DynamicArgs != nil && len(inv.DynamicArgs) != len(inv.Args) {
				t.Fatalf("invocation %s: %d DynamicArgs for %d Args", summary(inv), len(inv.DynamicArgs), len(inv.Args))
			}
			if len(inv.Via) > 2*MaxDepth+maxWrap*MaxDepth {
				t.Fatalf("invocation %s: Via too long", summary(inv))
			}
		}
		for _, a := range s.Assignments {
			if !inside(a.Pos) {
				t.Fatalf("assignment %s at %v outside the input", a.Name, a.Pos)
			}
		}
	})
}

// The everyday corpus scripts all parse; each dangerous one is refused or
// yields at least one invocation for a policy to judge.
func TestCorpus(t *testing.T) {
	c := corpus(t)
	if len(c) == 0 {
		t.Skip("no corpus")
	}
	for name, src := range c {
		s, err := Parse(src)
		invalid := strings.Contains(name, "-invalid")
		switch {
		case err != nil && !invalid && strings.HasPrefix(name, "everyday"):
			t.Errorf("%s: %v", name, err)
		case err == nil && strings.HasPrefix(name, "dangerous") && len(s.Invocations) == 0:
			t.Errorf("%s: no invocations", name)
		}
	}
}
