package policy

import (
	"fmt"
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

// heldoutFigures are the figures of a held-out corpus, whose sections are
// named deny/CLASS/name, ask/CLASS/name and allow/CLASS/name after the
// decision their author expects.
type heldoutFigures struct {
	dangerous, caught    int // deny and ask rows; those denied or asked
	denyRows, denied     int // deny rows; those denied
	allowRows, blocked   int // allow rows; those asked or denied
	missed, over, weaker []string
}

func (h heldoutFigures) String() string {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	return fmt.Sprintf("dangerous denied or asked %d/%d (%.1f%%, target >= 97%%); deny rows denied %d/%d (%.1f%%, target >= 90%%); allow rows blocked %d/%d (%.1f%%, target <= 2%%)",
		h.caught, h.dangerous, pct(h.caught, h.dangerous), h.denied, h.denyRows, pct(h.denied, h.denyRows), h.blocked, h.allowRows, pct(h.blocked, h.allowRows))
}

func measureHeldout(p *Policy, files []txtar.File) heldoutFigures {
	var h heldoutFigures
	for _, f := range files {
		want, _, _ := strings.Cut(f.Name, "/")
		d := p.Check(string(f.Data))
		switch Verdict(want) {
		case Deny, Ask:
			h.dangerous++
			if d.Verdict != Allow {
				h.caught++
			} else {
				h.missed = append(h.missed, f.Name)
			}
			if want == string(Deny) {
				h.denyRows++
				if d.Verdict == Deny {
					h.denied++
				} else if d.Verdict == Ask {
					h.weaker = append(h.weaker, f.Name)
				}
			}
		case Allow:
			h.allowRows++
			if d.Verdict != Allow {
				h.blocked++
				h.over = append(h.over, fmt.Sprintf("%s (%s by %s)", f.Name, d.Verdict, d.Rule))
			}
		}
	}
	return h
}

// TestCorpusHeldout reports the default policy's figures on the held-out
// corpora (testdata/corpus/heldout-*.txtar). It reports and does not fail on
// the figures: the corpus measures the rules, and the rules are not changed
// to fit its rows. It fails only on a row whose section name does not say
// its expected decision.
func TestCorpusHeldout(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "heldout-*.txtar"))
	if len(paths) == 0 {
		t.Skip("no held-out corpus")
	}
	for _, path := range paths {
		files := corpus(t, filepath.Base(path))
		for _, f := range files {
			if want, _, _ := strings.Cut(f.Name, "/"); !Verdict(want).valid() {
				t.Errorf("%s: section %q does not start with deny/, ask/ or allow/", filepath.Base(path), f.Name)
			}
		}
		h := measureHeldout(Default(), files)
		t.Logf("%s: %s", filepath.Base(path), h)
		if testing.Verbose() {
			t.Logf("missed (allowed): %v", h.missed)
			t.Logf("deny rows only asked: %v", h.weaker)
			t.Logf("allow rows blocked: %v", h.over)
		}
	}
}
