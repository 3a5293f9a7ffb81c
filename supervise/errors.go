package supervise

import (
	"errors"
	"fmt"
)

// The kinds of failure of the tool (not of the command) that this package
// reports, each inside an *Error that says what happened. Callers tell them
// apart with errors.Is; package pipeline maps them to stable error codes.
var (
	ErrSessionClosed = errors.New("the session has ended")
	ErrTaskLimit     = errors.New("too many background tasks")
	ErrTaskNotFound  = errors.New("no such background task")
	ErrSpawn         = errors.New("the shell could not be started")
	// ErrSessionStart: the session's sandbox or private directory could not
	// be set up (see NewSession).
	ErrSessionStart = errors.New("the session could not be started")
)

// Error is a failure of the tool: Kind is one of the errors above (or
// sandbox.ErrSupervisorGone), Msg says what happened and what to do.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// SandboxError says the sandbox could not be set up; the command never ran.
type SandboxError struct {
	Stage string // "request", "sandbox" or "exec"
	Msg   string
}

func (e *SandboxError) Error() string {
	return fmt.Sprintf("the sandbox could not be applied (%s): %s", e.Stage, e.Msg)
}

// StateDirError refuses a state directory that this user does not own alone:
// another user may have created it first to read or plant session files.
type StateDirError struct {
	Dir string
	Why string
}

func (e *StateDirError) Error() string {
	return fmt.Sprintf("refusing state directory %s: it %s", e.Dir, e.Why)
}

// Hints say how to get a state directory stockade can use.
func (e *StateDirError) Hints() []string {
	return []string{
		fmt.Sprintf("if nothing of yours is in it, remove it (rm -rf %s) and start again; stockade creates it with mode 0700", e.Dir),
		"or set XDG_RUNTIME_DIR to a directory of your own with mode 0700",
	}
}
