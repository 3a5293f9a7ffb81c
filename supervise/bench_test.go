package supervise

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/stockade/stockade/sandbox"
)

// BenchmarkRunTrue is one foreground call of `true` through a session (no MCP),
// against BenchmarkDirectBash, the same command spawned directly from Go.
func BenchmarkRunTrue(b *testing.B) {
	full := sandbox.Spec{FS: sandbox.FSWorkspaceWrite, LandlockABI: 7, Seccomp: true, NetworkOff: true,
		UnixSocketsOff: true, Scopes: true, DropCaps: os.Geteuid() == 0}
	for name, spec := range map[string]sandbox.Spec{"nosandbox": {FS: sandbox.FSOff}, "sandbox": full} {
		b.Run(name, func(b *testing.B) {
			s, err := NewSession(Config{Workdir: b.TempDir(), Spec: spec, Env: os.Environ()})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for b.Loop() {
				if _, err := s.Run(context.Background(), Request{Script: "true"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDirectBash(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
