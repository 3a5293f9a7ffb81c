//go:build !windows

package supervise

import (
	"os"
	"strconv"
	"syscall"
)

// decodeStatus turns a wait status into an exit code the way shells report it:
// 128+N for death by signal N.
func decodeStatus(status int) (int, string) {
	ws := syscall.WaitStatus(status)
	if ws.Signaled() {
		return 128 + int(ws.Signal()), signalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}

func signalName(sig syscall.Signal) string {
	names := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL",
		syscall.SIGINT: "SIGINT", syscall.SIGHUP: "SIGHUP", syscall.SIGSEGV: "SIGSEGV",
		syscall.SIGABRT: "SIGABRT", syscall.SIGPIPE: "SIGPIPE", syscall.SIGQUIT: "SIGQUIT"}
	if n, ok := names[sig]; ok {
		return n
	}
	return "signal " + strconv.Itoa(int(sig))
}

// waitStatus is the raw wait status of a finished process; a process that was
// never waited for counts as killed.
func waitStatus(s *os.ProcessState) int {
	if s == nil {
		return int(syscall.SIGKILL)
	}
	return int(s.Sys().(syscall.WaitStatus))
}
