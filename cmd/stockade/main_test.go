package main

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/policy"
)

// TestMain lets the test binary act as the stockade command inside scripts, and
// as the sandboxed child it re-executes (the production sentinel is checked in main).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"stockade": main})
}

// TestScript runs the CLI behaviour files in testdata/script.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// HOME is beside $WORK, not inside it, as a project is not the
			// directory that holds the home directory (stockade refuses such a
			// workdir); the archive's home/ files are moved there.
			home := env.WorkDir + ".home"
			env.Setenv("HOME", home)
			env.Defer(func() { os.RemoveAll(home) })
			if err := os.Rename(env.WorkDir+"/home", home); err == nil || !os.IsNotExist(err) {
				return err
			}
			return os.MkdirAll(home, 0o755)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "enforced":
				// This host fully enforces the built-in policy, so a strict
				// stockade run or serve starts (not so on the kernels of the
				// matrix without Landlock, or with ABI 2).
				_, _, err := degrade.Plan(degrade.Detect(), policy.Default().Sandbox, "/", os.TempDir())
				return err == nil, nil
			case "netns":
				// Each session gets a network namespace of its own (root
				// with CAP_SYS_ADMIN).
				return degrade.Detect().CanNetNS(), nil
			case "pip":
				// python3 -m pip works (Debian's python3 comes without it).
				return exec.Command("python3", "-m", "pip", "--version").Run() == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}
