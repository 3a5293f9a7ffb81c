package sandbox

import (
	"os"
	"testing"

	"github.com/stockade/stockade/internal/leakcheck"
)

// TestMain fails the tests if they leave a process behind. A copy of the test
// binary started to run one test inside the sandbox (envChild, see
// helper_linux_test.go) leaves what its test started to the parent: there it
// is stopped through the process bound's cgroup, or caught by the parent's
// leakcheck, which is the child subreaper of everything below it.
func TestMain(m *testing.M) {
	if os.Getenv("STOCKADE_TEST_START_ON_MAIN_THREAD") != "" {
		startOnMainThread()
		os.Exit(0)
	}
	if os.Getenv("STOCKADE_TEST_CHILD") != "" {
		os.Exit(m.Run())
	}
	leakcheck.Main(m)
}
