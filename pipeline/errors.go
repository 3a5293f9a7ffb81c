package pipeline

import (
	"errors"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/sandbox"
	"github.com/stockade/stockade/supervise"
)

// The stable error codes: a failure of the tool (not of the command) carries
// one, as `[CODE]` in the MCP text and as error_code in a Result. Clients may
// match on them, so they never change.
const (
	CodeEmptyCommand     = "EMPTY_COMMAND"
	CodeInvalidArgument  = "INVALID_ARGUMENT"
	CodePolicyDenied     = "POLICY_DENIED"
	CodeApprovalRequired = "APPROVAL_REQUIRED"
	CodeApprovalDenied   = "APPROVAL_DENIED"
	CodeTaskLimit        = "TASK_LIMIT"
	CodeTaskNotFound     = "TASK_NOT_FOUND"
	CodeSpawnFailed      = "SPAWN_FAILED"
	CodeSandboxFailed    = "SANDBOX_FAILED"
	CodeSessionClosed    = "SESSION_CLOSED"
	CodeInternal         = "INTERNAL"
)

// Codes is every stable code, in the order of the README's table (a test
// keeps the two the same).
var Codes = []string{
	CodeEmptyCommand, CodeInvalidArgument, CodePolicyDenied, CodeApprovalRequired,
	CodeApprovalDenied, CodeTaskLimit, CodeTaskNotFound, CodeSpawnFailed,
	CodeSandboxFailed, CodeSessionClosed, CodeInternal,
}

// Error is a refusal decided above the stages, by the judge or a front-end
// checking its arguments: it has its code already.
type Error struct {
	Code string // one of Codes
	Msg  string
}

func (e *Error) Error() string { return "[" + e.Code + "] " + e.Msg }

// stageCodes is the one table from the errors of the stages to the stable
// codes; the first entry that matches wins. An error none matches is a bug
// (CodeInternal).
var stageCodes = []struct {
	match func(error) bool
	code  string
}{
	{is(supervise.ErrTaskLimit), CodeTaskLimit},
	{is(supervise.ErrTaskNotFound), CodeTaskNotFound},
	{is(supervise.ErrSpawn), CodeSpawnFailed},
	{is(supervise.ErrSessionClosed), CodeSessionClosed},
	{is(supervise.ErrSessionStart), CodeSandboxFailed},
	{is(sandbox.ErrSupervisorGone), CodeSandboxFailed},
	{as[*supervise.SandboxError], CodeSandboxFailed},
	{as[*degrade.Refusal], CodeSandboxFailed},
}

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

func as[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

// codeOf is the stable code of err and the message that goes with it.
func codeOf(err error) (code, msg string) {
	var e *Error
	if errors.As(err, &e) {
		return e.Code, e.Msg
	}
	for _, c := range stageCodes {
		if c.match(err) {
			return c.code, err.Error()
		}
	}
	return CodeInternal, err.Error() + " (this is a bug in stockade; please report it)"
}
