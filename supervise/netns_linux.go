//go:build linux

package supervise

import (
	"fmt"
	"net"
	"os"

	"github.com/stockade/stockade/sandbox"
)

// sessionNet is the network namespace a zygote and its commands share, and
// the egress proxy's listener inside it.
type sessionNet struct {
	ns *os.File
	ln net.Listener
}

// openSessionNet makes the namespace when the spec asks for one, and, when
// egress is set, a listener at ProxyAddr inside it that egress serves (from
// outside the sandbox) until the listener is closed.
func openSessionNet(spec sandbox.Spec, egress func(net.Listener)) (*sessionNet, error) {
	if !spec.NetNS || spec.UserNS {
		return nil, nil // in a user namespace, the zygote makes its own
	}
	ns, err := sandbox.NewNetNS()
	if err != nil {
		return nil, &SandboxError{Stage: "sandbox", Msg: "network namespace: " + err.Error()}
	}
	n := &sessionNet{ns: ns}
	if egress != nil {
		if n.ln, err = sandbox.ListenIn(ns, ProxyAddr); err != nil {
			ns.Close()
			return nil, &SandboxError{Stage: "sandbox", Msg: fmt.Sprintf("egress proxy listener: %v", err)}
		}
		go egress(n.ln)
	}
	return n, nil
}

func (n *sessionNet) close() {
	if n == nil {
		return
	}
	if n.ln != nil {
		n.ln.Close()
	}
	if n.ns != nil {
		n.ns.Close()
	}
}
