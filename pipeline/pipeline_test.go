package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/stockade/stockade/policy"
)

// TestJudgeOrder: what cannot run at all is refused before the policy is
// asked, and the policy's deny is an error while its ask is a decision.
func TestJudgeOrder(t *testing.T) {
	s := &Setup{Policy: policy.Default()}
	big := "rm -rf /\n" + strings.Repeat("#", MaxScript)
	tests := []struct {
		name    string
		cmd     Command
		code    string // the error's stable code, "" for none
		verdict policy.Verdict
	}{
		{"empty", Command{Script: " \n\t"}, "EMPTY_COMMAND", ""},
		{"too large, before the policy", Command{Script: big}, "INVALID_ARGUMENT", ""},
		{"too large argument", Command{Argv: []string{"echo", strings.Repeat("x", MaxScript+1)}}, "INVALID_ARGUMENT", ""},
		{"denied", Command{Script: "rm -rf /"}, "POLICY_DENIED", policy.Deny},
		{"asks", Command{Script: "git push --force origin main"}, "", policy.Ask},
		{"allowed", Command{Argv: []string{"echo", "it's"}}, "", policy.Allow},
		{"largest allowed", Command{Script: "true #" + strings.Repeat("x", MaxScript-7)}, "", policy.Allow},
	}
	for _, tt := range tests {
		d, err := s.Judge(tt.cmd)
		var e *Error
		code := ""
		if errors.As(err, &e) {
			code = e.Code
		} else if err != nil {
			t.Errorf("%s: error %v is not an *Error", tt.name, err)
		}
		if code != tt.code || d.Verdict != tt.verdict {
			t.Errorf("%s: code %q verdict %q, want %q %q (%v)", tt.name, code, d.Verdict, tt.code, tt.verdict, err)
		}
	}
}

func TestCommandText(t *testing.T) {
	for _, tt := range []struct {
		cmd  Command
		want string
	}{
		{Command{Script: "echo $HOME"}, "echo $HOME"},
		{Command{Argv: []string{"echo", "$HOME", "a b", "it's", ""}}, `echo '$HOME' 'a b' "it's" ''`},
	} {
		if got := tt.cmd.Text(); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.cmd, got, tt.want)
		}
	}
}
