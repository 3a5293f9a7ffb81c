package policy

import (
	"regexp"
	"strings"
)

// Secrets named at run time: ${!n} expands the variable whose name n
// holds, and a nameref (declare -n r=NAME) reads NAME through r, so a
// script can print or send $AWS_SECRET_ACCESS_KEY without writing it where
// the argument is. secretIndirect finds such a name given to n or r.

var (
	// secretName is a variable name that says it holds a secret.
	secretName  = regexp.MustCompile(`^[A-Za-z0-9_]*(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL)[A-Za-z0-9_]*$`)
	indirectRef = regexp.MustCompile(`\$\{!([A-Za-z_][A-Za-z0-9_]*)\}`)
	forList     = regexp.MustCompile(`\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\s([^;\n]*)`)
)

// secretIndirect reports whether invocation i's arguments read a variable
// named at run time, or through a nameref, that the script points at a
// secret-named variable (n=OPENAI_API_KEY; echo "${!n}"; for n in
// GITHUB_TOKEN; do printf %s "${!n}"; done; declare -n r=AWS_SECRET_ACCESS_KEY;
// echo "$r").
func (ctx *scriptCtx) secretIndirect(i int) bool {
	args := ctx.invs[i].Args
	if !strings.Contains(strings.Join(args, " "), "$") {
		return false
	}
	// names given secret names: by assignments (n=X, declare -n r=X) and,
	// where the text is known, by for loops over a list of names
	named := map[string]bool{}
	refs := map[string]bool{}
	for _, inv := range ctx.invs {
		switch commandName(inv.Name) {
		case "declare", "local", "typeset", "export", "readonly":
		default:
			continue
		}
		nameref := false
		for _, w := range inv.Args {
			if strings.HasPrefix(w, "-") && strings.Contains(w, "n") {
				nameref = true
			}
			if k, v, ok := strings.Cut(w, "="); ok && secretName.MatchString(strings.Trim(v, `"'`)) {
				named[k] = true
				if nameref {
					refs[k] = true
				}
			}
		}
	}
	if ctx.text != nil {
		for _, m := range forList.FindAllStringSubmatch(*ctx.text, -1) {
			for _, w := range strings.Fields(m[2]) {
				if secretName.MatchString(strings.Trim(w, `"'`)) {
					named[m[1]] = true
				}
			}
		}
	}
	for _, w := range args {
		for _, m := range indirectRef.FindAllStringSubmatch(w, -1) {
			if named[m[1]] {
				return true
			}
		}
		for r := range refs {
			if strings.Contains(w, "${"+r+"}") || strings.Contains(w, "$"+r) && !regexp.MustCompile(`\$`+r+`[A-Za-z0-9_]`).MatchString(w) {
				return true
			}
		}
	}
	return false
}
