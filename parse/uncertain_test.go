package parse

import "testing"

// TestAssignmentUncertain: an assignment that may not run, or runs in
// another process, is marked so; one the script's own shell surely runs
// is not.
func TestAssignmentUncertain(t *testing.T) {
	tests := []struct {
		script    string
		uncertain bool
	}{
		{`X=1; echo "$X"`, false},
		{`{ X=1; }; echo "$X"`, false},
		{`X=1 && echo ok`, false},
		{`(X=1); echo "$X"`, true},
		{`true && X=1`, true},
		{`false || X=1`, true},
		{`if true; then X=1; fi`, true},
		{`for i in a; do X=1; done`, true},
		{`while false; do X=1; done`, true},
		{`case a in a) X=1;; esac`, true},
		{`f(){ X=1; }`, true},
		{`echo "$(X=1)"`, true},
		{`X=1 | cat`, true},
		{`X=1 &`, true},
		{`eval 'X=1'`, true},
		{`(( X = 1 ))`, true},
		{`echo $((X+=2))`, true},
		{`arr[X=3]=1`, true},
		{`[[ $((X++)) -eq 0 ]]`, true},
	}
	for _, tc := range tests {
		s, err := Parse(tc.script)
		if err != nil {
			t.Fatalf("%q: %v", tc.script, err)
		}
		found := false
		for _, as := range s.Assignments {
			if as.Name == "X" {
				found = true
				if as.Uncertain != tc.uncertain {
					t.Errorf("%q: uncertain %v, want %v", tc.script, as.Uncertain, tc.uncertain)
				}
			}
		}
		if !found {
			t.Errorf("%q: no assignment of X", tc.script)
		}
	}
}
