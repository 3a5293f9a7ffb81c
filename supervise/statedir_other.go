//go:build !linux

package supervise

// killProcessesIn finds no processes where there is no /proc to look in.
func killProcessesIn([]string) int { return 0 }

// cleanDeadProcLimits: process-bound cgroups are Linux's.
func cleanDeadProcLimits() {}
