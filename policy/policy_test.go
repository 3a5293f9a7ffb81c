package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade/parse"
)

// testPolicy exercises each matcher key once; its rules carry no examples so
// that the table below is the only judge.
const testPolicy = `
version = 1
extends = "none"
default = "allow"

[[rule]]
name = "rm-rf-root"
decision = "deny"
reason = "r"
command = ["rm"]
flags = ["r|R|recursive", "f|force"]
args = ["/", "~", "."]

[[rule]]
name = "push-force"
decision = "ask"
reason = "r"
command = ["git"]
subcommand = ["push"]
flags = ["f|force"]
not_flags = ["force-with-lease"]

[[rule]]
name = "find-delete"
decision = "ask"
reason = "r"
command = ["find"]
flags = ["-delete"]

[[rule]]
name = "bashrc"
decision = "deny"
reason = "r"
writes = ["~/.bashrc"]

[[rule]]
name = "py-socket"
decision = "deny"
reason = "r"
code = ["socket"]

[[rule]]
name = "dyn"
decision = "ask"
reason = "r"
dynamic = true

[[rule]]
name = "curl-sh"
decision = "deny"
reason = "r"
command = ["sh", "bash"]
piped_into = true
upstream = { command = ["curl"] }

[[rule]]
name = "bash-procsub-curl"
decision = "deny"
reason = "r"
command = ["curl"]
inside = { command = ["bash"] }

[[rule]]
name = "mkfs"
decision = "deny"
reason = "r"
command = ["mkfs*"]

[[rule]]
name = "cp-target"
decision = "deny"
reason = "r"
command = ["cp"]
last_arg = ["/etc/**"]
`

func TestMatch(t *testing.T) {
	p, err := Parse([]byte(testPolicy), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	p.homeDir = "/home/alice"
	for _, tc := range []struct {
		script string
		want   Verdict
		rule   string
	}{
		{"rm -rf /", Deny, "rm-rf-root"},
		{"rm -fr /", Deny, "rm-rf-root"},
		{"rm -r -f /", Deny, "rm-rf-root"},
		{"rm -f -r /", Deny, "rm-rf-root"},
		{"rm --recursive --force /", Deny, "rm-rf-root"},
		{"rm --recur --forc /", Deny, "rm-rf-root"}, // abbreviations
		{"rm -Rf -- /", Deny, "rm-rf-root"},
		{"rm -rf //", Deny, "rm-rf-root"},
		{"rm -rf /usr/..", Deny, "rm-rf-root"},
		{"rm -rf ~/", Deny, "rm-rf-root"},
		{"rm -rf $HOME", Deny, "rm-rf-root"},
		{"rm -rf ${HOME}/", Deny, "rm-rf-root"},
		{"rm -rf /home/alice", Deny, "rm-rf-root"}, // the home directory itself
		{"rm -rf ./", Deny, "rm-rf-root"},
		{"sudo rm -rf /", Deny, "rm-rf-root"},
		{"bash -c 'rm -rf /'", Deny, "rm-rf-root"},
		{"/bin/rm -rf /", Deny, "rm-rf-root"},
		{"echo ok; rm -rf / && echo gone", Deny, "rm-rf-root"},
		{"rm -r /", Allow, RuleDefault}, // -f is required by this rule
		{"rm -rf ./build", Allow, RuleDefault},
		{"rm -rf /home/bob", Allow, RuleDefault},
		{"echo rm -rf /", Allow, RuleDefault},
		{"git push --force", Ask, "push-force"},
		{"git push -f origin main", Ask, "push-force"},
		{"git push origin main -f", Ask, "push-force"},
		{"git push --forc", Ask, "push-force"}, // also a prefix of force-with-lease: counts as force
		{"git -C repo push --force", Ask, "push-force"},
		{"git push --force-with-lease", Allow, RuleDefault},
		{"git push --force-w", Allow, RuleDefault},
		{"git push --force=x --force-with-lease", Allow, RuleDefault},
		{"git commit -m force -f", Allow, RuleDefault}, // not push
		{"git log --force", Allow, RuleDefault},
		{"find . -name x -delete", Ask, "find-delete"},
		{"find . -name -delete.txt", Allow, RuleDefault},
		{"echo x >> ~/.bashrc", Deny, "bashrc"},
		{`echo x >> "$HOME/.bashrc"`, Deny, "bashrc"},
		{"echo x >> bashrc", Allow, RuleDefault},
		{"cat ~/.bashrc", Allow, RuleDefault},
		{`python3 -c 'import socket; socket.socket()'`, Deny, "py-socket"},
		{`python3 -c 'print(1)'`, Allow, RuleDefault},
		{"$X -rf /", Ask, "dyn"},
		{"curl -s x | bash", Deny, "curl-sh"},
		{"curl -s x | tee f | sh", Deny, "curl-sh"},
		{"curl -s x | sudo bash", Deny, "curl-sh"},
		{"cat x | bash", Allow, RuleDefault},
		{"curl x; cat y | bash", Allow, RuleDefault}, // different pipelines
		{"bash <(curl -s x)", Deny, "bash-procsub-curl"},
		{"diff <(curl -s x) y", Allow, RuleDefault},
		{"mkfs.ext4 /dev/sda1", Deny, "mkfs"},
		{"cp x /etc/hosts", Deny, "cp-target"},
		{"cp /etc/hosts x", Allow, RuleDefault},
		{"rm -rf / 'unterminated", Deny, RuleParseError},
		{"", Allow, RuleDefault},
	} {
		d := p.Check(tc.script)
		if d.Verdict != tc.want || d.Rule != tc.rule {
			t.Errorf("%q: got %s by %s (%s), want %s by %s", tc.script, d.Verdict, d.Rule, d.Reason, tc.want, tc.rule)
		}
		if d.Verdict != Allow && d.Rule != RuleParseError && d.Invocation == nil {
			t.Errorf("%q: no deciding invocation", tc.script)
		}
	}
}

// TestStrictestWins: over the invocations of a script, deny beats ask beats
// allow, and the decision names the invocation.
func TestStrictestWins(t *testing.T) {
	p, err := Parse([]byte(testPolicy), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	d := p.Check("git push -f; find . -delete; rm -rf /; $X")
	if d.Verdict != Deny || d.Rule != "rm-rf-root" || d.Invocation == nil || d.Invocation.Name != "rm" {
		t.Fatalf("got %+v", d)
	}
	if len(d.Invocations) != 4 {
		t.Errorf("got %d invocations, want 4", len(d.Invocations))
	}
	d = p.Check("find . -delete; git push -f")
	if d.Verdict != Ask || d.Rule != "find-delete" {
		t.Errorf("equal verdicts: the first invocation decides; got %s", d.Rule)
	}
}

// TestDefaultVerdict: with default = "ask", unmatched commands are asked
// about, and allow rules make an allow-list.
func TestDefaultVerdict(t *testing.T) {
	p, err := Parse([]byte(`version = 1
default = "ask"
[[rule]]
name = "ls"
decision = "allow"
command = ["ls", "cat"]
[[rule]]
name = "no-etc"
decision = "deny"
reason = "r"
args = ["/etc/**"]
`), "allowlist.toml")
	if err != nil {
		t.Fatal(err)
	}
	for script, want := range map[string]Verdict{
		"ls -la":             Allow,
		"ls | cat":           Allow,
		"ls; make":           Ask,
		"cat /etc/passwd":    Deny,
		"make; cat /etc/x":   Deny,
		"":                   Allow,
		"echo 'unterminated": Deny,
	} {
		if d := p.Check(script); d.Verdict != want {
			t.Errorf("%q: got %s by %s, want %s", script, d.Verdict, d.Rule, want)
		}
	}
}

func TestDefaultPolicy(t *testing.T) {
	// Default skips the examples for start-up speed; Parse runs them all.
	p, err := Parse(DefaultTOML, "default")
	if err != nil {
		var es Errors
		errors.As(err, &es)
		for _, e := range es {
			t.Error(e)
		}
		t.FailNow()
	}
	d := Default()
	if d.Version != 1 || d.Sandbox.Filesystem != "workspace-write" || d.Sandbox.Network != "off" ||
		d.Sandbox.UnixSockets != "deny" || d.Sandbox.Enforce != "strict" || d.defaultVerdict() != Allow {
		t.Errorf("default sandbox: %+v", d.Sandbox)
	}
	for _, want := range []string{"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gh", "~/.netrc", "~/.docker/config.json", "~/.kube"} {
		if !slices.Contains(d.Sandbox.DenyRead, want) {
			t.Errorf("deny_read lacks %s", want)
		}
	}
	n := 0
	for _, r := range p.Rules {
		if len(r.Examples) == 0 {
			t.Errorf("rule %s has no example", r.Name)
		}
		n += len(r.Examples) + len(r.NotExamples)
	}
	t.Logf("default policy: %d rules, %d examples", len(p.Rules), n)
}

// TestExamplesEnforced: a rule whose example it does not match, whose example
// gets another verdict, or that matches a not_example, does not load.
func TestExamplesEnforced(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`command = ["rm"]
examples = ["ls"]`, `rule "r" does not match its example "ls"`},
		{`command = ["rm"]
not_examples = ["rm x"]`, `rule "r" matches its not_example "rm x"`},
		{`command = ["rm"]
examples = ["rm 'x"]`, `example "rm 'x" does not parse`},
		{`command = ["rm"]
examples = ["rm x; shutdown"]`, `example "rm x; shutdown" gets deny from rule "power", not ask`},
	} {
		src := "version = 1\n[[rule]]\nname = \"halt\"\ndecision = \"deny\"\nreason = \"p\"\ncommand = [\"shutdown\"]\n" +
			"[[rule]]\nname = \"r\"\ndecision = \"ask\"\nreason = \"x\"\n" + tc.body + "\n"
		_, err := Parse([]byte(src), "ex.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "ex.toml:12:1: ") {
			t.Errorf("no position: %v", err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ src, want, hint string }{
		{"", "ex.toml: missing required key: version = 1", ""},
		{"version = 2", "ex.toml:1:1: unsupported version 2", ""},
		{"version = 1\nnetwork = \"on\"", `ex.toml:2:11: network is a table here ([network] allow = [...])`, `the network mode is a key of [sandbox]: [sandbox] network = "off" | "allowlist" | "on"`},
		{"version = 1\n[network]\nallow = [\"https://github.com\"]", `ex.toml:3:1: network allow entry "https://github.com": want a host name`, ""},
		{"version = 1\n[network]\nalow = []", `ex.toml:3:1: unknown key "network.alow"`, `did you mean "allow"?`},
		{"version = 1\n[sandbox]\nnetwrok = \"on\"", `ex.toml:3:1: unknown key "sandbox.netwrok"`, `did you mean "network"?`},
		{"version = 1\n[sandbox]\nnetwork = \"of\"", `ex.toml:3:1: network is "of": want off or allowlist or on`, `did you mean "off"?`},
		{"version = 1\n[sandbox]\nfilesystem = \"rw\"", `ex.toml:3:1: filesystem is "rw"`, ""},
		{"version = 1\n[sandbox]\nunix_sockets = \"yes\"", `ex.toml:3:1: unix_sockets is "yes"`, ""},
		{"version = 1\n[sandbox]\nenforce = \"best_effort\"", `ex.toml:3:1: enforce is "best_effort"`, `did you mean "best-effort"?`},
		{"version = 1\n[sandbox]\nwritable_roots = [\"/\"]", `writable_roots[0] is /`, ""},
		{"version = 1\n[sandbox]\nwritable_roots = [\"rel\"]", `ex.toml:3:1: writable_roots entry "rel"`, ""},
		{"version = 1\n[sandbox]\nnetwork = 1", "ex.toml:3:", ""},
		{"version = 1\ndefault = \"maybe\"", `ex.toml:2:1: default is "maybe"`, ""},
		{"version = 1\n[[rule]]\nname = \"x\"\ndecision = \"dny\"\nreason = \"r\"\ncommand = [\"x\"]", `ex.toml:4:1: rule "x": decision is "dny"`, `did you mean "deny"?`},
		{"version = 1\n[[rule]]\nname = \"x\"\ndecision = \"deny\"\nreason = \"r\"\ncomand = [\"x\"]", `ex.toml:6:1: unknown key "rule.comand"`, `did you mean "command"?`},
		{"version = 1\n[[rule]]\nname = \"x\"\ndecision = \"deny\"\nreason = \"r\"", `rule "x": the rule matches nothing`, ""},
		{"version = 1\n[[rule]]\nname = \"x\"\ndecision = \"deny\"\ncommand = [\"x\"]", `ex.toml:2:3: rule "x" has no reason`, ""},
		{"version = 1\n[[rule]]\nname = \"x\"\ndecision = \"ask\"\nreason = \"r\"\ncode = [\"(\"]", `ex.toml:6:1: rule "x": bad regular expression`, ""},
		{"version = 1\n[[rule]]\nname = \"x\"\ndecision = \"ask\"\nreason = \"r\"\nargs = [\"[a\"]", `ex.toml:6:1: rule "x": bad pattern "[a"`, ""},
		{"version = 1\n[[rule]]\nname = \"x\"\ndecision = \"ask\"\nreason = \"r\"\nflags = [\"--force\"]", `bad flag "--force"`, ""},
		{"version = 1\n[[rule]]\nname = \"x\"\ndecision = \"ask\"\nreason = \"r\"\nupstream = { comand = [\"x\"] }", `ex.toml:6:14: unknown key "rule.comand"`, ""},
		{"version = 1\n[[rule]]\nname = \"x\"\ndecision = \"ask\"\nreason = \"r\"\ncommand = [\"a\"]\n[[rule]]\nname = \"x\"\ndecision = \"ask\"\nreason = \"r\"\ncommand = [\"b\"]", `ex.toml:8:1: rule name "x" is used twice`, ""},
		{"version = 1\n[env]\nset = { \"A B\" = \"x\" }", `bad variable name "A B"`, ""},
		{"version = = 1", "ex.toml:1:", ""},
	} {
		_, err := Parse([]byte(tc.src), "ex.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
			continue
		}
		var es Errors
		if !errors.As(err, &es) {
			t.Errorf("%q: error is %T, not Errors", tc.src, err)
			continue
		}
		if tc.hint != "" && !slices.Contains(es.Hints(), tc.hint) {
			t.Errorf("%q: hints %q lack %q", tc.src, es.Hints(), tc.hint)
		}
	}
}

// TestSandboxDefaults: keys a file leaves out take the built-in values.
func TestSandboxDefaults(t *testing.T) {
	p, err := Parse([]byte("version = 1\n[sandbox]\nnetwork = \"on\"\n"), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := p.Sandbox
	if s.Network != "on" || s.Filesystem != "workspace-write" || s.UnixSockets != "deny" || s.Enforce != "strict" || !slices.Contains(s.DenyRead, "~/.ssh") {
		t.Errorf("got %+v", s)
	}
	p, err = Parse([]byte("version = 1\n[sandbox]\ndeny_read = [\"~/.vault\"]\n"), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Sandbox.DenyRead, []string{"~/.vault"}) {
		t.Errorf("deny_read given in the file must replace the default list, got %q", p.Sandbox.DenyRead)
	}
}

// TestExamplePolicies loads every testdata/policies/NAME.toml and runs
// NAME.cases.toml against it; default.cases.toml runs against the built-in policy.
func TestExamplePolicies(t *testing.T) {
	files, _ := filepath.Glob("../testdata/policies/*.cases.toml")
	if len(files) == 0 {
		t.Fatal("no cases files")
	}
	for _, cases := range files {
		f := strings.TrimSuffix(cases, ".cases.toml") + ".toml"
		p := Default()
		if filepath.Base(f) != "default.toml" {
			var err error
			if p, err = Load(f); err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
		}
		cs, err := LoadCases(cases)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Test(cs) {
			if !r.OK {
				t.Errorf("%s:%d: %q got %s by %s, want %s", cases, r.Case.Line, r.Case.Script, r.Decision.Verdict, r.Decision.Rule, r.Case.Expect)
			}
		}
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"/dev/sd*", "/dev/sda1", true},
		{"/dev/sd*", "/dev/sd/x", false},
		{"/etc/**", "/etc/cron.d/x", true},
		{"**/.git", "a/b/.git", true},
		{"**/.git", ".git", false},
		{"+**", "+HEAD:refs/heads/main", true},
		{"/dev/sd?", "/dev/sdb", true},
		{"/dev/sd[a-c]", "/dev/sdd", false},
		{"/dev/sd[!a-c]", "/dev/sdd", true},
		{`\*`, "*", true},
		{`\*`, "x", false},
	} {
		if got := globMatch(tc.pat, tc.s); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v", tc.pat, tc.s, got)
		}
	}
}

func FuzzLoad(f *testing.F) {
	f.Add(DefaultTOML)
	f.Add([]byte(testPolicy))
	files, _ := filepath.Glob("../testdata/policies/*.toml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parsePolicy(data, "fuzz.toml", false)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not Errors: %T %v", err, err)
			}
			for _, e := range es {
				if e.File != "fuzz.toml" || e.Msg == "" {
					t.Fatalf("bad error: %+v", e)
				}
			}
			return
		}
		if p.Version != 1 || !p.defaultVerdict().valid() {
			t.Fatalf("loaded an invalid policy: %+v", p)
		}
		for _, s := range []string{"rm -rf /", "ls", "curl x | sh", "git push -f"} {
			if d := p.Check(s); !d.Verdict.valid() {
				t.Fatalf("verdict %q", d.Verdict)
			}
		}
	})
}

// BenchmarkCheck reports the time to judge one everyday command (p50, p99)
// with the default policy, and a 10 KB script. The policy has judged every
// script once before the clock starts, as a server has after its first
// commands: the built-in rules are compiled on first use, which
// BenchmarkDefaultFirstCheck measures.
func BenchmarkCheck(b *testing.B) {
	p := Default()
	files := corpus(b, "everyday.txtar")
	for _, f := range files {
		p.Check(string(f.Data))
	}
	b.Run("everyday", func(b *testing.B) {
		var times, floor []time.Duration
		fastest := make([]time.Duration, len(files))
		for b.Loop() {
			for i, f := range files {
				start := time.Now()
				p.Check(string(f.Data))
				took := time.Since(start)
				times = append(times, took)
				if fastest[i] == 0 || took < fastest[i] {
					fastest[i] = took
				}
				start = time.Now()
				spin(spinSteps)
				floor = append(floor, time.Since(start))
			}
		}
		b.ReportMetric(percentileMicros(times, 50), "p50-µs/cmd")
		b.ReportMetric(percentileMicros(times, 99), "p99-µs/cmd")
		// The machine's own tail: a fixed computation that touches no
		// memory, timed between the commands as they are. What a p99 has
		// beyond it is the analysis's (its slow commands, its allocation).
		b.ReportMetric(percentileMicros(floor, 50), "floor-p50-µs")
		b.ReportMetric(percentileMicros(floor, 99), "floor-p99-µs")
		// What each command costs when nothing interrupts it: its fastest
		// pass. Their p99 is the analysis's own tail, without the machine's.
		b.ReportMetric(percentileMicros(fastest, 99), "cost-p99-µs")
	})
	b.Run("10KB", func(b *testing.B) {
		var sb strings.Builder
		for i := 0; sb.Len() < 10<<10; i++ {
			fmt.Fprintf(&sb, "%s\n", files[i%len(files)].Data)
		}
		script := sb.String()
		b.SetBytes(int64(len(script)))
		for b.Loop() {
			if d := p.Check(script); d.Verdict == Deny {
				b.Fatalf("denied: %s", d.Reason)
			}
		}
	})
}

// spinSteps steps of spin take about as long as the median everyday
// command's analysis on the development machine (12 µs).
const spinSteps = 12000

var spinSink uint64

// spin computes for n steps, touching no memory.
func spin(n int) {
	x := uint64(1)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	spinSink += x
}

// percentileMicros sorts times and returns their q-th percentile in µs.
func percentileMicros(times []time.Duration, q int) float64 {
	slices.Sort(times)
	return float64(times[len(times)*q/100].Nanoseconds()) / 1e3
}

// checkInvocations judges hand-built invocations, without the parser.
func TestCheckScriptByHand(t *testing.T) {
	p, err := Parse([]byte(testPolicy), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	d := p.CheckScript(&parse.Script{Invocations: []parse.Invocation{
		{Name: "ls"},
		{Name: "rm", Args: []string{"-rf", "~"}, Via: []string{"xargs"}},
	}})
	if d.Verdict != Deny || d.Invocation == nil || d.Invocation.Name != "rm" {
		t.Errorf("got %+v", d)
	}
}

// TestCandidatesAreTheRulesWhoseCommandHolds: the index (Policy.candidates)
// leaves out only rules whose command key fails for the invocation, and
// says the key holds only where it does, and a rule's gate leaves it out
// only where it would not match; so judging through it decides as trying
// every rule would. Checked on the built-in policy and on one with
// every shape of command list, for every command of both corpora and a few
// more.
func TestCandidatesAreTheRulesWhoseCommandHolds(t *testing.T) {
	shapes, err := Parse([]byte(`version = 1
[[rule]]
name = "literal"
command = ["rm", "unlink"]
decision = "allow"
[[rule]]
name = "literal-path"
command = ["./configure", "make"]
decision = "allow"
[[rule]]
name = "globs"
command = ["python*", "perl", "pip[0-9]"]
decision = "allow"
[[rule]]
name = "path-glob"
command = ["./**", "bash"]
decision = "allow"
[[rule]]
name = "literal-and-glob-same"
command = ["node", "node*"]
decision = "allow"
[[rule]]
name = "no-command"
args = ["x"]
decision = "allow"
`), "shapes.toml")
	if err != nil {
		t.Fatal(err)
	}
	scripts := []string{"./configure", "/usr/bin/python3.12 x", "pip3 x", "\\rm x", "$x y", "./a/b", "node x", "nodejs x", "make"}
	for _, name := range []string{"dangerous.txtar", "everyday.txtar"} {
		for _, f := range corpus(t, name) {
			scripts = append(scripts, string(f.Data))
		}
	}
	tried, gated := 0, 0
	for _, p := range []*Policy{Default(), shapes} {
		for _, script := range scripts {
			s, err := parseScript(script)
			if err != nil {
				continue
			}
			ctx := newScriptCtx(p, expandScript(s))
			for i := range ctx.invs {
				a := ctx.arg(i)
				got := map[int]bool{}
				p.candidates(a.name, ctx.invs[i].Name, ^gate(0), func(ri int, commandHolds bool) {
					if _, twice := got[ri]; twice {
						t.Errorf("%q: rule %s given twice", ctx.invs[i].Name, p.Rules[ri].Name)
					}
					got[ri] = commandHolds
				})
				for ri, r := range p.Rules {
					holds := len(r.Command) == 0 || matchName(compileNames(r.Command), a.name, ctx.invs[i].Name)
					commandHolds, given := got[ri]
					switch {
					case holds && !given:
						t.Errorf("%q (%s): rule %s is left out, but its command key holds", ctx.invs[i].Name, a.name, r.Name)
					case commandHolds && !holds:
						t.Errorf("%q (%s): rule %s is given as holding, but its command key does not", ctx.invs[i].Name, a.name, r.Name)
					}
					tried++
					// A rule its gate leaves out would not have matched.
					if g := gateOf(&r.Matcher); g != 0 && r.match(ctx, i, a) {
						gated++
						if ctx.gatesOf(i, a)&g == 0 {
							t.Errorf("%q: rule %s matches, but its gate %b is not among the invocation's %b", ctx.invs[i].Name, r.Name, g, ctx.gatesOf(i, a))
						}
					}
				}
			}
		}
	}
	if tried < 100000 {
		t.Errorf("only %d rule and invocation pairs tried", tried)
	}
	if gated < 500 {
		t.Errorf("only %d matches of gated rules seen", gated)
	}
	if d := shapes.Check("./configure --prefix=/usr"); d.Rule != "literal-path" {
		t.Errorf("./configure: decided by %q, not by the rule that names it", d.Rule)
	}
}
