package supervise

import (
	"os"
	"syscall"
)

// Windows has no process groups or descriptor inheritance beyond 0-2: the
// report channel is not passed, so cwd and env are not carried between calls.
func startDirect(argv, env []string, dir string, files [4]*os.File) (*os.Process, error) {
	return os.StartProcess(argv[0], argv, &os.ProcAttr{Dir: dir, Env: env, Files: files[:3]})
}

func signalGroup(p *os.Process, sig syscall.Signal) { p.Kill() }

func waitStatus(s *os.ProcessState) int {
	if s == nil {
		return 1
	}
	return s.ExitCode()
}
