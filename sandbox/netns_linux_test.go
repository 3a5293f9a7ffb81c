//go:build linux

package sandbox

import (
	"net"
	"testing"
)

// TestNetNS: a listener made inside a new namespace is not reachable from the
// host's loopback at the same address, and the host's listener is not what
// answers inside.
func TestNetNS(t *testing.T) {
	requireRoot(t)
	ns, err := NewNetNS()
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	inside, err := ListenIn(ns, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer inside.Close()
	addr := inside.Addr().String()
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("the host reached %s, a listener inside the namespace", addr)
	}
	// The same port on the host's loopback is another socket altogether.
	host, err := net.Listen("tcp4", addr)
	if err != nil {
		t.Fatalf("the namespace's port is taken on the host too: %v", err)
	}
	host.Close()
}

func BenchmarkNewNetNS(b *testing.B) {
	requireRoot(b)
	for b.Loop() {
		ns, err := NewNetNS()
		if err != nil {
			b.Fatal(err)
		}
		ns.Close()
	}
}
