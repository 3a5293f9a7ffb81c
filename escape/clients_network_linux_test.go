//go:build linux

package escape

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAllowlistClients: real clients fetch over HTTPS through stockade's
// proxy (CONNECT, no TLS interception) from a local TLS server under an
// allowed name: curl and git (a clone) over HTTPS, npm (a tarball), pip
// (a download from a simple index) and go (a module from a GOPROXY) over
// plain HTTP (node and pip refuse the
// test server's self-signed certificate as a CA). The name is example.com, which the test
// server's certificate covers; the proxy is told it is at 127.0.0.1.
func TestAllowlistClients(t *testing.T) {
	requireNetNS(t)
	root := t.TempDir()
	srv := httptest.NewTLSServer(http.FileServer(http.Dir(root)))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	base := "https://example.com:" + port
	plainSrv := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(plainSrv.Close)
	_, plainPort, _ := net.SplitHostPort(plainSrv.Listener.Addr().String())
	plain := "http://example.com:" + plainPort
	ca := filepath.Join(t.TempDir(), "ca.pem")
	must(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello through the proxy\n"), 0o644))
	goModule := "" // set by goProxy
	goProxy := func(t *testing.T, root string) { goModule = serveGoModule(t, root) }
	flags := []string{"--allow-host", "example.com", "--allow-host", "127.0.0.1", "--resolve", "example.com=127.0.0.1"}

	cases := []struct {
		name, tool string
		setup      func(t *testing.T)
		script     string
		want       string
	}{
		{"curl", "curl", nil, `curl -sS --cacert "$CA" "$BASE/hello.txt"`, "hello through the proxy"},
		{"git", "git", func(t *testing.T) {
			// A bare repository served as files (git's "dumb" HTTP protocol).
			src := t.TempDir()
			for _, args := range [][]string{{"init", "-q", "-b", "main", src}, {"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first commit"},
				{"clone", "-q", "--bare", src, filepath.Join(root, "repo.git")}, {"-C", filepath.Join(root, "repo.git"), "update-server-info"}} {
				if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
		}, `GIT_SSL_CAINFO="$CA" git clone -q "$BASE/repo.git" "$TMPDIR/clone" && git -C "$TMPDIR/clone" log --format=%s`, "first commit"},
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
		}, `cd "$TMPDIR" && npm_config_cache="$TMPDIR/npm" npm_config_update_notifier=false npm install --no-audit --no-fund "$PLAIN/tiny-pkg-1.0.0.tgz" >&2 && node -e 'console.log(require("tiny-pkg"))'`, "tiny"},
		{"pip", "python3", func(t *testing.T) { pipIndex(t, root) },
			// Over plain HTTP: the proxy carries absolute-form requests too.
			`"$PY" -m pip download --no-deps --disable-pip-version-check --index-url "$PLAIN/simple/" --trusted-host example.com -d "$TMPDIR/dl" tiny-pkg >&2 && ls "$TMPDIR/dl"`, "tiny_pkg-1.0-py3-none-any.whl"},
		{"go", "go", func(t *testing.T) { goProxy(t, root) },
			`GOPROXY="$PLAIN/goproxy" GOSUMDB=off GOTOOLCHAIN=local GOMODCACHE="$TMPDIR/mod" GOCACHE="$TMPDIR/cache" GOFLAGS=-modcacherw go mod download -json "$GOMODULE" >&2 && ls "$TMPDIR/mod/cache/download/golang.org/x/sync/@v/"`, ".zip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.tool); err != nil {
				t.Skip("no " + c.tool)
			}
			if c.setup != nil {
				c.setup(t)
			}
			j, stderr := stockadeRunWith(t, t.Context(), t.TempDir(), "allow-all.toml", flags, c.script, "CA="+ca, "BASE="+base, "PLAIN="+plain, "GOMODULE="+goModule)
			if j.ExitCode != 0 || !strings.Contains(stderr, c.want) {
				t.Fatalf("%s through the proxy: exit %d, notes %q, want %q in the output\n%s", c.name, j.ExitCode, j.Notes, c.want, lastLines(stderr, 30))
			}
		})
	}
}

// pipIndex writes a PEP 503 simple index with one wheel, tiny-pkg 1.0.
func pipIndex(t *testing.T, root string) {
	const whl = "tiny_pkg-1.0-py3-none-any.whl"
	files := map[string]string{
		"tiny_pkg/__init__.py":                 "",
		"tiny_pkg-1.0.dist-info/METADATA":      "Metadata-Version: 2.1\nName: tiny-pkg\nVersion: 1.0\n",
		"tiny_pkg-1.0.dist-info/WHEEL":         "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
		"tiny_pkg-1.0.dist-info/top_level.txt": "tiny_pkg\n",
	}
	dir := filepath.Join(root, "simple", "tiny-pkg")
	must(t, os.MkdirAll(dir, 0o755))
	f, err := os.Create(filepath.Join(dir, whl))
	must(t, err)
	zw := zip.NewWriter(f)
	var record strings.Builder
	for name, body := range files {
		w, err := zw.Create(name)
		must(t, err)
		w.Write([]byte(body))
		sum := sha256.Sum256([]byte(body))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", name, strings.TrimRight(base64URL(sum[:]), "="), len(body))
	}
	record.WriteString("tiny_pkg-1.0.dist-info/RECORD,,\n")
	w, err := zw.Create("tiny_pkg-1.0.dist-info/RECORD")
	must(t, err)
	w.Write([]byte(record.String()))
	must(t, zw.Close())
	must(t, f.Close())
	b, err := os.ReadFile(filepath.Join(dir, whl))
	must(t, err)
	sum := sha256.Sum256(b)
	index := fmt.Sprintf(`<!DOCTYPE html><html><body><a href="%s#sha256=%s">%s</a></body></html>`, whl, hex.EncodeToString(sum[:]), whl)
	must(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte(index), 0o644))
}

func base64URL(b []byte) string {
	return base64.URLEncoding.EncodeToString(b)
}

// serveGoModule lays out, under root/goproxy, a GOPROXY with one version of
// golang.org/x/sync copied from this machine's module cache, and returns
// module@version; it skips the test when the cache has none.
func serveGoModule(t *testing.T, root string) string {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skip("no go env")
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "cache", "download", "golang.org", "x", "sync", "@v")
	zips, _ := filepath.Glob(filepath.Join(src, "*.zip"))
	if len(zips) == 0 {
		t.Skip("no golang.org/x/sync in the module cache to serve")
	}
	version := strings.TrimSuffix(filepath.Base(zips[0]), ".zip")
	dst := filepath.Join(root, "goproxy", "golang.org", "x", "sync", "@v")
	must(t, os.MkdirAll(dst, 0o755))
	for _, ext := range []string{".info", ".mod", ".zip"} {
		b, err := os.ReadFile(filepath.Join(src, version+ext))
		if err != nil {
			t.Skipf("the module cache lacks %s%s", version, ext)
		}
		must(t, os.WriteFile(filepath.Join(dst, version+ext), b, 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dst, "list"), []byte(version+"\n"), 0o644))
	return "golang.org/x/sync@" + version
}
