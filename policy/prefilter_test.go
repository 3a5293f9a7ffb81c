package policy

import (
	"regexp"
	"slices"
	"testing"

	"github.com/stockade/stockade/parse"
)

// TestRequiredTextNeverRejectsAMatch: whenever an expression matches a text,
// the text holds the requirement requiredText gives for it, so the
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
		{`(?i)[ew]x`, "WX"}, {`[ewW](\s|$)`, "W"}, {`[^a]`, "b"}, {`(?i)[k]`, "\u212A"},
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
	needs := map[string]requirement{}
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
		var pairs pairSet
		pairs.add(c.text)
		if !need.holds(c.text, nil) || !need.holds(c.text, &pairs) {
			t.Errorf("%q matches %q, which does not hold %v", c.expr, c.text, need)
		}
	}
	t.Logf("%d cases, %d of them matches", len(cases), matched)
	if matched < 500 {
		t.Errorf("only %d of %d cases match: the test tries too little", matched, len(cases))
	}
}

// TestRequiredText: what the quick test looks for, for a few shapes of
// expression (a way per alternative at the top, every part of a sequence,
// most selective first); nil when it cannot tell.
func TestRequiredText(t *testing.T) {
	for _, c := range []struct {
		expr string
		want requirement
	}{
		{`os\.system|subprocess`, requirement{{{newLiteral("os.system", false)}}, {{newLiteral("subprocess", false)}}}},
		{`\bcurl\b.*\|\s*sh`, requirement{{{newLiteral("curl", false)}, {newLiteral("sh", false)}, {newLiteral("|", false)}}}},
		{`(?i)token`, requirement{{{newLiteral("to", true)}}}},
		{`(?i)credential`, requirement{{{newLiteral("credential", true)}}}},
		{`(stripe|twilio)\S*\.(send|post)\(`, requirement{{{newLiteral("stripe", false), newLiteral("twilio", false)}, {newLiteral("send", false), newLiteral("post", false)}, {newLiteral(".", false)}, {newLiteral("(", false)}}}},
		{`(x|require\(["'](net|tls)["']\))`, requirement{{{newLiteral("x", false)}}, {{newLiteral("require(", false)}, {newLiteral("net", false), newLiteral("tls", false)}, {newLiteral(")", false)},
			{newLiteral(`"`, false), newLiteral("'", false)}, {newLiteral(`"`, false), newLiteral("'", false)}}}},
		{"[$`]", requirement{{{newLiteral("$", false), newLiteral("`", false)}}}},
		{`\s*[ewW](\s|$)`, requirement{{{newLiteral("W", false), newLiteral("e", false), newLiteral("w", false)}}}},
		{`[a-e]x`, requirement{{{newLiteral("x", false)}}}},
		{`x|y?`, nil},
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
			if !slices.EqualFunc(got[i], c.want[i], func(a, b []literal) bool {
				return slices.EqualFunc(a, b, func(x, y literal) bool { return x.s == y.s && x.fold == y.fold })
			}) {
				t.Errorf("%q: got %v, want %v", c.expr, got, c.want)
			}
		}
	}
}
