package exec

import (
	"context"
	osexec "os/exec"
	"testing"

	"github.com/stockade/stockade/sandbox"
)

// BenchmarkRunTrue is one foreground call of `true` through a session (no MCP),
// against BenchmarkDirectBash, the same command spawned directly from Go.
func BenchmarkRunTrue(b *testing.B) {
	for _, mode := range []sandbox.FSMode{sandbox.FSOff} {
		b.Run(string(mode), func(b *testing.B) {
			s, err := NewSession(Config{Workdir: b.TempDir(), Spec: sandbox.Spec{FS: mode}, Env: []string{"PATH=/usr/bin:/bin"}})
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
		if err := osexec.Command("/bin/bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
