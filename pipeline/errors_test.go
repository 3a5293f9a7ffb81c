package pipeline

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/sandbox"
	"github.com/stockade/stockade/supervise"
)

// TestCodeOf maps each kind of failure, as the stages return it (wrapped or
// not), to its stable code.
func TestCodeOf(t *testing.T) {
	for _, tt := range []struct {
		err  error
		code string
	}{
		{&Error{Code: CodePolicyDenied, Msg: "no"}, CodePolicyDenied},
		{fmt.Errorf("judge: %w", &Error{Code: CodeEmptyCommand, Msg: "empty"}), CodeEmptyCommand},
		{&supervise.Error{Kind: supervise.ErrTaskLimit, Msg: "10 tasks"}, CodeTaskLimit},
		{&supervise.Error{Kind: supervise.ErrTaskNotFound, Msg: "no task"}, CodeTaskNotFound},
		{&supervise.Error{Kind: supervise.ErrSpawn, Msg: "could not start /bin/bash: " + sandbox.ErrSupervisorGone.Error()}, CodeSpawnFailed},
		{&supervise.Error{Kind: supervise.ErrSessionClosed, Msg: "ended"}, CodeSessionClosed},
		{&supervise.Error{Kind: supervise.ErrSessionStart, Msg: "no"}, CodeSandboxFailed},
		{&supervise.Error{Kind: sandbox.ErrSupervisorGone, Msg: "gone"}, CodeSandboxFailed},
		{&supervise.SandboxError{Stage: "sandbox", Msg: "landlock"}, CodeSandboxFailed},
		{fmt.Errorf("plan: %w", &degrade.Refusal{}), CodeSandboxFailed},
		{errors.New("something else"), CodeInternal},
	} {
		code, msg := codeOf(tt.err)
		if code != tt.code {
			t.Errorf("%v: code %s, want %s", tt.err, code, tt.code)
		}
		if !slices.Contains(Codes, code) {
			t.Errorf("%v: code %s is not in Codes", tt.err, code)
		}
		if strings.HasPrefix(msg, "[") {
			t.Errorf("%v: the message %q repeats the code", tt.err, msg)
		}
	}
	for _, c := range stageCodes {
		if !slices.Contains(Codes, c.code) {
			t.Errorf("stageCodes maps to %s, which is not in Codes", c.code)
		}
	}
}

// TestREADMECodes keeps the README's table of error codes the same as Codes.
func TestREADMECodes(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `\\[([A-Z_]+)\\]` \\|").FindAllStringSubmatch(string(data), -1) {
		documented = append(documented, m[1])
	}
	if !slices.Equal(documented, Codes) {
		t.Errorf("README.md documents the codes %q; Codes is %q", documented, Codes)
	}
}
