// Package buildcache gives each project a build cache that stockade owns:
// a directory per workdir, kept between sessions, writable to the commands of
// that project and to nothing else, and the environment variables that point
// the common build tools at it (Go, npm, yarn, pip, cargo, Gradle,
// Maven, and XDG_CACHE_HOME for the rest).
//
// Why not the user's own caches (~/.cache/go-build, ~/.npm, ...): they stay
// read-only in the sandbox, because a build cache the sandbox could write is
// code that runs outside the sandbox later (a poisoned object file, a
// rewritten module, a planted tarball). A cache per project keeps one
// project's commands from poisoning another project's builds; what a command
// can do to its own project's cache it could do to its workdir anyway.
package buildcache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Var is one variable stockade sets, and the subdirectory of the project
// cache it points to.
type Var struct {
	Name   string
	Subdir string
}

// Vars are the variables set, in the order they are set. MAVEN_OPTS is
// appended to rather than replaced (see Env).
var Vars = []Var{
	{"GOCACHE", "go-build"},
	{"GOMODCACHE", "go-mod"},
	{"npm_config_cache", "npm"},
	{"YARN_CACHE_FOLDER", "yarn"},
	{"PIP_CACHE_DIR", "pip"},
	{"CARGO_HOME", "cargo"},
	{"GRADLE_USER_HOME", "gradle"},
	{"MAVEN_OPTS", "maven"},
	{"XDG_CACHE_HOME", "xdg"},
}

// Root is where stockade keeps the build caches of every project:
// $XDG_CACHE_HOME/stockade/build, else ~/.cache/stockade/build.
func Root() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("build cache: %w", err)
	}
	return filepath.Join(base, "stockade", "build"), nil
}

// Dir is the cache directory of the project at workdir (an absolute path):
// the workdir's base name, for people, and a hash of its real path, so that
// two projects never share a cache.
func Dir(workdir string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(workdir)
	if err != nil {
		return "", fmt.Errorf("build cache: %w", err)
	}
	sum := sha256.Sum256([]byte(real))
	name := filepath.Base(real)
	if name == "/" || name == "." {
		name = "root"
	}
	return filepath.Join(root, name+"-"+hex.EncodeToString(sum[:6])), nil
}

// Make creates dir (and stockade's directories above it) readable by the
// user only. The subdirectories are left to the tools, which create them:
// stockade itself never writes inside a directory a command can change.
func Make(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	return nil
}

// Env returns env with the build tools pointed at dir. A variable is left as
// it is when keep says so (for example: the policy sets it, or it already
// names a directory the command may write). MAVEN_OPTS keeps its other
// options; its -Dmaven.repo.local is replaced.
func Env(env []string, dir string, keep func(name, value string) bool) []string {
	for _, v := range Vars {
		path := filepath.Join(dir, v.Subdir)
		old, set := lookup(env, v.Name)
		if set && keep != nil && keep(v.Name, old) {
			continue
		}
		val := path
		if v.Name == "MAVEN_OPTS" {
			opts := slices.DeleteFunc(strings.Fields(old), func(o string) bool { return strings.HasPrefix(o, "-Dmaven.repo.local=") })
			val = strings.Join(append(opts, "-Dmaven.repo.local="+path), " ")
		}
		env = setEnv(env, v.Name, val)
	}
	return env
}

func lookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// setEnv replaces every value of name in env, or appends one.
func setEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
