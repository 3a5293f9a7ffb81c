//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

func childMain() int {
	fmt.Fprintln(os.Stderr, "stockade: error: the sandboxed child runs only on linux")
	return exitSetupFailed
}
