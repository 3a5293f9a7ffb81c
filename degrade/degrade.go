package degrade

import (
	"strings"

	"github.com/stockade/stockade/hostfacts"
)

// Status of one protection.
type Status string

const (
	// Enforced: the kernel (or, for env-scrub, stockade) stops it.
	Enforced Status = "enforced"
	// Partial: stopped in part; the note says what is left open.
	Partial Status = "partial"
	// NotEnforced: wanted, but nothing on this host stops it.
	NotEnforced Status = "not enforced"
	// Off: the policy does not ask for it.
	Off Status = "off"
)

// Names of the protections in a Report, in the order they appear.
const (
	FSWrite      = "fs-write"      // no writes outside the workdir, TMPDIR and writable roots
	DenyRead     = "deny-read"     // the deny_read paths cannot be read
	NetworkTCP   = "network-tcp"   // no TCP connect or bind
	NetworkOther = "network-other" // no UDP (DNS), raw or packet sockets
	UnixSockets  = "unix-sockets"  // no new unix sockets, so no docker.sock or ssh-agent
	DeviceIoctl  = "device-ioctl"  // no ioctl on device files (TIOCSTI)
	Signals      = "signals"       // no signals or ptrace to processes outside the sandbox
	// KernelObjects: no resource limits, priorities or scheduling of processes
	// outside the sandbox, no keyrings, no System V IPC of the host, no
	// administrator calls (see sandbox/seccomp_kernel.go).
	KernelObjects = "kernel-objects"
	// ProtectedFiles: what runs outside the sandbox later (git hooks and
	// config, the policy file) cannot be changed by the command.
	ProtectedFiles = "protected-files"
	Containment    = "containment"   // every process the command starts ends with it
	ProcessBound   = "process-bound" // at most max_processes processes
	EnvScrub       = "env-scrub"     // secrets removed from the environment
)

// Protection is one line of the enforcement report.
type Protection struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Required: the policy asks for it, so strict enforcement refuses to run
	// when it is less than Enforced.
	Required bool   `json:"required"`
	By       string `json:"by,omitempty"`
	Note     string `json:"note,omitempty"`
}

// Report says what a run gets.
type Report struct {
	Enforce string `json:"enforce"`
	// Full: every protection the policy requires is enforced.
	Full        bool         `json:"full"`
	Host        string       `json:"host"` // one line: os, kernel, landlock, seccomp
	Protections []Protection `json:"protections"`
}

// Missing returns the required protections that are not fully enforced.
func (r Report) Missing() []Protection {
	var out []Protection
	for _, p := range r.Protections {
		if p.Required && p.Status != Enforced {
			out = append(out, p)
		}
	}
	return out
}

// Get returns the protection with the given name.
func (r Report) Get(name string) (Protection, bool) {
	for _, p := range r.Protections {
		if p.Name == name {
			return p, true
		}
	}
	return Protection{}, false
}

// Summary is one line for the warning a best-effort run logs once, such as
// "best-effort: partial: fs-write; not enforced: network-other".
func (r Report) Summary() string {
	if r.Full {
		return "every protection the policy requires is enforced"
	}
	var partial, not []string
	for _, p := range r.Missing() {
		if p.Status == Partial {
			partial = append(partial, p.Name)
		} else {
			not = append(not, p.Name)
		}
	}
	var parts []string
	if len(partial) > 0 {
		parts = append(parts, "partial: "+strings.Join(partial, ", "))
	}
	if len(not) > 0 {
		parts = append(parts, "not enforced: "+strings.Join(not, ", "))
	}
	return r.Enforce + ": " + strings.Join(parts, "; ")
}

// Host is what the planner plans for: this machine (hostfacts.Detect) or
// another one described by hand.
type Host = hostfacts.Host

// Refusal is the error Plan returns under strict enforcement when the host
// cannot give a protection the policy requires. Nothing may run.
type Refusal struct {
	Missing []Protection // required protections less than enforced
	Why     string       // what the host lacks, such as "no landlock: kernel 5.10 predates it (5.13+)"
}

func (r *Refusal) Error() string {
	names := make([]string, len(r.Missing))
	for i, p := range r.Missing {
		names[i] = p.Name
		if p.Status == Partial {
			names[i] += " (partial)"
		}
	}
	msg := "this host cannot enforce what the policy requires: " + strings.Join(names, ", ")
	if r.Why != "" {
		msg += ": " + r.Why
	}
	return msg
}

// Hints are the one-line policy changes that would let the command run: opting
// into best-effort, or dropping the requirement.
func (r *Refusal) Hints() []string {
	hints := []string{`to run with what this host can enforce, set enforce = "best-effort" in [sandbox]`}
	seen := map[string]bool{}
	for _, p := range r.Missing {
		var h string
		switch p.Name {
		case FSWrite, DenyRead:
			h = `or drop the filesystem restriction: filesystem = "off" in [sandbox]`
		case NetworkTCP, NetworkOther:
			h = `or allow the network: network = "on" in [sandbox]`
		case UnixSockets:
			h = `or allow unix sockets: unix_sockets = "allow" in [sandbox]`
		case ProcessBound:
			h = `or keep only the default process bound, which is not required: max_processes = 0 in [sandbox]`
		}
		if h != "" && !seen[h] {
			seen[h] = true
			hints = append(hints, h)
		}
	}
	return append(hints, "run 'stockade doctor' to see what this host can enforce")
}
