package exec

import (
	"io"
	"time"

	"github.com/stockade/stockade/sandbox"
)

// OnceRequest is one command for RunOnce.
type OnceRequest struct {
	Argv    []string
	Env     []string
	Dir     string
	Spec    sandbox.Spec
	Timeout time.Duration // 0: none
	Grace   time.Duration // between SIGTERM and SIGKILL (default 5s)
	Stdin   io.Reader
	Stdout  io.Writer // an *os.File is handed to the command as it is
	Stderr  io.Writer
}

// OnceResult is what RunOnce observed.
type OnceResult struct {
	ExitCode  int
	Signal    string
	TimedOut  bool
	Applied   sandbox.Applied
	Leftovers int
	Duration  time.Duration
}
