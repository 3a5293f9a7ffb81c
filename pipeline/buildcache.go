package pipeline

import (
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/stockade/stockade/buildcache"
	"github.com/stockade/stockade/policy"
)

// projectBuildCache makes the build cache of the project at workdir and adds
// it to the writable roots, in workspace-write mode only: in read-only mode
// nothing of the project may change (its cache included), and with the
// filesystem off the tools write their usual caches. It returns the cache
// directory, or "" for none.
func projectBuildCache(sb *policy.Sandbox, workdir string) string {
	if sb.WithDefaults().Filesystem != policy.FilesystemWorkspaceWrite {
		return ""
	}
	dir, err := buildcache.Dir(workdir)
	if err == nil {
		err = buildcache.Make(dir)
	}
	if err != nil {
		slog.Warn("no build cache for this project: build tools that write a cache may fail", "err", err)
		return ""
	}
	sb.WritableRoots = append(sb.WritableRoots, dir)
	return dir
}

// pointAtBuildCache sets the build tools' cache variables in env to dir,
// except those the policy's [env] set names and those that already name a
// directory the command may write (inside the workdir or another writable
// root): a choice the user made on purpose, which works in the sandbox.
func pointAtBuildCache(env []string, dir string, p *policy.Policy, writable []string) []string {
	if dir == "" {
		return env
	}
	return buildcache.Env(env, dir, func(name, value string) bool {
		if _, ok := p.Env.Set[name]; ok {
			return true
		}
		value = filepath.Clean(value)
		for _, root := range writable {
			if root != dir && (value == root || strings.HasPrefix(value, strings.TrimSuffix(root, "/")+"/")) {
				return true
			}
		}
		return false
	})
}
