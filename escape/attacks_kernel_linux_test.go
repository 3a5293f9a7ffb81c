//go:build linux

package escape

// Attacks on other processes and on shared kernel objects that Landlock does
// not cover (issue 8, items 1-3): resource limits, scheduling and I/O
// priority of other processes, the user's keyring, System V IPC. Each runs as
// root and as the plain user.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// victimState reads one property of the victim; victimChanged turns a change
// of it into a finding.
func victimChanged(what string, read func(pid int) string) func(*testing.T, *env, *result) []string {
	return func(t *testing.T, e *env, r *result) []string {
		before := e.vars["VICTIM_"+what]
		if now := read(e.victim.Process.Pid); now != before {
			return []string{fmt.Sprintf("the %s of the victim process %d outside the command changed: %q -> %q", what, e.victim.Process.Pid, before, now)}
		}
		return nil
	}
}

// recordVictim saves the victim's property before the run.
func recordVictim(what string, read func(pid int) string) func(*testing.T, *env) map[string]string {
	return func(t *testing.T, e *env) map[string]string {
		return map[string]string{"VICTIM_" + what: read(e.victim.Process.Pid)}
	}
}

func victimNoFile(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "Max open files") {
			return strings.Join(strings.Fields(line)[3:5], " ")
		}
	}
	return "?"
}

func victimNice(pid int) string {
	n, err := unix.Getpriority(unix.PRIO_PROCESS, pid)
	if err != nil {
		return err.Error()
	}
	return strconv.Itoa(20 - n) // the raw value is 20 - nice
}

func victimIOPrio(pid int) string {
	r, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(pid), 0)
	if e != 0 {
		return e.Error()
	}
	return strconv.Itoa(int(r))
}

func victimSched(pid int) string {
	r, _, e := unix.Syscall(unix.SYS_SCHED_GETSCHEDULER, uintptr(pid), 0, 0)
	if e != 0 {
		return e.Error()
	}
	return strconv.Itoa(int(r))
}

func TestOtherProcesses(t *testing.T) {
	victim := func(name, what string, read func(int) string) attack {
		return attack{name: name, expect: "the " + what + " of the victim", as: rootAndUser,
			vars: recordVictim(what, read), check: victimChanged(what, read)}
	}
	run(t, []attack{
		victim("renice-victim", "nice value", victimNice),
		victim("ioprio-victim", "I/O priority", victimIOPrio),
		victim("sched-victim", "scheduling policy", victimSched),
	})
}
