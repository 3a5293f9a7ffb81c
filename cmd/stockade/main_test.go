package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
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
			env.Setenv("HOME", env.WorkDir+"/home")
			return os.MkdirAll(env.WorkDir+"/home", 0o755)
		},
	})
}
