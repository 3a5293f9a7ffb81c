//go:build !linux

package main

// isTerminal reports whether w is a terminal; off Linux, stockade does not
// look (nothing is refused by a sandbox there, so stderr is not read).
func isTerminal(any) bool { return true }
