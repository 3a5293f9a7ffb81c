package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 21: npm init X and npm create X fetch the package create-X (the
// initializer) and run it, as npx create-X does: @scope names
// @scope/create, @scope/name names @scope/create-name. The package an
// initializer names is judged as the one npx would run
// (runs-package-unasked-npm, knownPackageRun).

// npmInitializer returns the package npm init or npm create (inv) runs,
// or false when inv is not one or names none (npm init -y writes a
// package.json).
func npmInitializer(inv *parse.Invocation) (string, bool) {
	if commandName(inv.Name) != "npm" || len(inv.Args) < 2 {
		return "", false
	}
	switch inv.Args[0] {
	case "init", "create", "innit":
	default:
		return "", false
	}
	for k, a := range inv.Args[1:] {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") || inv.DynamicArgs != nil && inv.DynamicArgs[k+1] {
			continue
		}
		if scope, name, ok := strings.Cut(a, "/"); ok && strings.HasPrefix(a, "@") {
			return scope + "/create-" + name, true
		}
		if strings.HasPrefix(a, "@") {
			scope, ver, _ := strings.Cut(a[1:], "@")
			if ver != "" {
				ver = "@" + ver
			}
			return "@" + scope + "/create" + ver, true
		}
		return "create-" + a, true
	}
	return "", false
}
