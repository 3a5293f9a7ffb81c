// Package sandbox applies the kernel sandbox a Spec asks for (no_new_privs,
// capability drop, Landlock, Landlock scopes, a seccomp filter, read-only
// mounts, IPC and network namespaces, a process bound) and starts commands
// under it. It has two ways in, and owns both ends of each:
//
//   - Start (stockade run): apply the Spec to one locked thread of the calling
//     process and fork the command from that thread, so the command inherits
//     the sandbox and no second program is started;
//   - StartSupervisor (an MCP session): stockade re-executed through
//     /proc/self/exe with the hidden sentinel argument ChildArg, which this
//     package's init checks for and hands to ChildMain, before the packages
//     the child does not use are initialised. That child, the
//     zygote, applies the sandbox once, then forks each command of the session
//     on request; commands inherit its Landlock domain, seccomp filter and
//     no_new_privs. The Supervisor spawns, signals and waits for commands, and
//     Close stops the zygote and everything below it.
//
// The zygote protocol (zygote.go) is private to this package: the spec comes
// on an inherited seqpacket socket (fd 3), never in argv or the environment,
// and the reply goes back on it: what was applied, or the stage that failed
// (a *StartError), so "the sandbox could not be applied" is never mistaken
// for "the command exited 1".
//
// What it knows of the kernel (what each Landlock ABI restricts, the
// signal-scope erratum, where the pids cgroup is, the calling thread's
// capabilities) comes from package hostfacts, which the planner (degrade)
// reads too, so the report and the child agree.
package sandbox
