//go:build !linux && !windows

package supervise

import (
	"os"
	"syscall"
)

func startDirect(argv, env []string, dir string, files [4]*os.File) (*os.Process, error) {
	return os.StartProcess(argv[0], argv, &os.ProcAttr{Dir: dir, Env: env, Files: files[:],
		Sys: &syscall.SysProcAttr{Setpgid: true}})
}

func signalGroup(p *os.Process, sig syscall.Signal) { syscall.Kill(-p.Pid, sig) }
