package policy

import (
	"regexp"
	"testing"

	"github.com/stockade/stockade/parse"
)

// TestRequiredTextNeverRejectsAMatch: whenever an expression matches a text,
// the text contains one of the strings requiredText gives for it, so the
// quick test never turns a match into none. Tried on hand-picked cases
// (case folding with the Kelvin sign and the long s, alternations, optional
// and repeated parts) and on every expression of the built-in policy
// against every argument, code string and assignment of both corpora.
func TestRequiredTextNeverRejectsAMatch(t *testing.T) {
	type tc struct{ expr, text string }
	cases := []tc{
		{`(?i)token`, "TOKEN"}, {`(?i)token`, "to\u212Aen"}, {`(?i)secret`, "\u017Fecret"},
		{`(?i)passwd`, "PAS\u017FWD"}, {`abc|d(ef)?g`, "dg"}, {`x(abc)+y`, "xabcabcy"},
		{`x(abc)*y`, "xy"}, {`(?:foo){2,}`, "foofoo"}, {`a.b`, "a\xffb"}, {`\x{FFFD}`, "\xff"},
		{`(?i)ü`, "Ü"}, {`^(exec|system):`, "EXEC:"}, {`(?i)^(exec|system):`, "EXEC:"},
		{`(?i:Metadata)|169\.254`, "METADATA"}, {`(?s)a.*b`, "a\nb"}, {`ab\b`, "ab"},
	}
	for _, r := range Default().Rules {
		for _, exprs := range [][]string{r.ArgsRegex, r.Code, r.Env} {
			for _, e := range exprs {
				for _, ex := range append(append([]string{}, r.Examples...), r.NotExamples...) {
					cases = append(cases, tc{e, ex})
				}
			}
		}
	}
	seen := map[string]bool{}
	var texts []string
	add := func(ss ...string) {
		for _, s := range ss {
			if !seen[s] {
				seen[s] = true
				texts = append(texts, s)
			}
		}
	}
	for _, name := range []string{"dangerous.txtar", "everyday.txtar"} {
		for _, f := range corpus(t, name) {
			s, err := parse.Parse(string(f.Data))
			if err != nil {
				continue
			}
			for _, inv := range expandScript(s) {
				add(inv.Args...)
				add(inv.Env...)
				if inv.InlineCode != nil {
					add(inv.InlineCode.Code)
				}
			}
		}
	}
	for _, r := range Default().Rules {
		for _, exprs := range [][]string{r.ArgsRegex, r.Code, r.Env} {
			for _, e := range exprs {
				for _, text := range texts {
					cases = append(cases, tc{e, text})
				}
			}
		}
	}
	matched := 0
	compiled := map[string]*regexp.Regexp{}
	needs := map[string][]literal{}
	for _, c := range cases {
		re := compiled[c.expr]
		if re == nil {
			re = regexp.MustCompile(c.expr)
			compiled[c.expr] = re
			needs[c.expr] = requiredText(c.expr)
		}
		need := needs[c.expr]
		if !re.MatchString(c.text) {
			continue
		}
		matched++
		if need != nil && !containsAny(c.text, need) {
			t.Errorf("%q matches %q, which contains none of %v", c.expr, c.text, need)
		}
	}
	t.Logf("%d cases, %d of them matches", len(cases), matched)
	if matched < 500 {
		t.Errorf("only %d of %d cases match: the test tries too little", matched, len(cases))
	}
}

// TestRequiredText: what the quick test looks for, for a few shapes of
// expression; nil when it cannot tell.
func TestRequiredText(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []literal
	}{
		{`os\.system|subprocess`, []literal{{"os.system", false}, {"subprocess", false}}},
		{`\bcurl\b.*\|\s*sh`, []literal{{"curl", false}}},
		{`(?i)token`, []literal{{"to", true}}},
		{`(?i)credential`, []literal{{"credential", true}}},
		{`x?`, nil},
		{`[a-z]+`, nil},
		{`(a|b*)`, nil},
	} {
		got := requiredText(c.expr)
		if len(got) != len(c.want) {
			t.Errorf("%q: got %v, want %v", c.expr, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: got %v, want %v", c.expr, got, c.want)
			}
		}
	}
}
