package supervise

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/stockade/stockade/sandbox"
)

// OnceRequest is one command for RunOnce.
type OnceRequest struct {
	Argv    []string
	Env     []string
	Dir     string
	Spec    sandbox.Spec
	NetNS   *os.File      // the network namespace to run in when Spec.NetNS (see sandbox.NewNetNS)
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

// supervise waits for the command (waited delivers cmd.Wait's error); when
// the timeout (0: none) passes or ctx ends first, stop must end it and return
// what waited then delivers.
func supervise(ctx context.Context, waited <-chan error, timeout time.Duration, stop func() error) (err error, timedOut bool) {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case err = <-waited:
	case <-expired:
		return stop(), true
	case <-ctx.Done():
		err = stop()
	}
	return err, false
}

// setExit fills the exit code and signal of res from what cmd.Wait returned;
// a command that timed out exits 124 if it had no status of its own (as in a
// session).
func setExit(res *OnceResult, err error) error {
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode, res.Signal = decodeStatus(waitStatus(exitErr.ProcessState))
	default:
		return err
	}
	if res.TimedOut && res.ExitCode == 0 {
		res.ExitCode = 124
	}
	return nil
}
