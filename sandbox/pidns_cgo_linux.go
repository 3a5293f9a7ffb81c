//go:build linux && cgo

package sandbox

// initKeepsMaps: with cgo every thread is glibc's, which registers an rseq
// area in a mapping of the thread's that Go does not know; the kernel writes
// it as the forked init returns to user space, so the init keeps every
// mapping (copy on write).
const initKeepsMaps = true
