package policy

import (
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
