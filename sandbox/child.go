package sandbox

import (
	"os"
)

// ChildArg is the hidden first argument that makes stockade act as the sandboxed
// child. main checks for it before anything else.
const ChildArg = "__stockade_sandbox_child__"

// Descriptors the child inherits (ExtraFiles in the parent).
const (
	// ControlFD is a unix seqpacket socket that carries the Request, then
	// spawn requests and their results.
	ControlFD = 3
)

// Mode says what the child does once the sandbox is in force.
type Mode string

const (
	ModeZygote Mode = "zygote" // spawn commands on request, see Zygote
)

// Request is the first message to the child.
type Request struct {
	Mode Mode `json:"mode"`
	Spec Spec `json:"spec"`
}

// Reply is the child's answer to a Request: what it applied, or why it could not.
// A child that cannot apply the sandbox never runs the command.
type Reply struct {
	Applied *Applied `json:"applied,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Stage is where it failed: "request", "sandbox" or "exec".
	Stage string `json:"stage,omitempty"`
	// ProxyListener: the reply carries, as SCM_RIGHTS, the listener the
	// zygote opened at Spec.ProxyAddr.
	ProxyListener bool `json:"proxy_listener,omitempty"`
}

// ExitSetupFailed is the child's exit status when it could not set up; the parent
// learns why from the Reply, never from this number.
const ExitSetupFailed = 125

// ChildMain is the entry point of the re-executed child. It never returns.
func ChildMain(args []string) {
	os.Exit(childMain())
}
