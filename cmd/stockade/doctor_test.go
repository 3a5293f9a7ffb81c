package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/policy"
)

// TestDoctorHere runs doctor on this host with the built-in policy and checks
// that its exit status, verdict and report agree with Plan's.
func TestDoctorHere(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"doctor", "--json"}, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	var res doctorResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("doctor --json: %v\n%s%s", err, out.String(), errb.String())
	}
	if res.Exit != code {
		t.Errorf("exit status %d, json says %d", code, res.Exit)
	}
	_, rep, err := degrade.Plan(hostfacts.Detect(), policy.Default().Sandbox, "/w", "/t")
	want := map[bool]string{true: "enforced", false: "refused"}[err == nil]
	if res.Verdict != want || res.Report.Full != rep.Full {
		t.Errorf("verdict %q (full %v), Plan says %q (full %v, %v)", res.Verdict, res.Report.Full, want, rep.Full, err)
	}
	if len(res.Modes) != 3 {
		t.Errorf("%d modes, want 3", len(res.Modes))
	}
	if h := hostfacts.Detect(); h.LandlockABI >= hostfacts.ABITruncate && h.Seccomp && code != 0 {
		t.Errorf("landlock abi 3+ and seccomp: want exit 0, got %d:\n%s", code, errb.String())
	}
	// The human form agrees.
	out.Reset()
	errb.Reset()
	if code2 := run([]string{"doctor"}, stdio{in: strings.NewReader(""), out: &out, err: &errb}); code2 != code {
		t.Errorf("doctor: exit %d, doctor --json: exit %d", code2, code)
	}
	if (code == 2) != strings.HasPrefix(errb.String(), "stockade: error: ") {
		t.Errorf("exit %d with stderr %q: want an error exactly when strict refuses", code, errb.String())
	}
}
