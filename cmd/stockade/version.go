package main

import (
	"fmt"
	"runtime/debug"
)

// version, when set at build time with -ldflags "-X main.version=...", is
// printed instead of the module version the build info records.
var version = ""

const versionUsage = `usage: stockade version

Prints the version of stockade: the module version and, when built from a
git checkout, the VCS revision, its time, and "modified" when the checkout
had uncommitted changes. Give this line when you report a problem.
`

// cmdVersion implements `stockade version`.
func cmdVersion(args []string, io stdio) int {
	fs := newFlags("version", versionUsage)
	if status, ok := fs.parse(args, io); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return fail(io.err, fmt.Errorf("version takes no arguments, got %q", fs.Arg(0)))
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	fmt.Fprintln(io.out, "stockade", versionString(info))
	return 0
}

// versionString is the module version and VCS revision from the build info,
// e.g. "v1.2.0 (rev 1a2b3c4d5e6f, 2026-11-22T19:00:00Z, modified)".
// info is nil when the binary carries no build info.
func versionString(info *debug.BuildInfo) string {
	v := version
	if v == "" {
		v = "(unknown)"
		if info != nil && info.Main.Version != "" {
			v = info.Main.Version
		}
	}
	if info == nil {
		return v + " (no build info)"
	}
	var rev, at, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v + " (no VCS revision: built outside a git checkout or with -buildvcs=false)"
	}
	out := v + " (rev " + rev
	if at != "" {
		out += ", " + at
	}
	if modified == "true" {
		out += ", modified"
	}
	return out + ")"
}

// shortVersion is the version alone, for the MCP server's implementation info.
func shortVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(unknown)"
}
