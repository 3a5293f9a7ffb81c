// Package supervise runs commands under the sandbox and watches them to the
// end: it starts them (through package sandbox), captures their output with
// bounded memory, enforces timeouts through one supervision path (SIGTERM to
// the process group, a grace period, then SIGKILL to the group and everything
// it left behind; 124 for a timeout), carries the cwd and the exported
// environment from one call to the next, and runs background tasks. Its name
// is what it does; it is not os/exec, which it uses.
//
// A Session (the MCP server, one per client) keeps one sandbox.Supervisor, the
// zygote that applied the kernel sandbox once and forks every command, and
// starts a new one if a command killed it. RunOnce (stockade run) starts one
// command from a sandboxed thread of this process. Either way this process is
// a child subreaper, so no command's process escapes by losing its parent.
//
// Failures of the tool, not of the command, are an *Error whose Kind is one of
// the sentinel errors (ErrTaskLimit, ErrSpawn, ...) or a *SandboxError;
// package pipeline maps them to the stable error codes.
package supervise
