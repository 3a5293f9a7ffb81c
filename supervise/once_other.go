//go:build !linux

package supervise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"syscall"
	"time"

	"github.com/stockade/stockade/sandbox"
)

// Child stands for the process a command will run in. Outside Linux there is
// no kernel sandbox and nothing to start ahead: the command is a plain child
// process (degrade reports that nothing is enforced, and strict enforcement
// refuses before this is used).
type Child struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// StartChild prepares a child with the given standard streams.
func StartChild(stdin io.Reader, stdout, stderr io.Writer) (*Child, error) {
	return &Child{stdin: stdin, stdout: stdout, stderr: stderr}, nil
}

// Abort gives up a child that will not run a command.
func (c *Child) Abort() {}

// RunOnce runs one command.
func RunOnce(ctx context.Context, req OnceRequest) (OnceResult, error) {
	c, _ := StartChild(req.Stdin, req.Stdout, req.Stderr)
	return c.Run(ctx, req)
}

// Run runs the command and waits for it.
func (c *Child) Run(ctx context.Context, req OnceRequest) (OnceResult, error) {
	var res OnceResult
	if _, err := sandbox.Apply(req.Spec); err != nil {
		return res, &SandboxError{Stage: "sandbox", Msg: err.Error()}
	}
	start := time.Now()
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	cmd.Env, cmd.Dir = req.Env, req.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.stdin, c.stdout, c.stderr
	if err := cmd.Start(); err != nil {
		// The command's own failure, reported as a shell would: 127 when
		// there is no such command, 126 when it cannot be executed.
		if c.stderr != nil {
			fmt.Fprintf(c.stderr, "stockade: %v\n", err)
		}
		res.ExitCode = 126
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			res.ExitCode = 127
		}
		return res, nil
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	// No process group to signal here: the command is killed at once.
	kill := func(syscall.Signal) { cmd.Process.Kill() }
	end := await(ctx, command[error]{exited: waited, signal: kill}, req.Timeout, req.Grace, nil)
	res.Duration = time.Since(start)
	return res, finish(&res, end)
}
