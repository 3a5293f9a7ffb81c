package hostfacts

import (
	"strings"
	"testing"
)

// TestABIsIndexed: ABIs[v] is ABI v, for every version up to MaxLandlockABI,
// and every version stockade can restrict with says what it gives and what is
// left without it.
func TestABIsIndexed(t *testing.T) {
	if len(ABIs) != MaxLandlockABI+1 {
		t.Fatalf("%d rows, want %d (0 to MaxLandlockABI)", len(ABIs), MaxLandlockABI+1)
	}
	for v, a := range ABIs {
		if a.Version != v {
			t.Errorf("ABIs[%d].Version = %d", v, a.Version)
		}
		if v > 0 && (a.Gives == "" || a.Without == "" || a.Config.HandledAccessFS == 0) {
			t.Errorf("ABIs[%d] = %+v: want what it gives, what is left without it, and a ruleset", v, a)
		}
	}
	// Each level adds to the one before.
	for v := 2; v < len(ABIs); v++ {
		prev, cur := ABIs[v-1].Config, ABIs[v].Config
		if cur.HandledAccessFS&prev.HandledAccessFS != prev.HandledAccessFS || cur.HandledAccessNet&prev.HandledAccessNet != prev.HandledAccessNet || cur.Scoped&prev.Scoped != prev.Scoped {
			t.Errorf("ABI %d handles less than ABI %d", v, v-1)
		}
	}
	for _, tt := range []struct {
		level int
		has   func(ABI) bool
	}{
		{ABITCP, func(a ABI) bool { return a.Config.HandledAccessNet != 0 }},
		{ABIScopes, func(a ABI) bool { return a.Config.Scoped != 0 }},
	} {
		if tt.has(ABIs[tt.level-1]) || !tt.has(ABIs[tt.level]) {
			t.Errorf("the feature of level %d does not start at ABI %d", tt.level, tt.level)
		}
	}
}

func TestEffectiveABI(t *testing.T) {
	all := uint64(ErratumTCPSocket | ErratumSignalScope | ErratumDisconnectDir)
	tests := []struct {
		kernel int
		errata uint64
		want   int
		note   string
	}{
		{0, 0, 0, ""},
		{-1, 0, 0, ""},
		{3, 0, 3, ""},
		{5, 0, 5, ""},
		{6, 0, 5, "without the fix for erratum 2"},
		{6, ErratumSignalScope, 6, ""},
		{7, all, 7, ""},
		{7, all &^ ErratumSignalScope, 5, "restricted at abi 5"},
		{MaxLandlockABI + 1, all, MaxLandlockABI, "the newest it knows"},
	}
	for _, tt := range tests {
		got, note := EffectiveABI(tt.kernel, tt.errata)
		if got != tt.want || !strings.Contains(note, tt.note) || (tt.note == "") != (note == "") {
			t.Errorf("EffectiveABI(%d, %#x) = %d, %q; want %d, %q", tt.kernel, tt.errata, got, note, tt.want, tt.note)
		}
	}
	if abi, _ := (Host{OS: "darwin", LandlockABI: 7, LandlockErrata: all}).EffectiveABI(); abi != 0 {
		t.Errorf("darwin host: abi %d, want 0", abi)
	}
}

func TestMechanismNamed(t *testing.T) {
	for _, n := range []string{MechSeccomp, MechIPCNamespace, MechPidsCgroup, MechProcessGroup} {
		if m := MechanismNamed(n); m.Gives == "" || m.Without == "" {
			t.Errorf("%s: %+v", n, m)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MechanismNamed of an unknown name did not panic")
		}
	}()
	MechanismNamed("no such mechanism")
}
