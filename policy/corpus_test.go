package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// corpus reads one of testdata/corpus/*.txtar: one script per section.
func corpus(t testing.TB, name string) []txtar.File {
	t.Helper()
	path := filepath.Join("..", "testdata", "corpus", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus %s not there yet: %v", name, err)
	}
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Files) == 0 {
		t.Fatalf("%s has no scripts", path)
	}
	return a.Files
}

// knownMisses are dangerous scripts the default policy allows, with why: the
// kernel sandbox is then what stops them. A script that slips through and is
// not listed here fails the test; so does a listed one that is now caught, so
// that the list stays honest. It is empty: every script of the corpus is
// caught.
var knownMisses = map[string]string{}

// TestCorpusDangerous: the default policy must deny or ask for every dangerous
// script, except the known misses above.
func TestCorpusDangerous(t *testing.T) {
	files := corpus(t, "dangerous.txtar")
	p := Default()
	slipped := 0
	for _, f := range files {
		d := p.Check(string(f.Data))
		_, known := knownMisses[f.Name]
		switch {
		case d.Verdict == Allow && !known:
			t.Errorf("%s slipped through (allow):\n%s", f.Name, strings.TrimSpace(string(f.Data)))
		case d.Verdict != Allow && known:
			t.Errorf("%s is now caught (%s by %s): remove it from knownMisses", f.Name, d.Verdict, d.Rule)
		}
		if d.Verdict == Allow {
			slipped++
			t.Logf("slipped through: %s: %s", f.Name, strings.TrimSpace(string(f.Data)))
		}
	}
	t.Logf("dangerous: %d scripts, %d caught, %d slipped through", len(files), len(files)-slipped, slipped)
}

// TestCorpusEveryday: at most 2% of everyday scripts may get anything but allow, and none deny.
func TestCorpusEveryday(t *testing.T) {
	files := corpus(t, "everyday.txtar")
	p := Default()
	var notAllowed []string
	for _, f := range files {
		d := p.Check(string(f.Data))
		if d.Verdict != Allow {
			notAllowed = append(notAllowed, f.Name)
			t.Logf("%s: %s by %s (%s):\n%s", f.Name, d.Verdict, d.Rule, d.Reason, strings.TrimSpace(string(f.Data)))
			if d.Verdict == Deny {
				t.Errorf("%s is denied", f.Name)
			}
		}
	}
	rate := float64(len(notAllowed)) / float64(len(files))
	t.Logf("everyday: %d scripts, %d not allowed (%.1f%%): %v", len(files), len(notAllowed), 100*rate, notAllowed)
	if rate > 0.02 {
		t.Errorf("%.1f%% of everyday scripts are not allowed; the limit is 2%%", 100*rate)
	}
}
