package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// init keeps TestMain's goroutine on the main thread, as stockade's main
// package does, so that the check below can be made from there.
func init() { MainThreadLocked() }

// startOnMainThread is what a copy of the test binary does instead of the
// tests: it asks startLocked for a sandbox on the main thread and prints
// what it answered.
func startOnMainThread() {
	_, err := startLocked(Spec{FS: FSOff}, exec.Command("true"))
	var se *StartError
	fmt.Println(errors.As(err, &se), err)
}

// TestStartRefusesTheMainThread: a signal to the process is checked against
// its main thread's Landlock domain, so a sandbox on that thread would let the
// command kill stockade (the escape suite's kill-parent and kill-all). Start
// refuses it before anything is applied.
func TestStartRefusesTheMainThread(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STOCKADE_TEST_START_ON_MAIN_THREAD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "true the sandbox would be applied to the process's main thread") {
		t.Errorf("startLocked on the main thread answered: %s", out)
	}
}
