package supervise

import "fmt"

// Error is a failure of the tool, not of the command: it has a stable code.
type Error struct {
	Code string // EMPTY_COMMAND, INVALID_ARGUMENT, TASK_LIMIT, TASK_NOT_FOUND, SPAWN_FAILED, SANDBOX_FAILED, SESSION_CLOSED
	Msg  string
}

func (e *Error) Error() string { return "[" + e.Code + "] " + e.Msg }

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
