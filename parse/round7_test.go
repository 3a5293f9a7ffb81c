package parse

import (
	"strings"
	"testing"
)

// TestRound7: a detached terminal runs the command after its options
// (screen, dtach, abduco) unless it is told to attach, list or send keys;
// the evaluators of more languages take code on their command line.
func TestRound7(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"screen -dmS w rm -rf x", "screen -dmS w rm -rf x\nrm -rf x {via screen}"},
		{"screen -ls", "screen -ls"},
		{"screen -r dev", "screen -r dev"},
		{"screen -S s -X stuff ls", "screen -S s -X stuff ls"},
		{"dtach -n /tmp/s make watch", "dtach -n /tmp/s make watch\nmake watch {via dtach}"},
		{"abduco -n job make", "abduco -n job make\nmake {via abduco}"},
		{"elixir -e 'IO.puts 1'", "elixir -e IO.puts 1 {code elixir: IO.puts 1}"},
		{"ghc -e 'main'", "ghc -e main {code ghc: main}"},
		{"erl -noshell -eval 'halt().'", "erl -noshell -eval halt(). {code erl: halt().}"},
		{"ghc -O2 Main.hs", "ghc -O2 Main.hs"},
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
