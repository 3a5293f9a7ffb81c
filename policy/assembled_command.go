package policy

import "strings"

// Round 13: a command word put together at run time from pieces, so that
// no word of the script names the program: a slice or an edit of a value
// (${s:1:2}, ${s/x/}, ${s,,}), the script's own arguments spliced into a
// name (c$@at, r$*m, which run cat and rm when there are none), or
// letters glued to a variable (c${x}at). A program named by one variable
// ($EDITOR, "$PAGER", ${CC:-gcc}) or by a path ($VENV/bin/python,
// ./node_modules/.bin/$tool) is configuration, not hiding.

// commandAssembled reports whether the dynamic command word src (its
// source text) is assembled from pieces: positional parameters spliced
// into it anywhere; in a word that is not a path (no slash outside
// ${...}), a slice or edit of a value, or literal text glued to an
// expansion.
func commandAssembled(src string) bool {
	w := strings.Trim(src, `"'`)
	if !strings.ContainsAny(w, "$`") {
		return false
	}
	if strings.Contains(w, "$@") || strings.Contains(w, "$*") || strings.Contains(w, "${@") || strings.Contains(w, "${*") {
		return true
	}
	if pathOutsideBraces(w) {
		return false // a path: ${DIR%/}/run.sh, $VENV/bin/python
	}
	for k := 0; k+1 < len(w); k++ {
		if w[k] != '$' || w[k+1] != '{' {
			continue
		}
		end := strings.IndexByte(w[k:], '}')
		if end < 0 {
			return true // a brace the analysis does not read
		}
		if valueEdited(w[k+2 : k+end]) {
			return true
		}
	}
	return gluedToExpansion(w)
}

// pathOutsideBraces reports whether w has a slash outside any ${...}.
func pathOutsideBraces(w string) bool {
	depth := 0
	for k := 0; k < len(w); k++ {
		switch {
		case w[k] == '$' && k+1 < len(w) && w[k+1] == '{':
			depth++
			k++
		case w[k] == '}' && depth > 0:
			depth--
		case w[k] == '/' && depth == 0:
			return true
		}
	}
	return false
}

// valueEdited reports whether the inside of ${...} slices or edits the
// value (x:1:2, x/a/b, x#a, x%a, x^^, x,,) rather than reading it or a
// default (x, x:-y, x:=y, x-y).
func valueEdited(in string) bool {
	n := 0
	for n < len(in) && isNameByte(in[n], n == 0) {
		n++
	}
	if n == 0 || n == len(in) {
		return false // ${!x}, ${#x}: read by other rules; ${x}
	}
	switch c := in[n]; c {
	case '/', '#', '%', '^', ',', '@':
		return true
	case ':':
		return n+1 < len(in) && !strings.ContainsRune("-=+?", rune(in[n+1]))
	case '[':
		return false
	}
	return false
}

// gluedToExpansion reports whether w has literal text right next to an
// expansion ($x, ${x}, $(...)): c${x}at, r$m, ${a}${b}.
func gluedToExpansion(w string) bool {
	parts, literal := 0, false
	for k := 0; k < len(w); {
		switch {
		case w[k] == '$' && k+1 < len(w) && w[k+1] == '{':
			end := strings.IndexByte(w[k:], '}')
			if end < 0 {
				return true
			}
			parts++
			k += end + 1
		case w[k] == '$' && k+1 < len(w) && w[k+1] == '(':
			return parts > 0 || literal || !strings.HasSuffix(w, ")")
		case w[k] == '$':
			k++
			for k < len(w) && isNameByte(w[k], false) {
				k++
			}
			parts++
		case w[k] == '"' || w[k] == '\'':
			k++
		default:
			literal = true
			k++
		}
	}
	return parts > 1 || parts == 1 && literal
}
