//go:build !linux

package exec

import (
	"context"
	"errors"
	"os/exec"
	"time"

	"github.com/stockade/stockade/sandbox"
)

// RunOnce runs one command as a plain child process: outside Linux there is no
// kernel sandbox (degrade reports that nothing is enforced, and strict
// enforcement refuses before this is called).
func RunOnce(ctx context.Context, req OnceRequest) (OnceResult, error) {
	var res OnceResult
	if _, err := sandbox.Apply(req.Spec); err != nil {
		return res, &SandboxError{Stage: "sandbox", Msg: err.Error()}
	}
	start := time.Now()
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	cmd.Env, cmd.Dir = req.Env, req.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = req.Stdin, req.Stdout, req.Stderr
	if err := cmd.Start(); err != nil {
		return res, &SandboxError{Stage: "exec", Msg: err.Error()}
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var timeout <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(req.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var err error
	select {
	case err = <-waited:
	case <-timeout:
		res.TimedOut = true
		cmd.Process.Kill()
		err = <-waited
	case <-ctx.Done():
		cmd.Process.Kill()
		err = <-waited
	}
	res.Duration = time.Since(start)
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode, res.Signal = decodeStatus(waitStatus(exitErr.ProcessState))
	default:
		return res, err
	}
	if res.TimedOut {
		res.ExitCode = 124
	}
	return res, nil
}
