package parse

import (
	"strings"
	"testing"
)

// TestRound12ZshEquals: zsh's =name is the command name found on PATH, so
// =bash and =sudo are read as bash and sudo: their code and the command
// they wrap are seen.
func TestRound12ZshEquals(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"=bash -c 'rm -rf x'", "=bash -c rm -rf x {code bash: rm -rf x}\nrm -rf x {via bash -c}"},
		{"=env rm -rf x", "=env rm -rf x\nrm -rf x {via env}"},
		{"echo =x", "echo =x"},
	} {
		s, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.src, err)
		}
		var got []string
		for _, inv := range s.Invocations {
			got = append(got, summary(inv))
		}
		if g := strings.Join(got, "\n"); g != tt.want {
			t.Errorf("Parse(%q):\n got: %q\nwant: %q", tt.src, g, tt.want)
		}
	}
}
