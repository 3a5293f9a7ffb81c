//go:build !linux

package degrade

// WithUserNS is h: user namespaces are a Linux feature.
func WithUserNS(h Host) Host { return h }
