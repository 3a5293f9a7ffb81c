//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

func childMain() int {
	if len(os.Args) > 2 && os.Args[2] == string(ModeZygote) {
		return zygoteMain()
	}
	return execMain()
}

// execMain applies the sandbox and replaces this process with the command.
func execMain() int {
	unix.CloseOnExec(ReportFD)
	report := os.NewFile(ReportFD, "report")
	control := os.NewFile(ControlFD, "control")
	var req Request
	data, err := io.ReadAll(control)
	control.Close()
	if err == nil {
		err = json.Unmarshal(data, &req)
	}
	if err != nil || req.Mode != ModeExec || len(req.Argv) == 0 {
		writeReply(report, Reply{Error: fmt.Sprintf("bad request: %v", err), Stage: "request"})
		return ExitSetupFailed
	}
	if err := checkNetNSFD(req.Spec); err != nil {
		writeReply(report, Reply{Error: err.Error(), Stage: "request"})
		return ExitSetupFailed
	}
	applied, err := ApplyForExec(req.Spec)
	if err != nil {
		writeReply(report, Reply{Error: err.Error(), Stage: "sandbox"})
		return ExitSetupFailed
	}
	writeReply(report, Reply{Applied: &applied})
	if req.Dir != "" {
		if err := os.Chdir(req.Dir); err != nil {
			writeReply(report, Reply{Error: err.Error(), Stage: "exec"})
			return ExitSetupFailed
		}
	}
	path, err := lookPath(req.Argv[0], req.Env)
	if err == nil {
		err = unix.Exec(path, req.Argv, req.Env)
	}
	writeReply(report, Reply{Error: fmt.Sprintf("%s: %v", req.Argv[0], err), Stage: "exec"})
	return ExitSetupFailed
}

// lookPath finds file the way a shell would, with the PATH of env.
func lookPath(file string, env []string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("command not found")
}
