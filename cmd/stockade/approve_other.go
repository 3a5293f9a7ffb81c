//go:build !linux

package main

import "os"

// isTerminal: stockade run asks at a terminal on Linux only; elsewhere an
// ask is refused with the advice, as without a terminal.
func isTerminal(*os.File) bool { return false }

func ownedByMe(os.FileInfo) bool { return false }
