package policy

import "testing"

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
