package main

import (
	"flag"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/policy"
)

// TestSandboxFlagsListWhatTheLoaderAccepts: for --fs, --network and
// --enforce, the words the help lists, the words a policy file may give the
// key (as the loader's error for a wrong one lists them) and the words the
// flag accepts (as its own error lists them) are the same, in the same order.
func TestSandboxFlagsListWhatTheLoaderAccepts(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	new(sandboxFlags).register(fs)
	for _, c := range []struct{ flag, key string }{{"fs", "filesystem"}, {"network", "network"}, {"enforce", "enforce"}} {
		usage := fs.Lookup(c.flag).Usage
		m := regexp.MustCompile("`[A-Z]+`: ([^(]+)").FindStringSubmatch(usage)
		if m == nil {
			t.Errorf("--%s: help %q lists no words", c.flag, usage)
			continue
		}
		help := splitWords(m[1], ", ", " or ")

		_, err := policy.Parse([]byte("version = 1\n[sandbox]\n"+c.key+" = \"sideways\"\n"), "p.toml")
		lm := regexp.MustCompile(`want (.+)$`).FindStringSubmatch(errString(err))
		if lm == nil {
			t.Fatalf("%s = \"sideways\": %v, want an error that lists the words", c.key, err)
		}
		loader := splitWords(lm[1], " or ")

		o := pipeline.Overrides{Workdir: t.TempDir()}
		*map[string]*string{"fs": &o.Filesystem, "network": &o.Network, "enforce": &o.Enforce}[c.flag] = "sideways"
		_, err = pipeline.Prepare(o, t.TempDir())
		fm := regexp.MustCompile(`must be one of (.+)$`).FindStringSubmatch(errString(err))
		if fm == nil {
			t.Fatalf("--%s sideways: %v, want an error that lists the words", c.flag, err)
		}
		accepted := splitWords(fm[1], ", ")

		if !slices.Equal(help, loader) || !slices.Equal(help, accepted) {
			t.Errorf("--%s help lists %q, the flag accepts %q; a policy file may set %s to %q", c.flag, help, accepted, c.key, loader)
		}
		for _, w := range help {
			if _, err := policy.Parse([]byte("version = 1\n[sandbox]\n"+c.key+" = \""+w+"\"\n"), "p.toml"); err != nil {
				t.Errorf("--%s help lists %q, which the loader refuses: %v", c.flag, w, err)
			}
		}
	}
}

// splitWords splits a list such as "a, b or c" at any of seps.
func splitWords(s string, seps ...string) []string {
	s = strings.TrimSpace(s)
	for _, sep := range seps[1:] {
		s = strings.ReplaceAll(s, sep, seps[0])
	}
	return strings.Split(s, seps[0])
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
