//go:build linux

package exec

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/stockade/stockade/sandbox"
	"golang.org/x/sys/unix"
)

// RunOnce runs one command in a sandboxed child that replaces itself with the
// command (stockade run). This process supervises: it enforces the timeout and
// stops whatever the command left behind. A *SandboxError means the command
// never ran.
func RunOnce(ctx context.Context, req OnceRequest) (OnceResult, error) {
	becomeSubreaper()
	start := time.Now()
	var res OnceResult
	if req.Grace <= 0 {
		req.Grace = 5 * time.Second
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return res, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return res, err
	}
	defer repR.Close()
	cmd := exec.Command(selfExe, sandbox.ChildArg, string(sandbox.ModeExec))
	cmd.Args[0] = os.Args[0]
	cmd.Env = []string{}
	cmd.ExtraFiles = []*os.File{ctlR, repW}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = req.Stdin, req.Stdout, req.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	ctlR.Close()
	repW.Close()
	if err != nil {
		ctlW.Close()
		return res, &SandboxError{Stage: "request", Msg: "start the sandbox child: " + err.Error()}
	}
	pid := cmd.Process.Pid
	knownChildren.Store(pid, true)
	defer knownChildren.Delete(pid)

	b, _ := json.Marshal(sandbox.Request{Mode: sandbox.ModeExec, Spec: req.Spec, Argv: req.Argv, Env: req.Env, Dir: req.Dir})
	ctlW.Write(b)
	ctlW.Close()

	// Replies until the descriptor closes: on exec (close-on-exec) or on exit.
	var setupErr *SandboxError
	sc := bufio.NewScanner(repR)
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
	go func() { waited <- cmd.Wait() }()
	var timeout <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(req.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case err = <-waited:
	case <-timeout:
		res.TimedOut = true
		err = stopGroup(pid, waited, req.Grace)
	case <-ctx.Done():
		err = stopGroup(pid, waited, req.Grace)
	}
	res.Leftovers = killGroupAndStrays(pid)
	removeProcLimit(res.Applied.ProcLimit)
	res.Duration = time.Since(start)
	if setupErr != nil {
		return res, setupErr
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode, res.Signal = decodeStatus(int(exitErr.Sys().(syscall.WaitStatus)))
	default:
		return res, err
	}
	if res.TimedOut {
		res.ExitCode = 124
	}
	return res, nil
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
