package policy

import (
	"slices"
	"strings"
	"testing"
)

const grantPolicy = `version = 1

[[rule]]
name = "npm-install"
decision = "allow"
command = ["npm"]
subcommand = ["install", "i", "ci"]
allow_hosts = ["registry.npmjs.org"]

[[rule]]
name = "npm-global"
decision = "ask"
reason = "installs outside the project"
override = "npm-install"
command = ["npm"]
subcommand = ["install", "i"]
flags = ["g|global"]

[[rule]]
name = "pip-install"
decision = "allow"
command = ["pip", "pip3"]
subcommand = ["install", "download"]
allow_hosts = ["pypi.org", "files.pythonhosted.org"]

[[rule]]
name = "pip-download-too"
decision = "allow"
command = ["pip"]
subcommand = ["download"]
allow_hosts = ["files.pythonhosted.org"]
`

// TestGrantFor: a call is granted the hosts every command of it is granted,
// quiet builtins aside; any other command in the call takes the grant away.
func TestGrantFor(t *testing.T) {
	p, err := Parse([]byte(grantPolicy), "grants.toml")
	if err != nil {
		t.Fatal(err)
	}
	npm := []string{"registry.npmjs.org"}
	for _, c := range []struct {
		script string
		hosts  []string
		rules  []string
	}{
		{"npm install", npm, []string{"npm-install"}},
		{"npm ci --no-audit > npm.log 2>&1", npm, []string{"npm-install"}},
		{"cd web && export npm_config_cache=/tmp/c && npm i left-pad", npm, []string{"npm-install"}},
		{"npm install; npm ci", npm, []string{"npm-install"}},
		{"env npm_config_cache=/tmp/c npm install", npm, []string{"npm-install"}},
		{"timeout 600 nice -n 5 npm ci", npm, []string{"npm-install"}},
		{"python3 -m pip install -r requirements.txt", []string{"pypi.org", "files.pythonhosted.org"}, []string{"pip-install"}},
		{"sh -c 'npm ci'", nil, nil},
		{"env npm install && env curl https://registry.npmjs.org/", nil, nil},
		{"pip install -r requirements.txt", []string{"pypi.org", "files.pythonhosted.org"}, []string{"pip-install"}},
		{"pip download x", []string{"pypi.org", "files.pythonhosted.org"}, []string{"pip-install", "pip-download-too"}},
		// The intersection: pip3 install is not granted what only pip download is.
		{"pip download x && pip3 install y", []string{"pypi.org", "files.pythonhosted.org"}, []string{"pip-install", "pip-download-too"}},
		{"npm test", nil, nil},
		{"npm install && npm test", nil, nil},
		{"npm install; curl https://registry.npmjs.org/", nil, nil},
		{"npm install && pip install x", nil, nil},
		{"npm install $(cat pkgs)", nil, nil},
		{"bash -c 'npm install'", nil, nil},
		{"f() { npm install; }; f", nil, nil},
		{"cd . 3<>/dev/tcp/127.0.0.1/3128; npm install", nil, nil},
		{"npm install -g typescript", nil, nil}, // overridden
		{"cd web", nil, nil},
		{"", nil, nil},
		{"npm install 'unterminated", nil, nil},
	} {
		g := p.GrantFor(c.script)
		if !slices.Equal(g.Hosts, c.hosts) || !slices.Equal(g.Rules, c.rules) {
			t.Errorf("%q: granted %q by %q, want %q by %q", c.script, g.Hosts, g.Rules, c.hosts, c.rules)
		}
	}
	if g := Default().GrantFor("npm install"); g.Hosts != nil {
		t.Errorf("the built-in policy grants %q", g.Hosts)
	}
	var names []string
	for _, r := range p.Granting("Files.PythonHosted.org.", 443) {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"pip-install", "pip-download-too"}) {
		t.Errorf("rules granting files.pythonhosted.org: %q", names)
	}
}

// TestGrantChecked: allow_hosts entries are checked when the policy loads,
// and a file inside the workdir may not grant hosts.
func TestGrantChecked(t *testing.T) {
	for src, want := range map[string]string{
		`allow_hosts = ["https://registry.npmjs.org"]`: `rule "g": network allow entry "https://registry.npmjs.org": want a host name`,
		"allow_hosts = []": `rule "g": allow_hosts is empty`,
		"allow_hosts = [\"x.org\"]\ndecision = \"deny\"\nreason = \"r\"": `rule "g" denies, so its allow_hosts would grant nothing`,
	} {
		text := "version = 1\n[[rule]]\nname = \"g\"\ncommand = [\"npm\"]\n" + src + "\n"
		if !strings.Contains(src, "decision") {
			text += "decision = \"allow\"\n"
		}
		_, err := Parse([]byte(text), "g.toml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", src, err, want)
		}
	}
	dir := t.TempDir()
	writeFile(t, ProjectFile(dir), "version = 1\n[[rule]]\nname = \"g\"\ndecision = \"ask\"\nreason = \"r\"\ncommand = [\"npm\"]\nallow_hosts = [\"evil.example\"]\n")
	if _, err := LoadLayers(Sources{Workdir: dir}); err == nil || !strings.Contains(err.Error(), `rule "g" grants hosts: a policy file inside the workdir may only add restrictions`) {
		t.Errorf("a workdir file granting hosts: %v", err)
	}
	if _, err := LoadLayers(Sources{Workdir: t.TempDir(), Files: []string{ProjectFile(dir)}}); err != nil {
		t.Errorf("the same file outside the workdir: %v", err)
	}
}

// TestDefaultGrantExamples: the rules `stockade policy default` ships in a
// comment, uncommented into a policy file, load over the built-in policy
// and grant each registry to its tool's commands, and to no others.
func TestDefaultGrantExamples(t *testing.T) {
	text := string(DefaultTOML)
	start := strings.Index(text, "\n# [[rule]]\n")
	end := strings.Index(text, "\n[env]\n")
	if start < 0 || end < start {
		t.Fatal("default.toml has no commented [[rule]] before [env]")
	}
	var file strings.Builder
	file.WriteString("version = 1\n")
	for _, line := range strings.Split(text[start+1:end], "\n") {
		file.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ") + "\n")
	}
	p, err := Parse([]byte(file.String()), "examples.toml")
	if err != nil {
		t.Fatalf("the commented rules do not load: %v\n%s", err, file.String())
	}
	for script, want := range map[string][]string{
		"npm install":                      {"registry.npmjs.org"},
		"cd web && npm ci":                 {"registry.npmjs.org"},
		"pip install -r requirements.txt":  {"pypi.org", "files.pythonhosted.org"},
		"python3 -m pip download requests": {"pypi.org", "files.pythonhosted.org"},
		"go mod download":                  {"proxy.golang.org", "sum.golang.org"},
		"go build ./...":                   {"proxy.golang.org", "sum.golang.org"},
		"cargo build --release":            {"crates.io", "index.crates.io", "static.crates.io"},
		"npm test":                         nil,
		"curl https://registry.npmjs.org/": nil,
		"npm install && go build ./...":    nil,
	} {
		if got := p.GrantFor(script).Hosts; !slices.Equal(got, want) {
			t.Errorf("%q: granted %q, want %q", script, got, want)
		}
	}
}
