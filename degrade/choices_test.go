package degrade

import (
	"strings"
	"testing"

	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/sandbox"
)

// TestPlanTakesThePolicysChoices: Plan accepts every word of the policy's
// [sandbox] choices, refuses one the loader refuses, fills in the policy's
// defaults, and hands each filesystem word to the sandbox as the FSMode of
// the same name.
func TestPlanTakesThePolicysChoices(t *testing.T) {
	h := hostfacts.Detect()
	for _, c := range policy.SandboxChoices {
		for _, v := range c.Values {
			want := policy.Sandbox{Enforce: policy.EnforceBestEffort} // plans on any host
			switch c.Key {
			case "filesystem":
				want.Filesystem = v
			case "network":
				want.Network = v
			case "unix_sockets":
				want.UnixSockets = v
			case "enforce":
				want.Enforce = v
			}
			spec, rep, err := Plan(h, want, t.TempDir(), t.TempDir())
			if _, refused := err.(*Refusal); err != nil && !refused {
				t.Errorf("%s = %q: %v", c.Key, v, err)
			}
			if c.Key == "filesystem" && spec.LandlockABI > 0 && string(spec.FS) != v {
				t.Errorf("filesystem = %q plans FS %q", v, spec.FS)
			}
			if c.Key == "enforce" && rep.Enforce != v {
				t.Errorf("enforce = %q reports %q", v, rep.Enforce)
			}
		}
	}
	for _, fs := range []sandbox.FSMode{sandbox.FSReadOnly, sandbox.FSWorkspaceWrite, sandbox.FSOff} {
		if !policy.SandboxChoice("filesystem").Allows(string(fs)) {
			t.Errorf("sandbox.FSMode %q is no filesystem word of the policy", fs)
		}
	}
	_, _, err := Plan(h, policy.Sandbox{Network: "sideways"}, t.TempDir(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `network is "sideways": want off or allowlist or on`) {
		t.Errorf(`network = "sideways": %v`, err)
	}
	_, rep, _ := Plan(h, policy.Sandbox{}, t.TempDir(), t.TempDir())
	if rep.Enforce != policy.SandboxChoice("enforce").Default {
		t.Errorf("an empty [sandbox] plans enforce = %q, want the default %q", rep.Enforce, policy.SandboxChoice("enforce").Default)
	}
}
