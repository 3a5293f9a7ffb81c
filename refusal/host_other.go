//go:build !linux

package refusal

import "os"

// Without the kernel sandbox nothing is refused by it: claim nothing.
func hostReadOnly(string) bool { return true }
func hostWritable(string) bool { return false }

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
