package policy

import (
	"bytes"
	"reflect"
	"sync"
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
	fromGo := loadDefault()
	var decoded Policy
	if err := toml.NewDecoder(bytes.NewReader(DefaultTOML)).DisallowUnknownFields().Decode(&decoded); err != nil {
		t.Fatal(err)
	}
	fromTOML := prepareDefault(&decoded)
	if !reflect.DeepEqual(fromGo, fromTOML) {
		t.Error("loadDefault and decoding default.toml give different policies")
	}
}

// TestDefaultCompiledOnFirstUse: the built-in policy's rules are compiled
// when first tried, by whichever goroutine gets there first; judged from
// many goroutines at once (the server judges calls in parallel), a fresh
// copy decides every corpus script as one already compiled does. Under
// -race this is also the test that compiling on first use is safe, and
// that the contexts checks reuse (ctxPool, parse's analyzers) carry
// nothing from one check to another: every decision, the commands it
// lists included, is the same as when made alone, and stays so while
// later checks run.
func TestDefaultCompiledOnFirstUse(t *testing.T) {
	var scripts []string
	for _, name := range []string{"dangerous.txtar", "everyday.txtar"} {
		for _, f := range corpus(t, name) {
			scripts = append(scripts, string(f.Data))
		}
	}
	warm := Default()
	want := make([]Decision, len(scripts))
	for i, s := range scripts {
		want[i] = warm.Check(s)
	}
	fresh := loadDefault()
	const workers = 4
	got := make([][]Decision, workers)
	var wg sync.WaitGroup
	for w := range workers {
		got[w] = make([]Decision, len(scripts))
		wg.Go(func() {
			for k := range scripts {
				i := (k + w*len(scripts)/workers) % len(scripts) // each starts elsewhere
				got[w][i] = fresh.Check(scripts[i])
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for i := range scripts {
			if g, x := got[w][i], want[i]; g.Verdict != x.Verdict || g.Rule != x.Rule || g.Reason != x.Reason {
				t.Errorf("%q: a fresh copy judged from goroutine %d gives %s by %s, the warm one %s by %s", scripts[i], w, g.Verdict, g.Rule, x.Verdict, x.Rule)
			} else if !reflect.DeepEqual(g.Invocations, x.Invocations) {
				t.Errorf("%q: judged from goroutine %d, the decision lists other commands than judged alone", scripts[i], w)
			}
		}
	}
}
