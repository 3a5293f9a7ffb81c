//go:build linux

package escape

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrantedClients: with network = "allowlist" and nothing on the
// session's list, real clients reach a registry that a rule grants to them
// (npm install, pip download, go mod download, each from a local stub under
// a test name), and nothing else does: the same fetch by another command, or
// by the granted command in a call that also runs another, is refused, and
// the result names the rule that would grant it.
func TestGrantedClients(t *testing.T) {
	requireNetNS(t)
	root := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	flags := []string{"--resolve", "npm.test=127.0.0.1", "--resolve", "pypi.test=127.0.0.1", "--resolve", "goproxy.test=127.0.0.1", "--resolve", "git.test=127.0.0.1"}
	goModule := ""

	cases := []struct {
		name, tool string
		setup      func(t *testing.T)
		granted    string // a call of the granted command alone
		got        string // what it leaves in the workdir
		other      string // the same fetch by another command
		rule       string
	}{
		{"npm", "npm", func(t *testing.T) {
			pkg := t.TempDir()
			must(t, os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"tiny-pkg","version":"1.0.0","main":"index.js"}`), 0o644))
			must(t, os.WriteFile(filepath.Join(pkg, "index.js"), []byte(`module.exports = "tiny"`), 0o644))
			cmd := exec.Command("npm", "pack", "--pack-destination", root)
			cmd.Dir = pkg
			cmd.Env = append(os.Environ(), "npm_config_cache="+t.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("npm pack: %v\n%s", err, out)
			}
		}, `npm_config_cache="$TMPDIR/npm" npm_config_update_notifier=false npm install --no-audit --no-fund "http://npm.test:$PORT/tiny-pkg-1.0.0.tgz"`,
			"node_modules/tiny-pkg/index.js",
			`curl -sSf -o x.tgz "http://npm.test:$PORT/tiny-pkg-1.0.0.tgz"`,
			"npm-install"},
		{"pip", "python3", func(t *testing.T) { pipIndex(t, root) },
			`python3 -m pip download --no-deps --disable-pip-version-check --index-url "http://pypi.test:$PORT/simple/" --trusted-host pypi.test -d dl tiny-pkg`,
			"dl/tiny_pkg-1.0-py3-none-any.whl",
			`curl -sSf -o x.whl "http://pypi.test:$PORT/simple/tiny-pkg/tiny_pkg-1.0-py3-none-any.whl"`,
			"pip-download"},
		{"go", "go", func(t *testing.T) { goModule = serveGoModule(t, root) },
			`GOPROXY="http://goproxy.test:$PORT/goproxy" GOSUMDB=off GOTOOLCHAIN=local GOMODCACHE="$PWD/mod" GOCACHE="$TMPDIR/cache" GOFLAGS=-modcacherw go mod download "$GOMODULE"`,
			"mod/cache/download/golang.org/x/sync/@v/list",
			`curl -sSf -o x.zip "http://goproxy.test:$PORT/goproxy/golang.org/x/sync/@v/list"`,
			"go-mod-download"},
	}
	cases = append(cases, struct {
		name, tool string
		setup      func(t *testing.T)
		granted    string
		got        string
		other      string
		rule       string
	}{"git", "git", func(t *testing.T) {
		// A bare repository served as files (git's "dumb" HTTP protocol).
		src := t.TempDir()
		for _, args := range [][]string{{"init", "-q", "-b", "main", src}, {"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first commit"},
			{"clone", "-q", "--bare", src, filepath.Join(root, "repo.git")}, {"-C", filepath.Join(root, "repo.git"), "update-server-info"}} {
			if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}, `git clone -q "http://git.test:$PORT/repo.git" clone`,
		"clone/.git/HEAD",
		`curl -sSf -o x "http://git.test:$PORT/repo.git/HEAD"`,
		"git-clone"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, tool := range []string{c.tool, "curl"} {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skip("no " + tool)
				}
			}
			c.setup(t)
			vars := []string{"PORT=" + port, "GOMODULE=" + goModule}
			dir := t.TempDir()
			j, stderr := stockadeRunWith(t, t.Context(), dir, "grants.toml", flags, c.granted, vars...)
			if _, err := os.Stat(filepath.Join(dir, c.got)); j.ExitCode != 0 || err != nil {
				t.Fatalf("%s, granted by rule %q: exit %d, notes %q, %s: %v\n%s", c.name, c.rule, j.ExitCode, j.Notes, c.got, err, lastLines(stderr, 30))
			}
			if notes := strings.Join(j.Notes, "\n"); !strings.Contains(notes, `granted by rule "`+c.rule+`"`) {
				t.Errorf("the result does not say what was granted: %q", j.Notes)
			}

			for _, script := range []string{c.other, c.granted + " && echo done"} {
				dir := t.TempDir()
				j, stderr := stockadeRunWith(t, t.Context(), dir, "grants.toml", flags, script, vars...)
				_, err := os.Stat(filepath.Join(dir, c.got))
				if j.ExitCode == 0 || err == nil {
					t.Errorf("%q reached the host granted to %s alone: exit %d\n%s", script, c.name, j.ExitCode, lastLines(stderr, 20))
				}
				if notes := strings.Join(j.Notes, "\n"); !strings.Contains(notes, `is not on the allowlist; rule "`+c.rule+`" grants it to`) {
					t.Errorf("%q: the notes do not name the rule that grants the host: %q", script, j.Notes)
				}
			}
		})
	}
}
