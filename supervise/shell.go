package supervise

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/stockade/stockade/sandbox"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// How the cwd and the exported environment travel from one call to the next
// without touching the command's output: every command runs as
//
//	bash -c SCRIPT        (the script exactly as the agent sent it and the policy judged it)
//
// with BASH_ENV pointing at the session's init file. Non-interactive bash reads
// that file before the script; it installs an EXIT trap that writes a report
// to file descriptor 3, a pipe of its own: a session nonce, the final $PWD, and
// `declare -px`. stdout and stderr belong to the command alone. A command that
// never reaches the trap (killed, timed out) or removes it leaves the session as
// it was. Without bash, /bin/sh runs the script through eval with the same trap.

// Shell is the program commands run with.
type Shell struct {
	Path   string // /bin/bash or /bin/sh
	isBash bool
}

// PosixShell is /bin/sh, run the way stockade runs it where there is no bash.
func PosixShell() Shell { return Shell{Path: "/bin/sh"} }

// DetectShell prefers /bin/bash and falls back to /bin/sh; where neither
// exists (Windows), it looks for bash, then sh, on PATH.
func DetectShell() Shell {
	for _, sh := range []Shell{{Path: "/bin/bash", isBash: true}, {Path: "/bin/sh"}} {
		if fi, err := os.Stat(sh.Path); err == nil && fi.Mode()&0o111 != 0 {
			return sh
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return Shell{Path: p, isBash: true}
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return Shell{Path: p}
	}
	return Shell{Path: "/bin/sh"}
}

// initLastArg is the last argument of the init file's last command (trap
// ... EXIT): what $_ holds when the script starts.
const initLastArg = "EXIT"

// reportFD is the descriptor the shell's exit trap writes its report to.
const reportFD = 3

// shellInit is the per-session init: the EXIT trap that reports cwd and env.
type shellInit struct {
	nonce string
	path  string // the BASH_ENV file

	mu          sync.Mutex
	lastExports []byte   // the last `export -p` output parsed...
	lastEnv     []string // ...and what it gave: most calls change nothing
}

func newShellInit(dir string) (*shellInit, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	si := &shellInit{nonce: "stockade-report-" + hex.EncodeToString(b[:])}
	si.path = filepath.Join(dir, "bash_env.sh")
	script := "# stockade: reports the cwd and environment when the command's shell exits.\nunset BASH_ENV\ntrap '" +
		strings.ReplaceAll(si.trap(true), "'", `'\''`) + "' " + initLastArg + "\n"
	if err := os.WriteFile(si.path, []byte(script), 0o444); err != nil {
		return nil, err
	}
	return si, nil
}

// trap is the EXIT trap's code. bash un-exports the per-command task marker
// first, so the report of a command that changed nothing is the same as the
// previous one; in a POSIX sh, `export -n` would be an error that ends the trap.
func (si *shellInit) trap(bash bool) string {
	unexport := ""
	if bash {
		unexport = "export -n " + sandbox.TaskEnv + "; "
	}
	return fmt.Sprintf(`__stockade_rc=$?; { printf '%%s\0%%s\0' '%s' "$PWD"; %sexport -p; } >&%d 2>/dev/null; exit "$__stockade_rc"`, si.nonce, unexport, reportFD)
}

// argv returns the command line and the extra environment to run script with.
func (si *shellInit) argv(sh Shell, script string) (argv []string, env []string) {
	if sh.isBash {
		return []string{sh.Path, "-c", script}, []string{"BASH_ENV=" + si.path}
	}
	wrapper := "trap '" + strings.ReplaceAll(si.trap(false), "'", `'\''`) + "' EXIT\n__stockade_script=$1; shift; eval \"$__stockade_script\""
	return []string{sh.Path, "-c", wrapper, "sh", script}, nil
}

// notTracked are variables the shell sets itself, or stockade sets per call;
// they are not carried from one call to the next.
var notTracked = map[string]bool{
	"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true, "BASH_ENV": true,
	"STOCKADE_TASK": true, "__stockade_rc": true, "__stockade_script": true,
}

// parseReport reads what the exit trap wrote: ok is false when the report is
// missing or not ours (the previous cwd and env then stay).
func (si *shellInit) parseReport(data []byte) (cwd string, env []string, ok bool) {
	nonce, rest, found := bytes.Cut(data, []byte{0})
	if !found || string(nonce) != si.nonce {
		return "", nil, false
	}
	dir, exports, found := bytes.Cut(rest, []byte{0})
	if !found || len(dir) == 0 {
		return "", nil, false
	}
	si.mu.Lock()
	defer si.mu.Unlock()
	if si.lastExports != nil && bytes.Equal(exports, si.lastExports) {
		return string(dir), slices.Clone(si.lastEnv), true
	}
	env, err := parseExports(exports)
	if err != nil {
		return string(dir), nil, true
	}
	si.lastExports, si.lastEnv = bytes.Clone(exports), env
	return string(dir), slices.Clone(env), true
}

// parseExports reads the output of `export -p` (bash prints `declare -x N="v"`,
// POSIX shells `export N='v'`) with a real shell parser, so every quoting form
// the shell may use comes back exactly.
func parseExports(b []byte) ([]string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(b), "")
	if err != nil {
		return nil, err
	}
	var env []string
	for _, stmt := range f.Stmts {
		var assigns []*syntax.Assign
		switch cmd := stmt.Cmd.(type) {
		case *syntax.DeclClause:
			assigns = cmd.Args
		case *syntax.CallExpr:
			// `export N='v'` parses as a declaration too in bash mode; keep this for safety.
			continue
		}
		for _, a := range assigns {
			if a.Name == nil || a.Naked || notTracked[a.Name.Value] {
				continue
			}
			value := ""
			if a.Value != nil {
				v, err := expand.Literal(nil, a.Value)
				if err != nil {
					return nil, err
				}
				value = v
			}
			env = append(env, a.Name.Value+"="+value)
		}
	}
	return env, nil
}
