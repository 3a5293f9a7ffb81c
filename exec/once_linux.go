//go:build linux

package exec

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/stockade/stockade/sandbox"
	"golang.org/x/sys/unix"
)

// Child is a sandboxed child started ahead of its command: it runs nothing
// until Run hands it the request, so its start-up can overlap the parent's
// policy work, and Abort leaves nothing behind.
type Child struct {
	cmd   *exec.Cmd
	ctlW  *os.File
	repR  *os.File
	start time.Time
	// Output that goes to a writer rather than a file is copied from pipes of
	// our own, so waiting for the command never waits for whoever else holds
	// the pipes (a setsid process it left behind).
	copies  sync.WaitGroup
	readers []*os.File
}

// StartChild re-executes stockade as a sandboxed child in exec mode, with the
// given standard streams (an *os.File is handed over as it is).
func StartChild(stdin io.Reader, stdout, stderr io.Writer) (*Child, error) {
	return StartChildIn(nil, stdin, stdout, stderr)
}

// StartChildIn is StartChild with a network namespace (see sandbox.NewNetNS)
// handed to the child, which joins it if the spec it gets says NetNS; nil
// hands none.
func StartChildIn(netns *os.File, stdin io.Reader, stdout, stderr io.Writer) (*Child, error) {
	becomeSubreaper()
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, err
	}
	c := &Child{ctlW: ctlW, repR: repR, start: time.Now()}
	c.cmd = exec.Command(selfExe, sandbox.ChildArg, string(sandbox.ModeExec))
	c.cmd.Args[0] = os.Args[0]
	c.cmd.Env = []string{}
	c.cmd.ExtraFiles = []*os.File{ctlR, repW}
	if netns != nil {
		c.cmd.ExtraFiles = append(c.cmd.ExtraFiles, netns)
		c.cmd.Args = append(c.cmd.Args, sandbox.NetNSArg)
	}
	if f, ok := stdin.(*os.File); ok {
		c.cmd.Stdin = f
	}
	var writeEnds []*os.File
	for _, s := range []struct {
		w   io.Writer
		dst *io.Writer
	}{{stdout, &c.cmd.Stdout}, {stderr, &c.cmd.Stderr}} {
		f, err := c.output(s.w)
		if err != nil {
			return nil, err
		}
		*s.dst = f
		if _, direct := s.w.(*os.File); !direct && f != nil {
			writeEnds = append(writeEnds, f)
		}
	}
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = startKnown(c.cmd)
	ctlR.Close()
	repW.Close()
	for _, f := range writeEnds {
		f.Close()
	}
	if err != nil {
		ctlW.Close()
		repR.Close()
		return nil, &SandboxError{Stage: "request", Msg: "start the sandbox child: " + err.Error()}
	}
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
		buf := copyBuffers.Get().(*[]byte)
		io.CopyBuffer(w, r, *buf)
		copyBuffers.Put(buf)
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

// Abort stops a child that will not be given a command.
func (c *Child) Abort() {
	c.ctlW.Close()
	c.cmd.Process.Kill()
	c.cmd.Wait()
	c.repR.Close()
	c.drainOutput(time.Second)
	knownChildren.Delete(c.cmd.Process.Pid)
}

// RunOnce runs one command in a sandboxed child that replaces itself with the
// command (stockade run). This process supervises: it enforces the timeout and
// stops whatever the command left behind. A *SandboxError means the command
// never ran.
func RunOnce(ctx context.Context, req OnceRequest) (OnceResult, error) {
	c, err := StartChild(req.Stdin, req.Stdout, req.Stderr)
	if err != nil {
		return OnceResult{}, err
	}
	return c.Run(ctx, req)
}

// Run hands the child its command and supervises it to the end. The streams
// of req are those given to StartChild.
func (c *Child) Run(ctx context.Context, req OnceRequest) (OnceResult, error) {
	var res OnceResult
	if req.Grace <= 0 {
		req.Grace = 5 * time.Second
	}
	pid := c.cmd.Process.Pid
	defer knownChildren.Delete(pid)
	defer c.repR.Close()

	b, _ := json.Marshal(sandbox.Request{Mode: sandbox.ModeExec, Spec: req.Spec, Argv: req.Argv, Env: req.Env, Dir: req.Dir})
	c.ctlW.Write(b)
	c.ctlW.Close()

	// Replies until the descriptor closes: on exec (close-on-exec) or on exit.
	var setupErr *SandboxError
	sc := bufio.NewScanner(c.repR)
	for sc.Scan() {
		var r sandbox.Reply
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		if r.Applied != nil {
			res.Applied = *r.Applied
		}
		if r.Error != "" {
			setupErr = &SandboxError{Stage: r.Stage, Msg: r.Error}
		}
	}

	waited := make(chan error, 1)
	go func() { waited <- c.cmd.Wait() }()
	err, timedOut := supervise(ctx, waited, req.Timeout, func() error { return stopGroup(pid, waited, req.Grace) })
	res.TimedOut = timedOut
	res.Leftovers = killGroupAndStrays(pid)
	c.drainOutput(2 * time.Second)
	removeProcLimit(res.Applied.ProcLimit)
	res.Duration = time.Since(c.start)
	if setupErr != nil {
		return res, setupErr
	}
	return res, setExit(&res, err)
}

// stopGroup sends SIGTERM to the process group, then SIGKILL after grace.
func stopGroup(pgid int, waited <-chan error, grace time.Duration) error {
	unix.Kill(-pgid, unix.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-waited:
		return err
	case <-t.C:
		unix.Kill(-pgid, unix.SIGKILL)
		return <-waited
	}
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
