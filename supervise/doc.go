// Package supervise is the process lifecycle of stockade: it starts commands in
// the session's sandbox, captures their output with bounded memory, enforces
// timeouts (SIGTERM to the process group, a grace period, then SIGKILL to the
// group and everything it left behind), carries the cwd and the exported
// environment from one call to the next, and runs background tasks.
//
// On Linux each Session has one sandboxed supervisor (the "zygote", see package
// sandbox) that applied the kernel sandbox once and forks every command of the
// session, so a call costs one fork and exec of the shell, not a re-exec of
// stockade. The process using this package becomes a child subreaper, so no
// command's process can escape by losing its parent.
package supervise
