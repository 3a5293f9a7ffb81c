//go:build linux

package supervise

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/stockade/stockade/sandbox"
	"golang.org/x/sys/unix"
)

// Child is the process a command will run in, prepared with its standard
// streams. Run applies the sandbox to a thread of this process and starts the
// command from it (sandbox.Start): no second program is started for it.
type Child struct {
	cmd   *exec.Cmd
	start time.Time
	// Output that goes to a writer rather than a file is copied from pipes of
	// our own, so waiting for the command never waits for whoever else holds
	// the pipes (a setsid process it left behind).
	copies    sync.WaitGroup
	readers   []*os.File
	writeEnds []*os.File // closed once the command holds them
}

// StartChild prepares a child with the given standard streams (an *os.File is
// handed over as it is).
func StartChild(stdin io.Reader, stdout, stderr io.Writer) (*Child, error) {
	becomeSubreaper()
	c := &Child{cmd: &exec.Cmd{}, start: time.Now()}
	if f, ok := stdin.(*os.File); ok {
		c.cmd.Stdin = f
	}
	for _, s := range []struct {
		w   io.Writer
		dst *io.Writer
	}{{stdout, &c.cmd.Stdout}, {stderr, &c.cmd.Stderr}} {
		f, err := c.output(s.w)
		if err != nil {
			c.Abort()
			return nil, &SandboxError{Stage: "request", Msg: "output pipes: " + err.Error()}
		}
		*s.dst = f
		if _, direct := s.w.(*os.File); !direct && f != nil {
			c.writeEnds = append(c.writeEnds, f)
		}
	}
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return c, nil
}

// output returns the file the command writes w through: w itself when it is
// a file, else the write end of a pipe that a goroutine copies into w.
func (c *Child) output(w io.Writer) (*os.File, error) {
	if w == nil {
		return nil, nil
	}
	if f, ok := w.(*os.File); ok {
		return f, nil
	}
	r, wf, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	growPipe(r)
	c.readers = append(c.readers, r)
	c.copies.Add(1)
	go func() {
		defer c.copies.Done()
		copyOutput(w, r)
	}()
	return wf, nil
}

// drainOutput reads the rest of the output, at most d, and closes the pipes.
func (c *Child) drainOutput(d time.Duration) {
	drain(&c.copies, c.readers, d)
	for _, r := range c.readers {
		r.Close()
	}
}

// Abort gives up a child that will not be given a command.
func (c *Child) Abort() {
	c.closeWriteEnds()
	c.drainOutput(time.Second)
}

func (c *Child) closeWriteEnds() {
	for _, f := range c.writeEnds {
		f.Close()
	}
	c.writeEnds = nil
}

// RunOnce runs one command in the sandbox (stockade run). This process
// supervises: it enforces the timeout and stops whatever the command left
// behind. A *SandboxError means the command never ran.
func RunOnce(ctx context.Context, req OnceRequest) (OnceResult, error) {
	c, err := StartChild(req.Stdin, req.Stdout, req.Stderr)
	if err != nil {
		return OnceResult{}, err
	}
	return c.Run(ctx, req)
}

// Run starts the command in the sandbox and supervises it to the end. The
// streams of req are those given to StartChild.
func (c *Child) Run(ctx context.Context, req OnceRequest) (OnceResult, error) {
	var res OnceResult
	c.cmd.Args, c.cmd.Env, c.cmd.Dir = req.Argv, req.Env, req.Dir
	if c.cmd.Env == nil {
		c.cmd.Env = []string{}
	}
	strayMu.Lock()
	applied, release, err := sandbox.Start(req.Spec, c.cmd, req.NetNS)
	if err == nil {
		knownChildren.Store(c.cmd.Process.Pid, true)
	}
	strayMu.Unlock()
	// A command that could not be started in the sandbox failed as in a
	// shell: its status is 127 or 126 and the reason goes to its stderr.
	se, _ := err.(*sandbox.StartError)
	ranNothing := se != nil && se.Stage == "exec"
	if ranNothing && c.cmd.Stderr != nil {
		fmt.Fprintf(c.cmd.Stderr, "stockade: %v\n", err)
	}
	c.closeWriteEnds()
	res.Applied = applied
	if err != nil {
		c.drainOutput(time.Second)
		res.Duration = time.Since(c.start)
		if ranNothing {
			res.ExitCode = se.ExitStatus()
			return res, nil
		}
		stage := "sandbox"
		if se != nil {
			stage = se.Stage
		}
		return res, &SandboxError{Stage: stage, Msg: err.Error()}
	}
	defer release()
	pid := c.cmd.Process.Pid
	defer knownChildren.Delete(pid)

	waited := make(chan error, 1)
	go func() { waited <- c.cmd.Wait() }()
	group := func(sig syscall.Signal) { unix.Kill(-pid, sig) }
	end := await(ctx, command[error]{exited: waited, signal: group}, req.Timeout, req.Grace, nil)
	res.Leftovers = killGroupAndStrays(pid)
	c.drainOutput(2 * time.Second)
	res.Duration = time.Since(c.start)
	return res, finish(&res, end)
}

// killGroupAndStrays stops what a finished command left: the rest of its
// process group and every orphan reparented to this process.
func killGroupAndStrays(pgid int) int {
	n := 0
	if unix.Kill(-pgid, unix.SIGKILL) == nil {
		n++
	}
	return n + killStrays()
}
