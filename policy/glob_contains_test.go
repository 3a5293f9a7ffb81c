package policy

import (
	"strings"
	"testing"
)

// TestGlobContainsAsGlobMatch checks the quick test of a **TEXT** pattern
// against globMatch, which it stands in for.
func TestGlobContainsAsGlobMatch(t *testing.T) {
	pats := []string{"**|**", "**169.254.**", "**etadata**", "**a/b**"}
	strs := []string{"", "|", "a|b", "x/y|z", "ab", "http://169.254.169.254/latest", "169.254", "metadata", "/a/b/c", "a/", "ETADATA"}
	for _, p := range pats {
		g := compileGlobs([]string{p}, "args", func(key, msg string) { t.Fatal(msg) })
		if g[0].contains == "" {
			t.Fatalf("%q: no quick test", p)
		}
		for _, s := range strs {
			if got, want := anyGlobNormed(g, s, ""), globMatch(p, s); got != want {
				t.Errorf("%q on %q: %v, globMatch says %v", p, s, got, want)
			}
		}
	}
}

// TestGlobLiteral: the text a pattern's every match contains, between its
// wildcards and outside its classes and escapes.
func TestGlobLiteral(t *testing.T) {
	for _, c := range []struct{ pat, want string }{
		{"**/.git/hooks/**", "/.git/hooks/"}, {"*.pth", ".pth"}, {"[!/~]*/**/curl", "/curl"},
		{"x[a-c]yz", "yz"}, {"ab[]cd]e", "ab"}, {`*\*abc`, "abc"}, {`a\`, "a"}, {"**", ""}, {"*?*", ""},
	} {
		if got := globLiteral(c.pat); got != c.want {
			t.Errorf("globLiteral(%q) = %q, want %q", c.pat, got, c.want)
		}
	}
}

// TestGlobLiteralNeverRejectsAMatch: whenever a pattern matches a string,
// the string contains the pattern's globLiteral, so the quick test never
// turns a match into none; and a compiled pattern, with all its quick
// tests, decides as globMatch. Tried with every pattern of the built-in policy
// on the arguments, redirection targets and derived paths of both corpora,
// and on strings made to match each pattern.
func TestGlobLiteralNeverRejectsAMatch(t *testing.T) {
	p := Default()
	var pats []string
	add := func(ms ...*Matcher) {
		for _, m := range ms {
			if m == nil {
				continue
			}
			for _, l := range [][]string{m.Command, m.Subcommand, m.Args, m.LastArg, m.NotArgs, m.Writes, m.Reads, m.Deletes, m.Executes, m.Via} {
				for _, pat := range l {
					pats = append(pats, pat, normPath(pat, places{}))
				}
			}
		}
	}
	for _, r := range p.Rules {
		add(&r.Matcher, r.Upstream, r.Inside, r.After)
	}
	pats = append(pats, "*/sd?x", "**/a?b/**", "*[a-c]d", `*\*e`)
	strs := []string{"", "/", "a", "x|y", "[", `\`, "~/.ssh/id_rsa", "/etc/passwd", "a/.git/hooks/pre-commit"}
	for _, name := range []string{"dangerous.txtar", "everyday.txtar"} {
		for _, f := range corpus(t, name) {
			s, err := parseScript(string(f.Data))
			if err != nil {
				continue
			}
			ctx := newScriptCtx(p, expandScript(s))
			for i, inv := range ctx.invs {
				strs = append(strs, inv.Name)
				for _, a := range inv.Args {
					strs = append(strs, a, normPath(a, places{home: p.homeDir}))
				}
				for _, r := range inv.Redirects {
					strs = append(strs, r.Target, normPath(r.Target, places{home: p.homeDir}))
				}
				for _, e := range ctx.effectsOf(i) {
					strs = append(strs, e.path)
				}
			}
		}
	}
	// Strings each pattern matches: its wildcards filled in.
	for _, pat := range pats {
		for _, fill := range []string{"", "x", "a/b"} {
			s := strings.NewReplacer("**", fill, "*", "x", "?", "q", `\`, "").Replace(pat)
			strs = append(strs, s, "pre/"+s, s+"/post")
		}
	}
	pats, strs = distinct(pats), distinct(strs)
	// The quick tests of a compiled pattern (its first byte, its
	// contained text, exact text) decide as globMatch does.
	for _, pat := range pats {
		g := compileGlobs([]string{pat}, "args", func(key, msg string) { t.Fatal(msg) })
		for _, s := range strs {
			if got, want := anyGlobNormed(g, s, s), globMatch(g[0].pat, s); got != want {
				t.Errorf("%q on %q: %v, globMatch says %v", pat, s, got, want)
			}
		}
	}
	matched := 0
	for _, pat := range pats {
		lit := globLiteral(pat)
		if lit == "" {
			continue // nothing to test
		}
		for _, s := range strs {
			if globMatch(pat, s) {
				matched++
				if !strings.Contains(s, lit) {
					t.Errorf("%q matches %q, which does not contain %q", pat, s, lit)
				}
			}
		}
	}
	t.Logf("%d patterns, %d strings, %d matches", len(pats), len(strs), matched)
	if matched < 1000 {
		t.Errorf("only %d matches: the test tries too little", matched)
	}
}

func distinct(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
