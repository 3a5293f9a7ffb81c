package parse

import (
	"strings"
	"testing"
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
		nest("for i in 1; do echo fi done; ", "true", "; done", deep),
		strings.Repeat("a && ", deep) + "b",
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
