package policy

import "strings"

// tempNamedPattern reports whether w is a file-name pattern for the
// script's own scratch files in a temporary directory: /tmp/NAME* with a
// fixed name of two characters or more first (rm -rf /tmp/myapp-test-*),
// in that directory only. /tmp/*, /tmp/.* and /tmp/x/../ are not.
func tempNamedPattern(w string) bool {
	rest, ok := strings.CutPrefix(w, "/tmp/")
	if !ok {
		if rest, ok = strings.CutPrefix(w, "/var/tmp/"); !ok {
			return false
		}
	}
	k := strings.IndexAny(rest, "*?[")
	if k < 2 || rest[0] == '.' || strings.Contains(rest, "/") {
		return false
	}
	return workdirPattern(rest)
}
