package policy

import "testing"

// TestForkBombThroughFunctions: functions that call each other through a pipe
// or in the background fork without end as surely as one that calls itself.
func TestForkBombThroughFunctions(t *testing.T) {
	p := Default()
	for _, c := range []struct {
		script string
		want   Verdict
	}{
		{"f(){ g|g& }; g(){ f|f& }; f", Deny},
		{"f(){ g & g & }; g(){ f & f & }; f", Deny},
		{"a() { b | b & }; b() { c; }; c() { a; }; a", Deny},
		{"bomb() { bomb | bomb & }; bomb", Deny},
		{"f(){ g|g& }; g(){ echo hi; }; f", Allow},
		{"build() { lint; test; }; lint() { go vet ./...; }; test() { go test ./...; }; build", Allow},
		{"f(){ g | cat; }; g(){ echo x; }; f; g", Allow},
	} {
		if d := p.Check(c.script); d.Verdict != c.want {
			t.Errorf("%q: %s (%s: %s), want %s", c.script, d.Verdict, d.Rule, d.Reason, c.want)
		}
	}
}
