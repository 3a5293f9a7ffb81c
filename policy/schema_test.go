package policy

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestKnownKeysAreTheDecodersKeys: the keys derived from the schema's types
// (knownKeys, which the "did you mean" hints and the README test use) are
// exactly the keys a policy file may set: each is accepted by the strict
// decoder, and a key that is not one is refused.
func TestKnownKeysAreTheDecodersKeys(t *testing.T) {
	tables := map[string]string{"": "", "sandbox": "[sandbox]\n", "network": "[network]\n", "env": "[env]\n",
		"rule": "[[rule]]\nname = \"probe\"\n", "rule.upstream": "[[rule]]\nname = \"probe\"\n[rule.upstream]\n"}
	for table, header := range tables {
		var path []string
		if table != "" {
			path = strings.Split(table, ".")
		}
		keys := knownKeys(path)
		if len(keys) == 0 {
			t.Errorf("no known keys in table %q", table)
		}
		for _, key := range append(keys, "no_such_key") {
			if table == "" && key == "version" {
				continue
			}
			// A value of no key's type: the decoder names the key it
			// knows with a type error, the one it does not with "unknown key".
			src := "version = 1\n" + header + key + " = 1970-01-01T00:00:00Z\n"
			_, err := Parse([]byte(src), "probe.toml")
			if err == nil {
				t.Errorf("%s.%s = <a date>: no error", table, key)
				continue
			}
			unknown := strings.Contains(err.Error(), "unknown key")
			if unknown != (key == "no_such_key") {
				t.Errorf("%s.%s: %v", table, key, err)
			}
		}
	}
}

// TestSandboxChoices: the loader accepts exactly the words of each choice,
// the planner's defaults are the choice's defaults, and the built-in policy
// (default.toml, which spells its [sandbox] out for readers) agrees with them.
func TestSandboxChoices(t *testing.T) {
	builtin := Default().Sandbox
	for _, c := range SandboxChoices {
		for _, v := range c.Values {
			if _, err := Parse([]byte("version = 1\n[sandbox]\n"+c.Key+" = \""+v+"\"\n"), "ok.toml"); err != nil {
				t.Errorf("%s = %q: %v", c.Key, v, err)
			}
		}
		for _, v := range []string{"sideways", strings.ToUpper(c.Values[0]), c.Values[0] + " "} {
			_, err := Parse([]byte("version = 1\n[sandbox]\n"+c.Key+" = \""+v+"\"\n"), "bad.toml")
			if err == nil || !strings.Contains(err.Error(), "want "+strings.Join(c.Values, " or ")) {
				t.Errorf("%s = %q: %v, want an error listing %v", c.Key, v, err, c.Values)
			}
			var s Sandbox
			*c.field(&s) = v
			if s.Check() == nil {
				t.Errorf("Sandbox{%s: %q}.Check() = nil", c.Key, v)
			}
		}
		if d := (Sandbox{}).WithDefaults(); *c.field(&d) != c.Default {
			got := *c.field(&d)
			t.Errorf("Sandbox{}.WithDefaults().%s = %q, want %q", c.Key, got, c.Default)
		}
		if got := *c.field(&builtin); got != c.Default {
			t.Errorf("default.toml: [sandbox] %s = %q, but its default is %q", c.Key, got, c.Default)
		}
	}
	if err := (Sandbox{MaxProcesses: -1}).Check(); err == nil {
		t.Error("max_processes = -1 passes Check")
	}
	if builtin.MaxProcesses != 0 {
		t.Errorf("default.toml: max_processes = %d, want 0 (DefaultMaxProcesses where the host can)", builtin.MaxProcesses)
	}
}

// TestReadmeListsSandboxChoices: the README's Keys section shows each choice
// with its default as the value and its words, in order, in the comment.
func TestReadmeListsSandboxChoices(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "### Keys")
	if start < 0 {
		t.Fatal(`README.md has no "### Keys" section`)
	}
	section := readme[start:]
	for _, c := range SandboxChoices {
		want := "    " + c.Key + " = \"" + c.Default + "\""
		i := strings.Index(section, "\n"+want)
		if i < 0 {
			t.Errorf("README.md's Keys section has no line %q", want)
			continue
		}
		line := section[i+1:]
		line = line[:strings.IndexByte(line, '\n')]
		_, comment, _ := strings.Cut(line, "# ")
		words, _, _ := strings.Cut(comment, " (")
		if words != strings.Join(c.Values, " | ") {
			t.Errorf("README.md: %q lists %q, want %q", line, words, strings.Join(c.Values, " | "))
		}
	}
}

// TestMatchKeysAreTheSchema: every key of the schema's Matcher has its entry
// in matchKeys, which reads that field and no other, and matchKeys has no
// entry for a key the schema lacks.
func TestMatchKeysAreTheSchema(t *testing.T) {
	fields := tomlFields(reflect.TypeFor[Matcher]())
	if len(fields) != len(matchKeys) {
		t.Errorf("Matcher has %d keys, matchKeys %d", len(fields), len(matchKeys))
	}
	for _, f := range fields {
		key := tomlName(f)
		var m Matcher
		fv := reflect.ValueOf(&m).Elem().FieldByIndex(f.Index)
		switch fv.Interface().(type) {
		case []string:
			fv.Set(reflect.ValueOf([]string{"x"}))
		case *bool:
			fv.Set(reflect.ValueOf(new(true)))
		case *Matcher:
			fv.Set(reflect.ValueOf(&Matcher{Command: []string{"x"}}))
		default:
			t.Errorf("matcher key %s: a %s, which this test does not know how to set", key, f.Type)
			continue
		}
		v := &validator{file: "probe.toml"}
		m.compile(reporter{v: v, rule: "probe"}, false)
		problems := v.errs
		var got []string
		for _, kt := range m.c.p.Load().tests {
			got = append(got, kt.of.key)
		}
		if len(got) != 1 || got[0] != key || len(problems) > 0 {
			t.Errorf("a matcher that sets only %s (field %s) compiles to tests of %q, problems %v", key, f.Name, got, problems)
		}
	}
}
