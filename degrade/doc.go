// Package degrade compares what a host can enforce (a [Host], found by
// hostfacts.Detect) with what a policy requires. It returns the sandbox spec to
// apply and a report of what is and is not enforced, or a refusal when
// enforcement is strict.
//
// # Plan
//
// [Plan] takes a [Host] rather than detecting one, so a test, or `stockade
// doctor --host`, can plan for a machine it is not running on. It picks:
//
//   - LandlockABI: the best the kernel offers, at most
//     hostfacts.MaxLandlockABI, and 5 on a kernel that reports 6 or more
//     without the fix for erratum 2 (hostfacts.EffectiveABI);
//   - Seccomp: when the host has it (the filter also guards other processes
//     and the kernel's shared state, whatever the policy);
//   - UserNS: for a plain user where the host allows user namespaces (the
//     zygote, serve's or stockade run's own, starts in one, and gets root's
//     namespaces; [WithUserNS] probes for it);
//   - IPCNamespace: when the child will have CAP_SYS_ADMIN (root, or UserNS);
//   - SysVSupervised: where the host has the seccomp supervisor; it holds
//     System V IPC where the command gets no IPC namespace;
//   - Scopes: at Landlock ABI 6 and later;
//   - DropCaps: when running as root on Linux, or with UserNS;
//   - MaxProcs: max_processes, or [policy.DefaultMaxProcesses] when it is 0,
//     when a pids cgroup is usable; NprocLimit, the same bound through
//     RLIMIT_NPROC, for a user without one.
//
// The report has one line per protection, in this order: fs-write, deny-read,
// network-tcp, network-other, unix-sockets, device-ioctl, signals,
// kernel-objects, protected-files, containment, process-bound, env-scrub. Each line is planned
// by a small function of its own, listed in one table in that order. Each is
// [Enforced], [Partial], [NotEnforced] or [Off] (the policy does not ask for
// it), with what enforces it and, when something is left open, a note that
// says what. The notes on what a missing Landlock ABI or mechanism leaves open
// come from hostfacts.ABIs and hostfacts.Mechanisms.
//
// # Strict and best-effort
//
// A protection is required when the policy asks for it: fs-write and deny-read
// unless filesystem = "off" (deny-read is then still applied where Landlock is), the network pair when network = "off",
// unix-sockets when unix_sockets = "deny", process-bound when max_processes > 0.
// The others (device-ioctl, signals, kernel-objects, containment, env-scrub,
// and the default process bound) are reported but never required: no policy
// line could relax them.
//
// With enforce = "strict" (the default), a required protection that is less
// than enforced, partial included, makes Plan return a [*Refusal]: nothing may
// run. Its Error names what is missing and why; its Hints give the one-line
// policy changes that would let the command run. With enforce = "best-effort",
// Plan returns the weaker spec and a [Report] with Full false; callers log
// [Report.Summary] once and attach the report to every result.
//
// # Other operating systems
//
// stockade builds for macOS, Windows and FreeBSD, where there is no Landlock
// and no seccomp: hostfacts.Detect says so, strict refuses every policy that requires a
// kernel protection, and best-effort runs with a report that says nothing but
// the environment scrub (and, outside Windows, the process group) is enforced.
package degrade
