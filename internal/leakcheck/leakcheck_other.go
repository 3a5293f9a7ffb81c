//go:build !linux

package leakcheck

import (
	"os"
	"testing"
)

// Main runs the tests. Finding a process left behind needs Linux's child
// subreaper and /proc, so elsewhere the tests run without that check.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a TestMain that has clean-up of its own to do.
func Run(m *testing.M) int { return m.Run() }
