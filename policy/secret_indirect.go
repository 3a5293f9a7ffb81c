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
	indirectRef = regexp.MustCompile(`\$\{!([A-Za-z_][A-Za-z0-9_]*)\}`)
	forList     = regexp.MustCompile(`\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\s([^;\n]*)`)
)

// secretRefs are the variables a script points at secret-named ones:
// named for ${!n}, refs for namerefs.
type secretRefs struct {
	named, refs map[string]bool
}

// secretRefsOf finds them: in assignments (n=X, declare -n r=X) and, where
// the text is known, in for loops over a list of names.
func (ctx *scriptCtx) secretRefsOf() *secretRefs {
	if ctx.secretRefs != nil {
		return ctx.secretRefs
	}
	sr := &secretRefs{named: map[string]bool{}, refs: map[string]bool{}}
	ctx.secretRefs = sr
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
			if k, v, ok := strings.Cut(w, "="); ok && secretVarNamed(v) {
				sr.named[k] = true
				if nameref {
					sr.refs[k] = true
				}
			}
		}
	}
	if ctx.text != nil && strings.Contains(*ctx.text, "${!") {
		for _, m := range forList.FindAllStringSubmatch(*ctx.text, -1) {
			if strings.Contains(m[2], "compgen") || strings.Contains(m[2], "${!") {
				// for v in $(compgen -v), ${!AWS_*}: every variable, or
				// every one with a prefix, secrets among them
				sr.named[m[1]] = true
				continue
			}
			for _, w := range strings.Fields(m[2]) {
				if secretVarNamed(w) {
					sr.named[m[1]] = true
				}
			}
		}
	}
	return sr
}

// secretIndirect reports whether invocation i's arguments read a variable
// named at run time, or through a nameref, that the script points at a
// secret-named variable (n=OPENAI_API_KEY; echo "${!n}"; for n in
// GITHUB_TOKEN; do printf %s "${!n}"; done; declare -n r=AWS_SECRET_ACCESS_KEY;
// echo "$r"), or that walks all of them (for v in $(compgen -v); do echo
// "${!v}"; done).
func (ctx *scriptCtx) secretIndirect(i int) bool {
	var sr *secretRefs
	for _, w := range ctx.invs[i].Args {
		if !strings.Contains(w, "$") {
			continue
		}
		if sr == nil {
			sr = ctx.secretRefsOf()
			if len(sr.named) == 0 {
				return false // nothing points at a secret name
			}
		}
		for _, m := range indirectRef.FindAllStringSubmatch(w, -1) {
			if sr.named[m[1]] {
				return true
			}
		}
		for r := range sr.refs {
			if strings.Contains(w, "${"+r+"}") || varRefAt(w, r) {
				return true
			}
		}
	}
	return false
}

// varRefAt reports whether w holds $r followed by no more of a name.
func varRefAt(w, r string) bool {
	for k := strings.Index(w, "$"+r); k >= 0; {
		end := k + 1 + len(r)
		if end == len(w) || !isWordByte(w[end]) {
			return true
		}
		n := strings.Index(w[end:], "$"+r)
		if n < 0 {
			return false
		}
		k = end + n
	}
	return false
}
