package policy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stockade/stockade/parse"
)

// loopPatternTests: a for loop over one file-name pattern assigns its
// variable each file the pattern matches; the analysis resolves "$v" to
// the pattern, which stands for them. TestLoopPatternAgainstBash checks,
// in a directory of real files, that every value real bash gives the
// variable is matched by the pattern the analysis resolves it to, and
// that unquoted $v (which bash would split and glob again) stays
// unresolved.
var loopPatternTests = []struct {
	list, use string
	resolved  bool
}{
	{`D/*`, `"$f"`, true},
	{`D/id_*`, `"$f"`, true},
	{`D/.[!.]*`, `"$f"`, true},
	{`D/?.txt`, `"${f}"`, true},
	{`"$HOME"/.ssh/id_*`, `"$f"`, true},
	{`$HOME/.ssh/*`, `"$f"`, true},
	{`~/.ssh/id_*`, `"$f"`, true},
	{`D/*`, `$f`, false},
	// Round 17: over several words, the variable is each in turn: the
	// patterns stand for their files together.
	{`D/* D/id_*`, `"$f"`, true},
	{`D/x.txt D/?`, `"$f"`, true},
	{`D/* D/id_*`, `$f`, false},
	{`$(ls D)`, `"$f"`, false},
}

func TestLoopPatternAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	home := t.TempDir()
	dir := filepath.Join(home, "d")
	for _, p := range []string{"d/a", "d/id_rsa", "d/id_ed25519", "d/.hidden", "d/x.txt", "d/sp ace", ".ssh/id_rsa", ".ssh/id_rsa.pub", ".ssh/config"} {
		full := filepath.Join(home, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range loopPatternTests {
		list := strings.ReplaceAll(tc.list, "D/", dir+"/")
		script := "for f in " + list + "; do printf '%s\\0' " + tc.use + "; done"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
		cmd.Env = []string{"HOME=" + home, "LC_ALL=C.UTF-8"}
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("bash on %q: %v", script, err)
			continue
		}
		want := strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00")
		s, err := parse.Parse(script)
		if err != nil {
			t.Fatalf("%q: %v", script, err)
		}
		var got []string
		for _, inv := range expandScript(s) {
			if inv.Name == "printf" && inv.DynamicArgs == nil {
				got = inv.Args[1:]
			}
		}
		if !tc.resolved {
			if got != nil {
				t.Errorf("%q resolved to %q; want it left unresolved", script, got)
			}
			continue
		}
		if len(got) != len(strings.Fields(tc.list)) {
			t.Errorf("%q: resolved to %q, want one pattern for each word", script, got)
			continue
		}
		pats := make([]string, len(got))
		for k, pat := range got {
			if strings.HasPrefix(pat, "~") { // the analysis writes $HOME as ~
				pat = home + pat[1:]
			}
			pats[k] = pat
		}
		if len(want) == 0 || want[0] == "" {
			t.Errorf("%q: bash gave no value", script)
		}
		for _, w := range want {
			if !slices.ContainsFunc(pats, func(pat string) bool { return globMatch(pat, w) }) {
				t.Errorf("%q: bash gives %q, which none of the analysis's %q matches", script, w, pats)
			}
		}
	}
}

// targetTests: redirection targets made of values the script set. Real
// bash runs setup and then `: > TARGET` in an empty home directory; the
// file it creates must be the one the analysis resolves the target to.
var targetTests = []struct{ setup, target string }{
	{`d=$HOME`, `"$d/.bashrc"`},
	{`d=$HOME/.config; f=x.conf`, `"$d/$f"`},
	{`D=sub`, `$D/out.txt`},
	{``, `"${ZDOTDIR:-$HOME}/.zshenv"`},
	{`T=$HOME`, `"${T:?}"/.profile`},
	{`a=.; b=rc`, `"$HOME/$a"bash$b`},
	{`declare -n r=HOME`, `"$r/.inputrc"`},
}

func TestRedirectTargetAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	for _, tc := range targetTests {
		home := t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(home, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		script := tc.setup + "\n: > " + tc.target
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "LC_ALL=C.UTF-8"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("bash on %q: %v: %s", script, err, out)
			continue
		}
		var made []string
		filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				made = append(made, p)
			}
			return nil
		})
		if len(made) != 1 {
			t.Fatalf("%q: bash made %q, want one file", script, made)
		}
		s, err := parse.Parse(script)
		if err != nil {
			t.Fatalf("%q: %v", script, err)
		}
		got := ""
		for _, inv := range expandScript(s) {
			for _, r := range inv.Redirects {
				if r.Op == ">" && !r.Dynamic {
					got = r.Target
				}
			}
		}
		if got == "" {
			t.Errorf("%q: target did not resolve", script)
			continue
		}
		if strings.HasPrefix(got, "~") { // the analysis writes $HOME as ~
			got = home + got[1:]
		} else if !strings.HasPrefix(got, "/") {
			got = filepath.Join(home, got)
		}
		if filepath.Clean(got) != made[0] {
			t.Errorf("%q: analysis %q, bash made %q", script, got, made[0])
		}
	}
}

// TestPatternUnderAgainstBash checks patternUnder against real bash: in a
// home with stores on deny_read and other directories, every pattern bash
// expands to a file in a store is said to reach one (patternUnder says
// "can name", so it may also say so of a pattern whose file is missing),
// and the patterns aimed elsewhere are not.
func TestPatternUnderAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	home := t.TempDir()
	for _, p := range []string{".ssh/id_rsa", ".ssh/hosts.yml", ".aws/credentials", ".config/gh/hosts.yml", ".config/nvim/init.lua", "notes/todo.txt", ".cache/x/credentials"} {
		full := filepath.Join(home, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stores := []string{"~/.ssh", "~/.aws", "~/.config/gh"}
	elsewhere := map[string]bool{"~/*/todo.txt": true, "~/n*/*": true, "~/.c*/nvim/*": true, "~/.[!sa]*/init.lua": true}
	for _, pat := range []string{"~/.s?h/id_*", "~/.[a-z]ws/*", "~/.*/credentials", "~/.*/hosts.yml", "~/.config/g?/*", "~/.[!a]*/id_rsa", "~/*/todo.txt", "~/n*/*", "~/.c*/nvim/*", "~/.[!sa]*/init.lua"} {
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", `shopt -s nullglob; printf '%s\0' `+strings.Replace(pat, "~", `"$HOME"`, 1))
		cmd.Env = []string{"HOME=" + home, "LC_ALL=C"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash on %q: %v", pat, err)
		}
		inStore := false
		for _, f := range strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00") {
			if f == "" {
				continue
			}
			if under("~"+strings.TrimPrefix(f, home), stores) {
				inStore = true
			}
		}
		got := patternUnder(pat, stores)
		if inStore && !got || elsewhere[pat] && (got || inStore) || !elsewhere[pat] && !inStore {
			t.Errorf("patternUnder(%q) = %v; bash expands it to %q (in a store: %v)", pat, got, out, inStore)
		}
	}
}
