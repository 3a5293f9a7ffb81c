package buildcache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDirIsPerProject(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	a, b := filepath.Join(t.TempDir(), "app"), filepath.Join(t.TempDir(), "app")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(a, link)
	da, _ := Dir(a)
	db, _ := Dir(b)
	dl, _ := Dir(link)
	root, _ := Root()
	if da == db {
		t.Errorf("two projects named app share the cache %s", da)
	}
	if da != dl {
		t.Errorf("a symlink to the project gets another cache: %s, %s", da, dl)
	}
	if !strings.HasPrefix(da, root+"/app-") {
		t.Errorf("cache %s is not %s/app-HASH", da, root)
	}
}

func TestEnv(t *testing.T) {
	env := []string{"PATH=/bin", "GOCACHE=/home/u/.cache/go-build", "PIP_CACHE_DIR=/work/.pip", "MAVEN_OPTS=-Xmx1g -Dmaven.repo.local=/home/u/.m2"}
	keep := func(name, value string) bool { return strings.HasPrefix(value, "/work/") }
	got := Env(env, "/c", keep)
	for _, want := range []string{
		"PATH=/bin", "GOCACHE=/c/go-build", "GOMODCACHE=/c/go-mod", "npm_config_cache=/c/npm",
		"PIP_CACHE_DIR=/work/.pip", "CARGO_HOME=/c/cargo", "GRADLE_USER_HOME=/c/gradle",
		"MAVEN_OPTS=-Xmx1g -Dmaven.repo.local=/c/maven", "XDG_CACHE_HOME=/c/xdg", "YARN_CACHE_FOLDER=/c/yarn",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("%s missing from %q", want, got)
		}
	}
	if len(got) != len(Vars)+1 {
		t.Errorf("want each variable once, got %q", got)
	}
}
