package policy

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stockade/stockade/parse"
)

// maxScript is the largest command the server accepts (exec's bound, the
// kernel's MAX_ARG_STRLEN less a margin).
const maxScript = 128<<10 - 1

// repeatTo repeats unit between prefix and suffix up to n bytes in all.
func repeatTo(prefix, unit, suffix string, n int) string {
	k := (n - len(prefix) - len(suffix)) / len(unit)
	return prefix + strings.Repeat(unit, k) + suffix
}

// nestTo nests open...close around x up to n bytes.
func nestTo(open, x, close string, n int) string {
	k := (n - len(x)) / (len(open) + len(close))
	return strings.Repeat(open, k) + x + strings.Repeat(close, k)
}

// chainsAtEveryDepth nests $(...) as deep as the bound allows and gives each
// level, once its inner levels are closed, as long a pipeline as the bound
// allows there: the parser never holds more than the bound at once, but the
// tree it builds wraps each level's pipeline around everything inside it.
func chainsAtEveryDepth() string {
	s := "a"
	for depth := parse.MaxNesting - 2; depth >= 0; depth-- {
		s = "echo $(" + s + ")" + strings.Repeat("|a", parse.MaxNesting-2-depth)
	}
	return s
}

// budgetInputs are commands of the largest accepted size built to make the
// analysis expensive: deep nesting, long chains, expansion, re-parsing.
var budgetInputs = []struct{ name, src string }{
	{"nested arithmetic parens", "echo $((" + nestTo("(", "1", ")", maxScript-10) + "))"},
	{"many arithmetic", repeatTo("", "echo $(( ((((1)))) )); ", "", maxScript)},
	{"nested $(...)", nestTo("$(", "1", ")", maxScript)},
	{"nested echo $(...)", nestTo("echo $(", "1", ")", maxScript)},
	{"nested quoted $(...)", nestTo(`"$(`, "1", `)"`, maxScript)},
	{"nested $( ')' ...)", nestTo("$(echo ')' ", "1", ")", maxScript)},
	{"nested case in $(...)", nestTo("$(case x in a) ", "1", ";; esac)", maxScript)},
	{"nested subshells", nestTo("(", "1", ")", maxScript)},
	{"nested groups", nestTo("{ ", "true", ";}", maxScript)},
	{"nested ${x:-...}", nestTo("${x:-", "1", "}", maxScript)},
	{"nested if", nestTo("if true; then ", "true", "; fi", maxScript)},
	{"nested bash -c", nestTo("bash -c '", "true", "'", maxScript)},
	{"nested arrays", "echo $((" + nestTo("a[", "1", "]", maxScript-10) + "))"},
	{"chains at every depth", repeatTo("", chainsAtEveryDepth()+"\n", "", maxScript)},
	{"long arithmetic chain", "echo $((" + repeatTo("", "a+", "1", maxScript-10) + "))"},
	{"long pipeline", repeatTo("", "a|", "b", maxScript)},
	{"long && chain", repeatTo("", "a&&", "b", maxScript)},
	{"many commands", repeatTo("", "a;", "", maxScript)},
	{"many words", repeatTo("echo ", "a ", "", maxScript)},
	{"brace expansion", "echo " + strings.Repeat("{1..9}", 20)},
	{"brace expansion of long words", "echo {" + strings.Repeat("a", maxScript/2) + ",b}{1..9}{1..9}{1..9}{1..9}"},
	{"brace alternatives", "echo " + strings.Repeat("{a,b}", 40)},
	{"many here-documents", repeatTo("", "cat <<E\nx\nE\n", "", maxScript)},
	{"many here-documents to bash", repeatTo("", "bash <<E\necho x\nE\n", "", maxScript)},
	{"eval chains", repeatTo("", "eval eval eval eval eval eval echo x;", "", maxScript)},
	{"many functions", repeatTo("", "f(){ g; };", "", maxScript)},
	{"backquotes", repeatTo("", "echo `echo`;", "", maxScript)},
	{"everyday commands", repeatTo("", "git status && go test ./... | tail -n 20; ", "", maxScript)},
}

// TestAnalysisBudget: every command up to the accepted size is judged, or
// refused with an error, within 64 MiB of allocations (the time is measured
// by BenchmarkAnalysisBudget, in make bench; tests assert no time).
func TestAnalysisBudget(t *testing.T) {
	p := Default()
	p.Check("true") // warm: compile what is compiled on first use
	for _, in := range budgetInputs {
		if len(in.src) > maxScript {
			t.Fatalf("%s: %d bytes, more than the accepted size", in.name, len(in.src))
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d := p.Check(in.src)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		stack := int64(after.StackSys) - int64(before.StackSys)
		t.Logf("%-32s %6.1f MiB allocated, stack %+6.1f MiB: %s (%s) %.90s", in.name, float64(alloc)/(1<<20), float64(stack)/(1<<20), d.Verdict, d.Rule, d.Reason)
		if alloc > 64<<20 && !raceEnabled {
			t.Errorf("%s: the analysis allocated %.1f MiB, more than 64 MiB", in.name, float64(alloc)/(1<<20))
		}
		if stack > 64<<20 {
			t.Errorf("%s: the analysis grew the stack by %.1f MiB, more than 64 MiB", in.name, float64(stack)/(1<<20))
		}
	}
}

// BenchmarkAnalysisBudget is the time each budget input costs (make bench).
func BenchmarkAnalysisBudget(b *testing.B) {
	p := Default()
	for _, in := range budgetInputs {
		b.Run(strings.ReplaceAll(in.name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Check(in.src)
			}
		})
	}
}
