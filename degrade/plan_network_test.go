package degrade

import (
	"errors"
	"strings"
	"testing"

	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/sandbox"
)

// TestPlanNetwork: with CAP_SYS_ADMIN, network off and allowlist give the
// session a namespace of its own; without it, no namespace, loopback is
// refused, allowlist goes through the connect supervisor where the host has
// it; where it has not, through Landlock's port rule where the ABI has TCP
// rules (partial), else reaching nothing (strict refuses to run either
// way; best-effort runs), and the report says why. Network on never asks
// for one.
func TestPlanNetwork(t *testing.T) {
	cases := []struct {
		host, network string
		netns         bool
		supervised    bool
		proxyPort     bool
		by, note      string
	}{
		{"abi7", "off", true, false, false, "network namespace", "the session has a loopback of its own; nothing else is reachable"},
		{"abi7", "allowlist", true, false, false, "network namespace", "other hosts only by name, through stockade's proxy"},
		{"abi7", "on", false, false, false, "", `network = "on"`},
		{"abi7-container-root", "off", false, false, false, "seccomp + landlock abi 7", "no loopback of its own (root without CAP_SYS_ADMIN), so loopback is refused too"},
		{"abi7-container-root", "allowlist", false, false, true, "landlock abi 7 port rule + seccomp", "TCP connects only to the port of stockade's proxy on the host's loopback, but on any address"},
		{"abi4", "off", false, false, false, "seccomp + landlock abi 4", "no loopback of its own (not root: a namespace needs CAP_SYS_ADMIN or a user namespace)"},
		{"abi4", "allowlist", false, true, false, "seccomp connect supervisor + landlock abi 4", "other hosts only by name, through stockade's proxy on the host's loopback"},
		{"abi7-user", "allowlist", false, true, false, "seccomp connect supervisor + landlock abi 7", "every other destination, loopback included, is refused"},
		{"abi3", "allowlist", false, false, false, "seccomp", "no connect supervisor: kernel.yama.ptrace_scope = 2"},
		{"no-landlock", "allowlist", false, false, false, "seccomp", "no connect supervisor"},
	}
	for _, c := range cases {
		unservable := c.network == "allowlist" && !c.netns && !c.supervised
		want := policy.Sandbox{Network: c.network, Filesystem: "off", DenyRead: []string{}}
		_, _, err := Plan(hosts[c.host], want, "/work", "/tmp/x")
		var refusal *Refusal
		if unservable != errors.As(err, &refusal) {
			t.Errorf("%s %s: strict: %v", c.host, c.network, err)
		}
		if unservable && (refusal == nil || !strings.Contains(refusal.Why, "needs a network namespace or the connect supervisor")) {
			t.Errorf("%s %s: the refusal does not say why: %v", c.host, c.network, err)
		}
		if fallback := map[bool]string{false: "best-effort\" to run with nothing reachable", true: "best-effort\" to run with TCP to the proxy's port only"}[c.proxyPort]; unservable && !strings.Contains(err.Error(), fallback) {
			t.Errorf("%s %s: the refusal does not say what best-effort would run with (%q): %v", c.host, c.network, fallback, err)
		}
		want.Enforce = policy.EnforceBestEffort
		spec, rep, err := Plan(hosts[c.host], want, "/work", "/tmp/x")
		if err != nil {
			t.Fatalf("%s %s: %v", c.host, c.network, err)
		}
		if spec.NetNS != c.netns || spec.NetworkOff != (c.network != "on") || spec.Supervised != c.supervised || spec.ProxyPortOnly != c.proxyPort {
			t.Errorf("%s %s: spec netns %v network off %v supervised %v proxy port only %v", c.host, c.network, spec.NetNS, spec.NetworkOff, spec.Supervised, spec.ProxyPortOnly)
		}
		if err := sandbox.Validate(spec); err != nil {
			t.Errorf("%s %s: the spec is not valid: %v", c.host, c.network, err)
		}
		if spec.Supervised && !spec.Seccomp {
			t.Errorf("%s %s: supervised without seccomp", c.host, c.network)
		}
		p, _ := rep.Get(NetworkTCP)
		if p.By != c.by || !strings.Contains(p.Note, c.note) {
			t.Errorf("%s %s: network-tcp by %q note %q, want by %q and a note with %q", c.host, c.network, p.By, p.Note, c.by, c.note)
		}
		if wantStatus := map[bool]Status{false: Enforced, true: Partial}[unservable]; c.network != "on" && p.Status != wantStatus {
			t.Errorf("%s %s: network-tcp %s, want %s", c.host, c.network, p.Status, wantStatus)
		}
	}
}
