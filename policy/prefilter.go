package policy

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// literal is a string a match must contain; with fold set, in any mix of
// upper and lower case (only ASCII letters whose case pairs are ASCII alone).
type literal struct {
	s    string
	fold bool
}

// requiredText returns strings one of which every text that the regular
// expression expr matches contains, or nil when it finds none. A text that
// contains none of them cannot match, which a substring search tells far
// faster than the expression: most arguments and code that rules for any
// command look at contain none of the words their patterns look for.
func requiredText(expr string) []literal {
	re, err := syntax.Parse(expr, syntax.Perl) // as regexp.Compile parses it
	if err != nil {
		return nil
	}
	return required(re)
}

func required(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		return literalOf(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part is in the match: take the part whose strings say most.
		var best []literal
		for _, sub := range re.Sub {
			if r := required(sub); r != nil && (best == nil || selective(r) > selective(best)) {
				best = r
			}
		}
		return best
	case syntax.OpAlternate:
		// One alternative is in the match: any of their strings.
		var all []literal
		for _, sub := range re.Sub {
			r := required(sub)
			if r == nil {
				return nil
			}
			all = append(all, r...)
		}
		return all
	}
	return nil
}

// literalOf is the required string of a literal in the expression. Matched
// ignoring case, a literal is taken in its longest run of ASCII characters
// whose case pairs are ASCII too (not k, which Unicode pairs with the Kelvin
// sign, nor s, paired with the long s): every part of a literal is in the
// match as much as the whole.
func literalOf(runes []rune, fold bool) []literal {
	if !fold {
		s := string(runes)
		if s == "" || strings.ContainsRune(s, utf8.RuneError) {
			return nil // RuneError matches an invalid byte, which the text would not contain
		}
		return []literal{{s: s}}
	}
	best, start := "", 0
	for i := 0; i <= len(runes); i++ {
		if i < len(runes) && asciiFold(runes[i]) {
			continue
		}
		if i-start > len(best) {
			best = strings.ToLower(string(runes[start:i]))
		}
		start = i + 1
	}
	if best == "" {
		return nil
	}
	return []literal{{s: best, fold: true}}
}

// asciiFold reports whether r is ASCII and every rune Unicode folds it to is too.
func asciiFold(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// selective scores a set of required strings: the length of the shortest,
// less a little for each string to look for.
func selective(set []literal) int {
	shortest := len(set[0].s)
	for _, l := range set[1:] {
		shortest = min(shortest, len(l.s))
	}
	return 8*shortest - len(set)
}

// containsAny reports whether s contains one of lits.
func containsAny(s string, lits []literal) bool {
	for _, l := range lits {
		if l.fold && containsFold(s, l.s) || !l.fold && strings.Contains(s, l.s) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains lower (ASCII, lower case) in any
// mix of ASCII upper and lower case.
func containsFold(s, lower string) bool {
	n := len(lower)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for j < n {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}
