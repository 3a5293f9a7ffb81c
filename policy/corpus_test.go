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

// knownMisses are dangerous scripts the default policy allows, because the
// danger is in how separate, individually ordinary commands combine (download
// a file, then run it), in a loop's effect, or in data a command reads at run
// time. The kernel sandbox is what stops them. A script that slips through and
// is not listed here fails the test; so does a listed one that is now caught,
// so that the list stays honest.
var knownMisses = map[string]string{
	"destroy-workdir/cd-up-rm-project":    "cd .. changes what a later relative path means",
	"destroy-workdir/rm-sources":          "removing named source directories is ordinary work one by one",
	"destroy-workdir/truncate-sources":    "truncate on workspace files is ordinary",
	"destroy-workdir/blank-tracked-files": "a loop redirecting to each file",
	"disk-device/for-all-disks":           "the device path arrives through a loop variable",
	"fork-bomb/while-true-bg":             "an endless loop of background jobs",
	"fork-bomb/for-ever-spinners":         "an endless loop of background jobs",
	"download-exec/curl-chmod-run":        "download, then run: two ordinary steps",
	"download-exec/wget-tmp-run-bg":       "download, then run: two ordinary steps",
	"download-exec/curl-tar-run":          "download, then run: two ordinary steps",
	"download-exec/curl-save-bash":        "download, then run: two ordinary steps",
	"download-exec/clone-run":             "clone, then run: two ordinary steps",
	"reverse-shell/mknod-nc":              "a fifo loop between sh and nc",
	"side-channel/ed-bang":                "the ! command is in ed's standard input",
	"side-channel/xargs-sh-c":             "the command is in xargs' standard input",
	"side-channel/dd-write-bashrc":        "of=\"$HOME/.bashrc\" is an operand with a dynamic value",
	"side-channel/jq-env-dump":            "jq's env builtin prints the environment",
	"secret-exfil/dns-nslookup-loop":      "the secret reaches nslookup through a loop variable",
	"obfuscation/script-qc":               "parse does not see through script -qc (combined flags)",
}

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
