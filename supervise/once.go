package supervise

import (
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/stockade/stockade/sandbox"
)

// OnceRequest is one command for RunOnce.
type OnceRequest struct {
	Argv  []string
	Env   []string
	Dir   string
	Spec  sandbox.Spec
	NetNS *os.File // the network namespace to run in when Spec.NetNS without Spec.UserNS (see sandbox.NewNetNS)
	// Egress serves the allowlist proxy on a listener at ProxyAddr that the
	// sandbox opens in its own network namespace (Spec.UserNS and
	// Spec.NetNS), until the listener is closed; nil: no proxy.
	Egress  func(net.Listener)
	Timeout time.Duration // 0: none
	Grace   time.Duration // between SIGTERM and SIGKILL (default DefaultGrace)
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

// waitedStatus is the raw wait status of a command from what cmd.Wait
// returned; an error that is not an exit status is returned as it is.
func waitedStatus(err error) (int, error) {
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exitErr):
		return waitStatus(exitErr.ProcessState), nil
	}
	return 0, err
}

// finish fills res from how supervision of the command ended.
func finish(res *OnceResult, end ending[error]) error {
	res.TimedOut = end.timedOut
	status, err := waitedStatus(end.exit)
	if err != nil {
		return err
	}
	res.ExitCode, res.Signal = exitCode(status, res.TimedOut)
	return nil
}
