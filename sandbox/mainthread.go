package sandbox

import "runtime"

// MainThreadLocked is for an init function of a program that calls Start: it
// keeps the main goroutine on the main thread for good, so that Start's
// goroutine, which is restricted, is never scheduled there.
func MainThreadLocked() { runtime.LockOSThread() }
