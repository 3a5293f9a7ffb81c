//go:build linux && !cgo

package sandbox

// initKeepsMaps: without cgo (stockade's own build), the kernel writes no
// memory of the init but what it asks for, so the init can do without
// stockade's writable mappings (see initArgs.maps).
const initKeepsMaps = false
