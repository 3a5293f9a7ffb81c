// Package hostfacts holds what stockade knows about the host and its kernel,
// each fact once: the planner (degrade) reads it to say what a run will get,
// and the sandbox reads the same facts to put it in force, so the two cannot
// disagree.
//
// # Tables
//
// [ABIs] has one row per Landlock ABI version: the go-landlock preset the
// sandbox builds its ruleset from, the first kernel with it, what it gives a
// command and what is left open without it. The ABI* constants name the
// levels stockade relies on. [EffectiveABI] applies the errata: a kernel that
// reports ABI 6 or more without the fix for erratum 2 ([SignalScopeSafe]) is
// restricted at ABI 5, as go-landlock does. [Mechanisms] says the same for
// seccomp, the IPC namespace, the pids cgroup and the process group.
//
// # Probes
//
// [Detect] fills in a [Host] once per process, from a handful of system calls
// and reads under /proc and /sys, starting no process: the Landlock ABI and
// fixed errata, and why Landlock is missing when it is (ENOSYS: not built in,
// or blocked by a seccomp filter this process runs under; EOPNOTSUPP: built in
// but not enabled at boot); whether seccomp filters can be installed;
// no_new_privs; root; CAP_SYS_ADMIN; and the pids cgroup.
//
// [FindPidsCgroup] is the one way the pids cgroup is found, from
// /proc/self/mountinfo and /proc/self/cgroup: detection reports it and the
// sandbox makes its bounded cgroup under it. [LandlockVersion] and
// [LandlockErrata] are the kernel's own answers, which the sandbox asks again
// in the child before it restricts. [EffectiveCap] asks for one
// capability of the calling thread. [UserNamespaces] finds out, by making one,
// whether this process may create a user namespace; it starts a process that
// runs nothing, so it is not part of Detect.
//
// Off Linux, Detect reports no Landlock, no seccomp and no cgroups, with the
// reason.
package hostfacts
