package sandbox

import (
	"os"
)

// ChildArg is the hidden first argument that makes stockade act as the sandboxed
// child. This package's init checks for it, so any program that imports the
// package answers it (stockade, and the test binaries that start zygotes).
const ChildArg = "__stockade_sandbox_child__"

// init runs the sandboxed child before main's package, and the packages only
// the rest of stockade uses (the MCP server, JSON Schema, HTTP and TLS, the
// policy), are initialised: the child, a session's zygote that stays resident
// as long as the session, never uses them, and their initialisation cost it
// start-up time and live heap. Go initialises a package only after every
// package it imports, so everything the child reaches is ready.
func init() {
	if len(os.Args) > 1 && os.Args[1] == ChildArg {
		ChildMain(os.Args[2:])
	}
}

// Descriptors the child inherits (ExtraFiles in the parent).
const (
	// controlFD is a unix seqpacket socket that carries the request, then
	// spawn requests and their results.
	controlFD = 3
)

// Mode says what the child does once the sandbox is in force.
type mode string

const (
	modeZygote mode = "zygote" // spawn commands on request, see zygote.go
)

// request is the first message to the child.
type request struct {
	Mode mode `json:"mode"`
	Spec Spec `json:"spec"`
}

// reply is the child's answer to a request: what it applied, or why it could not.
// A child that cannot apply the sandbox never runs the command.
type reply struct {
	Applied *Applied `json:"applied,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Stage is where it failed: "request", "sandbox" or "exec".
	Stage string `json:"stage,omitempty"`
	// ProxyListener: the reply carries, as SCM_RIGHTS, the listener the
	// zygote opened at Spec.ProxyAddr.
	ProxyListener bool `json:"proxy_listener,omitempty"`
	// ConnectListener: the reply carries, after the proxy's listener if
	// any, the supervised filter's listener (Spec.Supervised), which the
	// parent answers (notify_linux.go).
	ConnectListener bool `json:"connect_listener,omitempty"`
}

// exitSetupFailed is the child's exit status when it could not set up; the parent
// learns why from the reply, never from this number.
const exitSetupFailed = 125

// ChildMain is the entry point of the re-executed child. It never returns.
func ChildMain(args []string) {
	os.Exit(childMain())
}
