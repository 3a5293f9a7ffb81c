package parse

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wordTests are command lines whose words Parse resolves statically; each is
// checked against what real bash passes to a command.
var wordTests = []string{
	`r''m -rf /`,
	`\r\m x`,
	`"r"m x`,
	`'r'"m" x`,
	`r\
m x`,
	`{rm,-rf,/}`,
	`rm -rf /{bin,etc,usr}`,
	`echo {1..5} {a..e} {5..1} {01..03} {1..10..3} {-2..2}`,
	`echo {a..z} {Z..A} {z..a} {A..Z..5} {a..c..-1}`,
	`echo {,} a{,} {'',x} {,a}b {a,b}{,c}`,
	`echo {a} {a,b \{a,b} {a,\,b} {x,y}} {{a,b}`,
	`echo {a,{b,c}d}e {1..2}{a,b}`,
	`echo "{a,b}" '{a,b}' {"a",b}`,
	`$'\x72m' $'\162\155' $'a\tb' $'\e[1m' $'\'' $'\"' $'\?' $'\q' $'\x' $'\xZ' $'\u0041' $'\U00000042' $'\777' $'\1011'`,
	`echo "a\b\$c\"d\\e" 'a\b' a\\b`,
	`echo ~ ~/x ~root a~ x=~`,
	`echo [ ] x[ ab]`,
	`echo "a"'b'c$'d'"e"`,
	`echo '' "" x '' y`,
	`echo a#b '#c'`,
	"echo a\tb",
	`echo -- -rf --no-preserve-root`,
}

func TestWordsAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	for _, src := range wordTests {
		s, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		if len(s.Invocations) != 1 {
			t.Errorf("Parse(%q): %d invocations, want 1", src, len(s.Invocations))
			continue
		}
		inv := s.Invocations[0]
		if inv.Dynamic || anyTrue(inv.DynamicArgs) {
			t.Errorf("Parse(%q): unexpectedly dynamic: %s", src, summary(inv))
			continue
		}
		got := append([]string{inv.Name}, inv.Args...)
		// set -- replaces the positional parameters with exactly the words
		// bash would pass to the command.
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", "set -- "+src+"\nprintf '%s\\0' \"$@\"")
		cmd.Env = []string{"HOME=/home/u", "LC_ALL=C.UTF-8"}
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("bash on %q: %v", src, err)
			continue
		}
		want := strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00")
		if len(out) == 0 {
			want = nil
		}
		// A tilde stays text; bash expands it.
		for i := range got {
			if strings.HasPrefix(got[i], "~") || strings.HasPrefix(got[i], "x=~") {
				got[i] = strings.Replace(got[i], "~root", "/root", 1)
				got[i] = strings.Replace(got[i], "~", "/home/u", 1)
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("words of %q:\n Parse: %q\n  bash: %q", src, got, want)
		}
	}
}

// braceItems are words whose brace expansion makes dynamic items; each
// item keeps its own source text, which bash expands as it expands the
// item ({rm,-rf,$HOME} is rm -rf $HOME).
var braceItems = []string{`{rm,-rf,$HOME}`, `{a,"$HOME"/x,'b c'$HOME}`, `x{$HOME,y}z`, `{~,$HOME}/.ssh`}

func TestBraceItemsAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	run := func(words string) string {
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", "set -- "+words+"\nprintf '%s\\0' \"$@\"")
		cmd.Env = []string{"HOME=/home/u", "LC_ALL=C.UTF-8"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash on %q: %v", words, err)
		}
		return string(out)
	}
	for _, src := range braceItems {
		s, err := Parse("echo " + src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		inv := s.Invocations[len(s.Invocations)-1]
		var items []string
		for i, a := range inv.Args {
			if anyTrue(inv.DynamicArgs) && inv.DynamicArgs[i] {
				items = append(items, a) // source text: bash expands it
			} else {
				a = strings.Replace(a, "~", "/home/u", 1) // a tilde stays text; bash expands it
				items = append(items, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
			}
		}
		if got, want := run(strings.Join(items, " ")), run(src); got != want {
			t.Errorf("items of %q: %q expand to %q; bash expands the word to %q", src, items, got, want)
		}
	}
}

// dynamicWords are command words that cannot be known without running
// something or looking at the file system.
var dynamicWords = []string{
	`$x`, `${x}`, `"$x"`, `${x:-rm}`, `${x/a/b}`, `$(echo rm)`, "`echo rm`", `$((1))`, `$[1]`,
	`r$x`, `"r$x"`, `rm${IFS}-rf`, `$IFS`, `${!x}`, `$"rm"`, `$@`, `"$@"`, `$*`, `$1`, `$$`,
	`r?`, `r*`, `[r]m`, `/bin/r[m]`, `<(echo rm)`, `{$x,y}`,
}

func TestDynamicCommandWords(t *testing.T) {
	for _, w := range dynamicWords {
		s, err := Parse(w + " arg")
		if err != nil {
			t.Errorf("Parse(%q): %v", w, err)
			continue
		}
		// The command word is the last invocation: substitutions come first.
		inv := s.Invocations[len(s.Invocations)-1]
		if !inv.Dynamic {
			t.Errorf("Parse(%q): command word not dynamic: %s", w, summary(inv))
		}
		if w2 := strings.TrimPrefix(strings.SplitN(w, " ", 2)[0], "{"); !strings.Contains(inv.Name, w2[:1]) {
			t.Errorf("Parse(%q): Name %q is not the source text", w, inv.Name)
		}
	}
}

// coprocTests are coproc clauses whose commands Parse lists; each is checked
// against the commands real bash runs for them, with stub programs that log
// their arguments.
var coprocTests = []string{
	`coproc BC { bc -l; }; echo '2^10' >&"${BC[1]}"; read -r ans <&"${BC[0]}"; echo "$ans"`,
	`coproc rm -rf x`,
	`coproc rm`,
	`coproc NAME rm a`,
	`coproc N ( rm b )`,
	`coproc >/dev/null rm c`,
	`coproc { rm g; }`,
	`coproc rm h; cat`,
	`coproc N { rm j; } | cat`,
	`coproc N { rm k; } >/dev/null`,
	`coproc N while false; do :; done; rm l`,
	`coproc N { rm m; } && rm n`,
	`coproc rm o 3>/dev/null`,
	`coproc rm p && cat`,
}

// coprocRefused are coproc clauses the parser reads differently from bash
// (it runs 2, h, N, X=1; bash runs rm), which Parse refuses.
var coprocRefused = []string{
	`coproc 2>/dev/null rm d`,
	`coproc rm h | cat`,
	`coproc N rm i | cat`,
	`coproc X=1 rm x`,
	`coproc N-1 { rm q; }`,
}

func TestCoprocAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	stubs := []string{"rm", "bc", "cat", "NAME", "N"}
	for _, name := range stubs {
		script := "#!/bin/sh\nprintf '%s\\n' \"" + name + " $*\" >> " + log + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, src := range coprocTests {
		s, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		var got []string
		for _, inv := range s.Invocations {
			if slices.Contains(stubs, inv.Name) {
				got = append(got, strings.Join(append([]string{inv.Name}, inv.Args...), " "))
			}
		}
		os.Remove(log)
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", src+"\nwait")
		cmd.Env = []string{"PATH=" + dir, "LC_ALL=C.UTF-8"}
		cmd.Run() // a stub's failure, or bash's, shows in the log
		out, _ := os.ReadFile(log)
		want := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(out) == 0 {
			want = nil
		}
		for i := range want {
			want[i] = strings.TrimSuffix(want[i], " ")
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("commands of %q:\n Parse: %q\n  bash: %q", src, got, want)
		}
	}
	for _, src := range coprocRefused {
		if _, err := Parse(src); err == nil || !strings.Contains(err.Error(), "coproc") {
			t.Errorf("Parse(%q): %v, want a coproc error", src, err)
		}
	}
}
