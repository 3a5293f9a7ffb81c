package policy

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestDefaultGenerated: default_gen.go must be what decoding default.toml
// gives. Edit default.toml, then run `go generate ./policy`.
func TestDefaultGenerated(t *testing.T) {
	var want Policy
	if err := toml.NewDecoder(bytes.NewReader(DefaultTOML)).DisallowUnknownFields().Decode(&want); err != nil {
		t.Fatal(err)
	}
	got := defaultGo()
	if got == nil {
		t.Fatal("defaultGo returns nil: run go generate ./policy")
	}
	const hint = "default_gen.go is stale: run go generate ./policy"
	if got.Version != want.Version || got.Default != want.Default ||
		!reflect.DeepEqual(got.Sandbox, want.Sandbox) || !reflect.DeepEqual(got.Env, want.Env) {
		t.Errorf("%s\ngot  %d %q %+v %+v\nwant %d %q %+v %+v", hint,
			got.Version, got.Default, got.Sandbox, got.Env, want.Version, want.Default, want.Sandbox, want.Env)
	}
	if len(got.Rules) != len(want.Rules) {
		t.Errorf("%s: %d rules, default.toml has %d", hint, len(got.Rules), len(want.Rules))
	}
	for i := range min(len(got.Rules), len(want.Rules)) {
		if !reflect.DeepEqual(got.Rules[i], want.Rules[i]) {
			t.Errorf("%s: rule %d:\ngot  %+v\nwant %+v", hint, i, got.Rules[i], want.Rules[i])
		}
	}
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("%s", hint)
	}

	// Built from the literal or decoded from the text, the prepared policy is the same.
	fromGo, err := loadDefault()
	if err != nil {
		t.Fatal(err)
	}
	var decoded Policy
	if err := toml.NewDecoder(bytes.NewReader(DefaultTOML)).DisallowUnknownFields().Decode(&decoded); err != nil {
		t.Fatal(err)
	}
	fromTOML, err := prepareDefault(&decoded)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromGo, fromTOML) {
		t.Error("loadDefault and decoding default.toml give different policies")
	}
}
