package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLayersOrder: built-in, user, project, command line, each over the ones before.
func TestLayersOrder(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	user := writeFile(t, filepath.Join(dir, "user.toml"), `version = 1
extends = "built-in"
default = "ask"
[env]
set = { A = "1" }
scrub = ["USER_*"]
[sandbox]
network = "on"
max_processes = 100
[[rule]]
name = "make-ok"
decision = "allow"
command = ["make"]
`)
	writeFile(t, ProjectFile(work), `version = 1
default = "deny"
[env]
scrub = ["PROJECT_*"]
[sandbox]
filesystem = "read-only"
max_processes = 50
deny_read = ["~/.vault"]
[[rule]]
name = "no-deploy"
decision = "deny"
reason = "r"
command = ["make"]
subcommand = ["deploy"]
`)
	cli := writeFile(t, filepath.Join(dir, "cli.toml"), `version = 1
[sandbox]
network = "off"
[env]
set = { B = "2" }
`)
	p, err := LoadLayers(Sources{Workdir: work, User: user, Files: []string{cli}})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Sandbox
	if p.Default != Deny || s.Network != "off" || s.Filesystem != "read-only" || s.MaxProcesses != 50 {
		t.Errorf("merged: default %s, sandbox %+v", p.Default, s)
	}
	if !contains(s.DenyRead, "~/.ssh") || !contains(s.DenyRead, "~/.vault") {
		t.Errorf("a file in the workdir adds to deny_read, got %q", s.DenyRead)
	}
	if p.Env.Set["A"] != "1" || p.Env.Set["B"] != "2" || !contains(p.Env.Scrub, "USER_*") || !contains(p.Env.Scrub, "PROJECT_*") {
		t.Errorf("env: set adds names, a file in the workdir adds to scrub: %+v", p.Env)
	}
	kinds := []string{}
	for _, l := range p.Layers {
		kinds = append(kinds, l.Kind)
	}
	if got := strings.Join(kinds, ","); got != "built-in,user,project,command line" {
		t.Errorf("layers %s", got)
	}
	for script, want := range map[string]Verdict{"make": Allow, "make deploy": Deny, "ls": Deny, "rm -rf ~": Deny} {
		if d := p.Check(script); d.Verdict != want {
			t.Errorf("%q: %s by %s, want %s", script, d.Verdict, d.Rule, want)
		}
	}
	if p.originOf("no-deploy") != "project "+ProjectFile(work) {
		t.Errorf("origin %q", p.originOf("no-deploy"))
	}
}

// TestLayersRestricted: a file inside the workdir may only add restrictions.
func TestLayersRestricted(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"extends = \"none\"", `extends = "none" drops the built-in rules`},
		{"default = \"allow\"\n", ""},
		{"[sandbox]\nnetwork = \"on\"", `network = "on" is less strict than "off"`},
		{"[sandbox]\nfilesystem = \"off\"", `filesystem = "off" is less strict`},
		{"[sandbox]\nfilesystem = \"read-only\"", ""},
		{"[sandbox]\nunix_sockets = \"allow\"", `unix_sockets = "allow" is less strict`},
		{"[sandbox]\nenforce = \"best-effort\"", `enforce = "best-effort" is less strict`},
		{"[sandbox]\nwritable_roots = [\"/srv\"]", "writable_roots makes more writable"},
		{"[sandbox]\nreadable_roots = [\"/srv\"]", "readable_roots may make more readable"},
		{"[env]\nkeep = [\"AWS_*\"]", "env.keep lets secrets through"},
		{"[env]\nset = { LD_PRELOAD = \"/x.so\" }", "env.set can change what commands run"},
		{"[env]\nscrub = [\"MY_*\"]", ""},
		{"[[rule]]\nname = \"a\"\ndecision = \"allow\"\ncommand = [\"x\"]", `rule "a" allows`},
		{"[[rule]]\nname = \"a\"\ndecision = \"deny\"\nreason = \"r\"\noverride = \"power\"\ncommand = [\"x\"]", `rule "a" overrides "power"`},
		{"[[rule]]\nname = \"a\"\ndecision = \"ask\"\nreason = \"r\"\ncommand = [\"x\"]", ""},
	} {
		dir := t.TempDir()
		writeFile(t, ProjectFile(dir), "version = 1\n"+tc.src+"\n")
		_, err := LoadLayers(Sources{Workdir: dir})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.src, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
		// The same file outside the workdir may loosen.
		if _, err := LoadLayers(Sources{Workdir: t.TempDir(), Files: []string{ProjectFile(dir)}}); err != nil && !strings.Contains(tc.src, "override") {
			t.Errorf("%q outside the workdir: %v", tc.src, err)
		}
	}
}

// TestOverride: an allow that overrides a rule by name beats it for the
// invocations it matches, and only for them; other rules still apply.
func TestOverride(t *testing.T) {
	p, err := Parse([]byte(`version = 1
[[rule]]
name = "wip"
decision = "allow"
override = "git-push-force"
command = ["git"]
args = ["wip"]
`), "o.toml")
	if err != nil {
		t.Fatal(err)
	}
	for script, want := range map[string]Verdict{
		"git push -f origin wip":                   Allow,
		"git push -f origin main":                  Ask,
		"git push -f origin wip && rm -rf ~":       Deny,
		"git push -f origin wip; git reset --hard": Ask,
	} {
		if d := p.Check(script); d.Verdict != want {
			t.Errorf("%q: %s by %s, want %s", script, d.Verdict, d.Rule, want)
		}
	}
}

func TestUserFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if got := UserFile(); got != "/cfg/stockade/policy.toml" {
		t.Errorf("with XDG_CONFIG_HOME: %s", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := UserFile(); got != "/home/u/.config/stockade/policy.toml" {
		t.Errorf("without: %s", got)
	}
}
