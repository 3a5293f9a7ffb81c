package policy

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// literal is a string a match must contain; with fold set, in any mix of
// upper and lower case (only ASCII letters whose case pairs are ASCII alone).
type literal struct {
	s     string
	fold  bool
	pairs []uint16 // pairHash of each pair of adjacent bytes of s, in lower case
}

// newLiteral returns the literal s with its pairs.
func newLiteral(s string, fold bool) literal {
	l := literal{s: s, fold: fold}
	for i := 0; i+1 < len(s); i++ {
		l.pairs = append(l.pairs, pairHash(s[i], s[i+1]))
	}
	return l
}

// pairSet is which pairs of adjacent bytes a text holds, in lower case,
// hashed into 1024 bits. A literal one of whose pairs is not in the set is
// not in the text: a few bit tests where a search would read the text. A
// text is read once for its set, and the rules that look at every
// command search it for hundreds of literals.
type pairSet [16]uint64

func pairHash(a, b byte) uint16 {
	return uint16((uint32(lowerASCII(a))<<8 | uint32(lowerASCII(b))) * 0x9E3779B1 >> 22)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// add puts the pairs of s in the set.
func (p *pairSet) add(s string) {
	for i := 0; i+1 < len(s); i++ {
		h := pairHash(s[i], s[i+1])
		p[h>>6] |= 1 << (h & 63)
	}
}

// mayHold reports whether a text whose pairs are p may contain l.
func (p *pairSet) mayHold(l *literal) bool {
	for _, h := range l.pairs {
		if p[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// requirement is what every text a regular expression matches contains:
// all the strings of one of its ways, nil when nothing is known. A text
// that holds no way cannot match, which substring searches tell far faster
// than the expression: most arguments and code that rules for any command
// look at contain none of the words their patterns look for. An expression
// whose top is an alternation has a way per alternative.
type requirement []way

// way is sets of strings: a text holds it when it contains one string of
// each set. Sets come most selective first, so a text is usually turned
// away by the first.
type way [][]literal

// requiredText returns the requirement of the regular expression expr.
func requiredText(expr string) requirement {
	re, err := syntax.Parse(expr, syntax.Perl) // as regexp.Compile parses it
	if err != nil {
		return nil
	}
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	alternatives := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		alternatives = re.Sub
	}
	var need requirement
	for _, alt := range alternatives {
		w := required(alt)
		if w == nil {
			return nil
		}
		slices.SortStableFunc(w, func(a, b []literal) int { return selective(b) - selective(a) })
		need = append(need, w)
	}
	return need
}

// holds reports whether s may match: nothing is known, or s holds a way.
// pairs, when not nil, are the pairs of s.
func (need requirement) holds(s string, pairs *pairSet) bool {
	if need == nil {
		return true
	}
	for _, w := range need {
		if w.holds(s, pairs) {
			return true
		}
	}
	return false
}

// holds reports whether s contains one string of every set of w.
func (w way) holds(s string, pairs *pairSet) bool {
	for _, set := range w {
		if !containsAny(s, pairs, set) {
			return false
		}
	}
	return true
}

// required is what a match of re contains, nil when nothing is known.
func required(re *syntax.Regexp) way {
	switch re.Op {
	case syntax.OpLiteral:
		if l := literalOf(re.Rune, re.Flags&syntax.FoldCase != 0); l != nil {
			return way{l}
		}
	case syntax.OpCharClass:
		if l := classLiterals(re.Rune); l != nil {
			return way{l}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part is in the match, so is what each part requires.
		var all way
		for _, sub := range re.Sub {
			all = append(all, required(sub)...)
		}
		return all
	case syntax.OpAlternate:
		// One alternative is in the match: any of the strings of one set
		// each alternative requires (the set that says most).
		var oneOf []literal
		for _, sub := range re.Sub {
			r := required(sub)
			if r == nil {
				return nil
			}
			oneOf = append(oneOf, slices.MaxFunc(r, func(a, b []literal) int { return selective(a) - selective(b) })...)
		}
		return way{oneOf}
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
		return []literal{newLiteral(s, false)}
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
	return []literal{newLiteral(best, true)}
}

// maxClassLiterals bounds the characters of a class taken as required text:
// a class of more ([a-z], \s) is in too many texts to turn one away.
const maxClassLiterals = 4

// classLiterals is the required text of a character class ([ewW], [$`]):
// one of its characters, each a literal; nil when it has more than
// maxClassLiterals or one outside ASCII. ranges are the class's pairs of
// first and last rune, as regexp/syntax gives them (case folding
// already spelled out).
func classLiterals(ranges []rune) []literal {
	var lits []literal
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if r >= utf8.RuneSelf || len(lits) == maxClassLiterals {
				return nil
			}
			lits = append(lits, newLiteral(string(r), false))
		}
	}
	return lits
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

// containsAny reports whether s contains one of lits. pairs, when not
// nil, are the pairs of s.
func containsAny(s string, pairs *pairSet, lits []literal) bool {
	for i := range lits {
		l := &lits[i]
		if pairs != nil && !pairs.mayHold(l) {
			continue
		}
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
