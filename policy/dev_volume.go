package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 22: a container volume whose name says development or test
// (ledger_pgdata_test, app-dev-cache), removed from this machine's own
// container engine, is a test database's storage: the next test run or
// compose up makes it again, as dev_database.go has it for the database
// itself. A volume named otherwise (pgdata) may hold data no script made;
// prune removes every unused volume, whatever its name; a global option
// (--host, --context) may name another engine.

// devVolumes reports whether docker, podman or nerdctl volume rm removes
// only volumes named for development or test.
func devVolumes(inv *parse.Invocation) bool {
	args := inv.Args
	if len(args) < 3 || args[0] != "volume" || args[1] != "rm" && args[1] != "remove" {
		return false
	}
	if inv.DynamicArgs != nil && anyTrue(inv.DynamicArgs) {
		return false
	}
	named := 0
	for _, w := range args[2:] {
		switch {
		case w == "-f" || w == "--force":
		case strings.HasPrefix(w, "-"):
			return false
		case !devName(strings.ToLower(w)):
			return false
		default:
			named++
		}
	}
	return named > 0
}
