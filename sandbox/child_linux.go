//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func childMain() int {
	if len(os.Args) > 2 && os.Args[2] == string(modeZygote) {
		return zygoteMain()
	}
	fmt.Fprintln(os.Stderr, "stockade: error: the sandbox child runs in zygote mode only")
	return exitSetupFailed
}

// lookPath finds file the way a shell would, with the PATH of env; relative
// directories of the PATH are taken from dir when it is set (where the command
// will start), else from the current directory.
func lookPath(file string, env []string, dir string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, entry := range filepath.SplitList(path) {
		if entry == "" {
			entry = "."
		}
		p := filepath.Join(entry, file)
		probe := p
		if dir != "" && !filepath.IsAbs(p) {
			probe = filepath.Join(dir, p)
		}
		if fi, err := os.Stat(probe); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errNotFound
}

// errNotFound is lookPath's answer when no directory of PATH has the command.
var errNotFound = errors.New("command not found")
