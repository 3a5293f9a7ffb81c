package main

import (
	"runtime/debug"
	"testing"
)

// TestVersionString covers the builds a test binary is not: a tagged module
// and a git checkout with and without local changes.
func TestVersionString(t *testing.T) {
	for _, c := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "(unknown) (no build info)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0 (no VCS revision: built outside a git checkout or with -buildvcs=false)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1a2b3c"}, {Key: "vcs.time", Value: "2026-11-22T19:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, "(devel) (rev 1a2b3c, 2026-11-22T19:00:00Z, modified)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.1-0.20261122190000-1a2b3c4d5e6f"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1a2b3c4d5e6f"}, {Key: "vcs.modified", Value: "false"},
		}}, "v1.2.1-0.20261122190000-1a2b3c4d5e6f (rev 1a2b3c4d5e6f)"},
	} {
		if got := versionString(c.info); got != c.want {
			t.Errorf("versionString(%+v) = %q, want %q", c.info, got, c.want)
		}
	}
}
