package parse

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func nest(open, x, close string, n int) string {
	return strings.Repeat(open, n) + x + strings.Repeat(close, n)
}

// TestNestingBound: nesting past MaxNesting is refused before the parser
// runs, however the closing characters are disguised; ordinary scripts whose
// quotes, comments, here-documents and case patterns hold unbalanced
// characters are not.
func TestNestingBound(t *testing.T) {
	deep := MaxNesting + 5
	refused := []string{
		nest("(", "true", ")", deep),
		nest("$(", "true", ")", deep),
		nest("echo $(", "true", ")", deep),
		nest(`"$(`, "true", `)"`, deep),
		nest("{ ", "true", ";}", deep),
		nest("${x:-", "1", "}", deep),
		"echo $((" + nest("(", "1", ")", deep) + "))",
		"echo $((" + nest("a[", "1", "]", deep) + "))",
		"echo $((" + strings.Repeat("a+", deep) + "1))",
		strings.Repeat("a | ", deep) + "b",
		nest("if true; then ", "true", "; fi", deep),
		nest("while true; do ", "true", "; done", deep),
		"if a; then b; " + strings.Repeat("elif c; then d; ", deep) + "fi",
		nest("for i in 1; do echo fi done; ", "true", "; done", deep),
		strings.Repeat("a && ", deep) + "b",
		strings.Repeat("a 2>&1 | ", deep) + "b",
		"let x=" + strings.Repeat("a+", deep) + "1",
		"echo ${x:" + strings.Repeat("a+", deep) + "1}",
		// chains count for everything inside them
		func() string {
			s := "a"
			for d := MaxNesting - 2; d >= 0; d-- {
				s = "echo $(" + s + ")" + strings.Repeat("|a", MaxNesting-2-d)
			}
			return s
		}(),
		strings.Repeat("a || ", deep) + "b",
		// closers that bash reads as text do not close anything
		nest("$(echo ')' ", "true", ")", deep),
		nest(`$(echo ")" `, "true", ")", deep),
		nest(`$(echo \) `, "true", ")", deep),
		nest("$(case x in a) ", "true", ";; esac)", deep),
		nest("$(: # )\n", "true", ")", deep),
		nest("{ echo }; ", "true", ";}", deep),
		// a here-document body whose delimiter is unquoted still nests
		"cat <<E\n" + nest("$(", "true", ")", deep) + "\nE\n",
		// a quote inside a here-document body is text, and hides nothing
		"cat <<E\n'\nE\n" + nest("$(", "true", ")", deep) + "\n'\n",
		"cat <<'E'\n'\nE\n" + nest("$(", "true", ")", deep) + "\n'\n",
	}
	for _, src := range refused {
		_, err := Parse(src)
		if err == nil || !strings.Contains(err.Error(), "levels deep") {
			t.Errorf("%.60q...: got %v, want a nesting refusal", src, err)
		}
	}
	ok := []string{
		nest("$(", "true", ")", 20),
		"case $x in a) echo ')' ;; b|c) ls ;; (d) pwd ;; esac; " + nest("(", "true", ")", 20),
		"# (((((((((((( '\n" + nest("$(", "true", ")", 20),
		"cat <<'E'\n" + strings.Repeat("((((", 100) + "\nE\necho done",
		"cat <<E\n" + strings.Repeat("(' ", 200) + "\nE\necho done",
		"echo $((1 << 2)) " + strings.Repeat("x | ", 20) + "y",
		"echo '" + strings.Repeat("(", 500) + "' \"" + strings.Repeat("{[", 500) + "\"",
		"for i in $(seq 1 10); do echo $((i*2)); done",
		"echo " + strings.Repeat("a[b] ", 300),
		strings.Repeat("a | b | c\n", 300),
		strings.Repeat("if true; then echo fi; fi\nfor i in a b; do echo done; done\n", 300),
		nest("if true; then ", "true", "; fi", 30),
	}
	for _, src := range ok {
		if _, err := Parse(src); err != nil {
			t.Errorf("%.60q...: %v", src, err)
		}
	}
}

// TestBraceBudget: a brace expansion too large to make is refused from its
// size alone, before a word of it is made.
func TestBraceBudget(t *testing.T) {
	for _, src := range []string{
		"echo {1..100000}", "echo " + strings.Repeat("{a,b}", 15), "echo {1..9}{1..9}{1..9}{1..9}{1..9}",
		"echo {a,{b,{c,d}}}" + strings.Repeat("{1..2}", 13),
	} {
		_, err := Parse(src)
		if err == nil || !strings.Contains(err.Error(), "brace expansion would make more than") {
			t.Errorf("%.60q: got %v, want a brace refusal", src, err)
		}
	}
	if s, err := Parse("echo {1..9}{1..9}{1..9}{1..9}"); err != nil || len(s.Invocations[0].Args) != 6561 {
		t.Errorf("{1..9}^4: %v", err)
	}
}

// astNesting is how deeply the parser nested the constructs nestingDepth
// counts, chains (a | b && c, 1+2+3) included: the bound it must never
// underestimate.
func astNesting(f *syntax.File) int {
	depth, deepest := 0, 0
	var stack []bool
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			if stack[len(stack)-1] {
				depth--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		counts := false
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ArithmCmd,
			*syntax.Block, *syntax.DblQuoted, *syntax.ParenArithm, *syntax.BinaryCmd, *syntax.BinaryArithm,
			*syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause, *syntax.TestClause:
			counts = true
		case *syntax.ParamExp:
			counts = !n.Short
		}
		if counts {
			depth++
			deepest = max(deepest, depth)
		}
		stack = append(stack, counts)
		return true
	})
	return deepest
}

// TestNestingNeverUnderestimated: on every script of the corpora and the
// tests, nestingDepth counts at least as deep as the parser nests, so no
// disguise lets deep nesting past it.
func TestNestingNeverUnderestimated(t *testing.T) {
	scripts := []string{}
	for _, s := range corpus(t) {
		scripts = append(scripts, s)
	}
	for _, tt := range parseTests {
		scripts = append(scripts, tt.src)
	}
	scripts = append(scripts,
		"case x in a) (echo ')' ) ;; (b) { echo }; } ;; esac",
		"cat <<E; echo $( (echo x) )\n'$(\nE\necho \"$( (a) )\"",
		"a=$(( (1<<2) + $((3)) )); [[ ( a && b ) || c ]]",
		"if true; then while false; do for i in 1; do echo fi done; done; done; fi",
		"if a; then b; elif c; then if d; then e; elif f; then (g); else $(h); fi; else i; fi",
		"echo ${x:-${y:-\"$(z)\"}} `echo \\`b\\``",
		"f(){ for i in 1 2; do a && b; done; }; g() { if x; then while y; do z || w; done; fi; }",
		"f(){ for i in 1 2; do \"$@\" && return 0; done; }; f true",
	)
	checked := 0
	for _, src := range scripts {
		if d, ok := checkNesting(src); !ok {
			t.Errorf("the parser nests %d deep, but nestingDepth counts less: %.200q", d, src)
		} else if d > 0 {
			checked++
		}
	}
	t.Logf("%d scripts checked", checked)
}

// checkNesting reports the parser's nesting of src and whether nestingDepth
// counts at least that deep (true for text that does not parse).
func checkNesting(src string) (int, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return 0, true
	}
	d := astNesting(f)
	return d, d == 0 || nestingDepth(src, d-1) >= 0
}

// FuzzNesting looks for text whose nesting nestingDepth underestimates.
func FuzzNesting(f *testing.F) {
	for _, s := range corpus(f) {
		f.Add(s)
	}
	for _, tt := range parseTests {
		f.Add(tt.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		if d, ok := checkNesting(src); !ok {
			t.Errorf("the parser nests %d deep, but nestingDepth counts less: %q", d, src)
		}
	})
}
