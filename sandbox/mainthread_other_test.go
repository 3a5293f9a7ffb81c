//go:build !linux

package sandbox

// startOnMainThread: Start is Linux only.
func startOnMainThread() {}
