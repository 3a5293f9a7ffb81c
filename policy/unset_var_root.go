package policy

import (
	"regexp"
	"strings"
)

// A path that starts with a variable the script never sets and goes on
// from "/": rm -rf "$BUILD_DIR/"* removes /* when BUILD_DIR is empty or
// unset (a typo, a missing export), the bug that has emptied whole
// machines. ${X:?} stops the script first and is not one.

var unsetVarRootWord = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/+(\*|\.\*|\*/|(usr|etc|bin|sbin|lib|lib64|var|home|boot|opt|srv|root|mnt|media|dev|sys|proc)(/.*)?)?$`)

// alwaysSetDirs are variables set in every session or by every CI system,
// never empty where a script runs.
var alwaysSetDirs = map[string]bool{
	"HOME": true, "PWD": true, "USER": true, "LOGNAME": true, "SHELL": true, "PATH": true,
	"GITHUB_WORKSPACE": true, "RUNNER_TEMP": true, "RUNNER_TOOL_CACHE": true, "CI_PROJECT_DIR": true,
	"CI_BUILDS_DIR": true, "BUILD_SOURCESDIRECTORY": true, "AGENT_TEMPDIRECTORY": true,
	"BITBUCKET_CLONE_DIR": true, "CIRCLE_WORKING_DIRECTORY": true, "WORKSPACE": true,
}

// unsetVarRoot reports whether one of invocation i's arguments is such a
// path. Only with the script's text: a variable it sets, reads or lists
// anywhere but in an expansion counts as set.
func (ctx *scriptCtx) unsetVarRoot(i int) bool {
	if ctx.text == nil {
		return false
	}
	for _, w := range ctx.invs[i].Args {
		if !strings.HasPrefix(strings.TrimLeft(w, `"'`), "$") {
			continue
		}
		m := unsetVarRootWord.FindStringSubmatch(strings.ReplaceAll(strings.ReplaceAll(w, `"`, ""), "'", ""))
		if m == nil || alwaysSetDirs[m[1]] {
			continue
		}
		if !namedOutsideExpansions(*ctx.text, m[1]) {
			return true
		}
	}
	return false
}

// namedOutsideExpansions reports whether name occurs in text other than
// right after "$" or "${": set (X=, for X in, read X), exported or listed.
func namedOutsideExpansions(text, name string) bool {
	return wholeWord(text, name, func(k int) bool { return k == 0 || text[k-1] != '$' && text[k-1] != '{' })
}
