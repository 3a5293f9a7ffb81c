// Package sandbox applies the kernel sandbox a Spec asks for (no_new_privs,
// capability drop, Landlock, Landlock scopes, a seccomp socket filter, a mount
// namespace, a process bound) and starts commands inside it. It has two ways
// to do so, and owns both ends of each:
//
//   - Start applies the Spec to one locked OS thread of the calling process and
//     starts a command from that thread (stockade run): no second program.
//   - StartSupervisor re-executes stockade through /proc/self/exe with the
//     hidden sentinel argument ChildArg (main checks for it before anything
//     else and hands control to ChildMain). That child, the zygote, applies the
//     Spec once and then forks each command of an MCP session on request, so a
//     session pays for one re-exec, not one per call. The Supervisor spawns,
//     signals and waits for commands, and Close stops the zygote and
//     everything below it.
//
// The parent never sandboxes itself. The zygote protocol (zygote.go) is
// private to this package: the Spec travels on an inherited socket, never in
// argv or the environment, and the outcome of applying it travels back on the
// same socket before any command runs, so "the sandbox could not be applied"
// (a *StartError) is never mistaken for "the command exited 1".
package sandbox
