// Package degrade knows what this host can enforce and compares it with what a
// policy requires: it returns the sandbox spec to apply and a report of what is
// and is not enforced, or a refusal when enforcement is strict.
package degrade

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/sandbox"
)

// Status of one protection.
type Status string

const (
	Enforced    Status = "enforced"
	Partial     Status = "partial"
	NotEnforced Status = "not enforced"
)

// Protection is one line of the enforcement report.
type Protection struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	By     string `json:"by,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Report says what a run gets.
type Report struct {
	Enforce     string       `json:"enforce"`
	Full        bool         `json:"full"`
	Protections []Protection `json:"protections"`
}

// Host is what this machine can enforce. Placeholder until the degrade work lands.
type Host struct {
	OS          string `json:"os"`
	LandlockABI int    `json:"landlock_abi"`
}

// Detect finds out, once, what this host can enforce.
func Detect() Host { return Host{OS: "linux", LandlockABI: 0} }

// Plan turns what the policy requires into the spec to apply on host h, and
// reports what will and will not be enforced. With enforce = "strict", a required
// protection the host cannot give is an error (a *Refusal) and nothing may run.
// Placeholder: assumes everything is enforceable; the degrade work replaces it.
func Plan(h Host, want policy.Sandbox, workdir, tmpdir string) (sandbox.Spec, Report, error) {
	home, _ := os.UserHomeDir()
	var deny []string
	for _, p := range want.DenyRead {
		if strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, p[2:])
		}
		deny = append(deny, p)
	}
	spec := sandbox.Spec{
		FS: sandbox.FSMode(want.Filesystem), Workdir: workdir, TmpDir: tmpdir,
		WritableRoots: want.WritableRoots, ReadableRoots: want.ReadableRoots, DenyRead: deny,
		NetworkOff: want.Network != "on", UnixSocketsOff: want.UnixSockets == "deny",
		MaxProcs: want.MaxProcesses,
	}
	return spec, Report{Enforce: want.Enforce}, nil
}
