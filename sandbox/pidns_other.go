//go:build !linux

package sandbox

// pidNamespace: there are PID namespaces on Linux only.
type pidNamespace struct{}
