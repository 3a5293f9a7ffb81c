//go:build !linux

package sandbox

import (
	"errors"
	"net"
	"os"
)

// ErrUnsupported is returned where the operating system gives stockade no way to
// enforce a sandbox.
var ErrUnsupported = errors.New("no kernel sandbox on this operating system")

// Apply enforces nothing outside Linux. A spec that asks for nothing succeeds, so
// best-effort runs still work; anything else is refused.
func Apply(spec Spec) (Applied, error) {
	if err := Validate(spec); err != nil {
		return Applied{}, err
	}
	return Applied{}, nil
}

// Validate says whether Apply would accept spec: outside Linux, only a spec
// that asks for no kernel mechanism.
func Validate(spec Spec) error {
	if spec.LandlockABI != 0 || spec.Seccomp || spec.Scopes || spec.DropCaps || spec.MaxProcs != 0 {
		return ErrUnsupported
	}
	return nil
}

// RemoveProcLimit has nothing to remove outside Linux.
func RemoveProcLimit(dir string) error { return nil }

// NewNetNS has no namespace to make outside Linux.
func NewNetNS() (*os.File, error) { return nil, ErrUnsupported }

// ListenIn has no namespace to listen in outside Linux.
func ListenIn(ns *os.File, addr string) (net.Listener, error) { return nil, ErrUnsupported }
