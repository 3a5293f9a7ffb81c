//go:build linux

package supervise

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/stockade/stockade/sandbox"
	"golang.org/x/sys/unix"
)

// Child is the process a command will run in, prepared with its standard
// streams. Run applies the sandbox to a thread of this process and starts the
// command from it (sandbox.Start): no second program is started for it. A
// spec with a user namespace (a plain user's, where the host allows one) is
// the exception: a multithreaded process cannot enter one, so the command is
// started by a sandbox supervisor of its own, as a session's are.
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
	if req.Spec.UserNS {
		return c.runSupervised(ctx, req)
	}
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
	if init := applied.NamespaceInit(); init != 0 {
		knownChildren.Store(init, true) // the command's PID namespace, not a stray
		defer knownChildren.Delete(init)
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
	if applied.PIDNamespace {
		// Everything the command left is in its namespace, ended at once.
		res.Leftovers = applied.EndNamespace() + killStrays()
	} else {
		res.Leftovers = killGroupAndStrays(pid)
	}
	c.drainOutput(2 * time.Second)
	res.Duration = time.Since(c.start)
	return res, finish(&res, end)
}

// runSupervised runs the command through a sandbox supervisor (the zygote a
// session uses), which starts in a user namespace with the namespaces that
// come with it, and dies with this process (its parent-death signal), killing
// everything below it. The result is the one Run gives.
func (c *Child) runSupervised(ctx context.Context, req OnceRequest) (OnceResult, error) {
	var res OnceResult
	fail := func(err error) (OnceResult, error) {
		c.closeWriteEnds()
		c.drainOutput(time.Second)
		res.Duration = time.Since(c.start)
		return res, err
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return fail(&SandboxError{Stage: "request", Msg: err.Error()})
	}
	defer devnull.Close()
	files := [4]*os.File{devnull, devnull, devnull, devnull}
	for i, s := range []any{c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr} {
		if f, ok := s.(*os.File); ok && f != nil && validFD(f) {
			files[i] = f
		}
	}
	sp, err := newSpawner(req.Spec, os.Stderr, req.Egress)
	if err != nil {
		return fail(err)
	}
	defer sp.close()
	res.Applied = sp.applied()
	cmd, err := sp.spawn(req.Argv, req.Env, req.Dir, files)
	if err != nil {
		// As Start's: a command that could not be started failed as in a
		// shell, with its reason on its stderr.
		code, msg, ok := execFailure(err, req)
		if !ok {
			return fail(&SandboxError{Stage: "sandbox", Msg: err.Error()})
		}
		if c.cmd.Stderr != nil {
			fmt.Fprintf(c.cmd.Stderr, "stockade: %s\n", msg)
		}
		c.closeWriteEnds()
		c.drainOutput(time.Second)
		res.ExitCode, res.Duration = code, time.Since(c.start)
		return res, nil
	}
	c.closeWriteEnds()
	signal := func(sig syscall.Signal) { sp.signal(cmd.ID, sig) }
	end := await(ctx, command[sandbox.Exit]{exited: cmd.Exited, gone: sp.gone(), signal: signal}, req.Timeout, req.Grace, sandbox.Exit{Status: int(syscall.SIGKILL)})
	sp.close()
	c.drainOutput(2 * time.Second)
	res.Duration = time.Since(c.start)
	if end.gone {
		return res, &SandboxError{Stage: "sandbox", Msg: "the sandbox supervisor exited while the command ran (it may have been killed by the command); everything it ran was stopped"}
	}
	res.TimedOut, res.Leftovers = end.timedOut, end.exit.Leftovers
	res.ExitCode, res.Signal = exitCode(end.exit.Status, res.TimedOut)
	return res, nil
}

// execFailure is the shell's status for a spawn error that says the command
// could not be started (the supervisor's "ARGV0: reason"), and the reason as
// Start words it: 127 when there is no such command, 126 when it cannot be
// executed ("is a directory" for a directory).
func execFailure(err error, req OnceRequest) (int, string, bool) {
	msg := err.Error()
	if len(req.Argv) == 0 || !strings.HasPrefix(msg, req.Argv[0]+": ") {
		return 0, "", false
	}
	if strings.HasSuffix(msg, ": command not found") || strings.HasSuffix(msg, ": no such file or directory") {
		return 127, msg, true
	}
	path := req.Argv[0]
	if !filepath.IsAbs(path) {
		path = filepath.Join(req.Dir, path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() && strings.Contains(req.Argv[0], "/") {
		msg = req.Argv[0] + ": " + syscall.EISDIR.Error()
	}
	return 126, msg, true
}

// validFD reports whether f is an open descriptor (stdin may be closed).
func validFD(f *os.File) bool {
	_, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0)
	return err == nil
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
