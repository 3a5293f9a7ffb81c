package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
)

// ChildArg is the hidden first argument that makes stockade act as the sandboxed
// child. main checks for it before anything else.
const ChildArg = "__stockade_sandbox_child__"

// Descriptors the child inherits (ExtraFiles in the parent).
const (
	// ControlFD carries the Request: a pipe in exec mode, a unix seqpacket
	// socket in zygote mode (which also carries spawn requests and their results).
	ControlFD = 3
	// ReportFD carries the Reply in exec mode; it is close-on-exec in the child,
	// so the parent reading EOF after an Applied reply means the command started.
	ReportFD = 4
)

// Mode says what the child does once the sandbox is in force.
type Mode string

const (
	ModeExec   Mode = "exec"   // replace the child with Argv
	ModeZygote Mode = "zygote" // spawn commands on request, see Zygote
)

// Request is the first message to the child.
type Request struct {
	Mode Mode     `json:"mode"`
	Spec Spec     `json:"spec"`
	Argv []string `json:"argv,omitempty"` // exec mode
	Env  []string `json:"env,omitempty"`  // exec mode
	Dir  string   `json:"dir,omitempty"`  // exec mode
}

// Reply is the child's answer to a Request: what it applied, or why it could not.
// A child that cannot apply the sandbox never runs the command.
type Reply struct {
	Applied *Applied `json:"applied,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Stage is where it failed: "request", "sandbox" or "exec".
	Stage string `json:"stage,omitempty"`
}

// ExitSetupFailed is the child's exit status when it could not set up; the parent
// learns why from the Reply, never from this number.
const ExitSetupFailed = 125

// ChildMain is the entry point of the re-executed child. It never returns.
func ChildMain(args []string) {
	os.Exit(childMain())
}

// writeReply sends one JSON line on w.
func writeReply(w *os.File, r Reply) {
	b, err := json.Marshal(r)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"error":%q,"stage":"request"}`, err.Error()))
	}
	w.Write(append(b, '\n'))
}
