// Package sandbox is the re-executed child of stockade: it applies the kernel
// sandbox a Spec asks for (no_new_privs, capability drop, Landlock, Landlock
// scopes, a seccomp socket filter, a process bound) and then runs commands.
//
// The parent never sandboxes itself. It starts `stockade` again through
// /proc/self/exe with the hidden sentinel argument ChildArg; main checks for it
// before anything else and hands control to ChildMain. The Spec travels on an
// inherited descriptor (fd 3), never in argv or the environment, and the outcome
// of applying it travels back on a descriptor of its own, so "the sandbox could not
// be applied" is never mistaken for "the command exited 1".
//
// The child runs in one of two modes:
//
//   - exec: apply the sandbox, then replace itself with the command (stockade run);
//   - zygote: apply the sandbox once, then spawn each command of an MCP session on
//     request, so a session pays for one re-exec instead of one per call. Commands
//     inherit the zygote's Landlock domain, seccomp filter and no_new_privs.
package sandbox
