package policy

import (
	"bytes"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// BenchmarkDefault is the cost of loading the built-in policy, which every
// `stockade run` and `stockade check` pays once at start-up: what Default
// does, on a copy of defaultRules made once (Default uses them in place).
func BenchmarkDefault(b *testing.B) {
	b.ReportAllocs()
	rules := freshDefaultRules()
	for b.Loop() {
		defaultOn(rules)
	}
}

// BenchmarkDefaultFirstCheck is what `stockade run` pays for the policy:
// loading the built-in policy (as BenchmarkDefault) and judging one
// command with it, which compiles the rules that command meets.
func BenchmarkDefaultFirstCheck(b *testing.B) {
	b.ReportAllocs()
	rules := freshDefaultRules()
	for b.Loop() {
		if d := defaultOn(rules).Check("git status --short"); d.Verdict != Allow {
			b.Fatal(d)
		}
	}
}

// BenchmarkDefaultTOML is what BenchmarkDefault would cost without
// default_gen.go: decoding default.toml, then the same checks and compiling.
// The difference is what the generated file saves every start-up.
func BenchmarkDefaultTOML(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var p Policy
		if err := toml.NewDecoder(bytes.NewReader(DefaultTOML)).DisallowUnknownFields().Decode(&p); err != nil {
			b.Fatal(err)
		}
		prepareDefault(&p)
	}
}
