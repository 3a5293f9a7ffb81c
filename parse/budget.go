package parse

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The analysis runs unsandboxed, on text anyone who can send a command
// chooses, so its cost is bounded before it is spent: a script nested deeper
// than MaxNesting, or that would make more than MaxInvocations commands or
// MaxWordBytes of resolved words, is refused with an error that says which
// bound it crossed. Every script up to the size limit the server accepts
// (128 KiB) is judged within about 100 ms and 64 MiB, or refused.
const (
	// MaxNesting bounds how deeply (...), $(...), ${...}, `...`, "...",
	// { ...; }, $((...)) and [...] nest in one piece of code, each link of
	// a chain of |, && or || (or of arithmetic operators) counting as a
	// level, as it does for the parser. The parser's cost grows faster than
	// the nesting, and no hand-written script comes near this deep.
	MaxNesting = 100
	// MaxInvocations bounds the commands one script may contain.
	MaxInvocations = 10000
	// MaxWordBytes bounds the total size of the words of all invocations
	// (names, arguments, redirection targets, inline code), which nesting
	// and brace expansion multiply.
	MaxWordBytes = 4 << 20
	// MaxParsedBytes bounds the code parsed for one script, counting strings
	// read again as code (eval, bash -c) each time they are read.
	MaxParsedBytes = 1 << 20
)

// maxBraceWords bounds the words one brace expansion makes. It is counted
// before expanding, which costs far more per word than the words themselves.
const maxBraceWords = 16 << 10

// braceWords returns how many words brace expansion makes of w, or more than
// maxBraceWords when that is more, without expanding it.
func braceWords(w *syntax.Word) int64 {
	n := int64(1)
	for _, part := range w.Parts {
		b, ok := part.(*syntax.BraceExp)
		if !ok {
			continue
		}
		var k int64
		if b.Sequence {
			k = sequenceLen(b)
		} else {
			for _, e := range b.Elems {
				k += braceWords(e)
				k = min(k, maxBraceWords+1)
			}
		}
		n = min(n*max(k, 1), maxBraceWords+1)
	}
	return n
}

// sequenceLen is the length of {x..y[..step]}, as mvdan.cc/sh expands it.
func sequenceLen(b *syntax.BraceExp) int64 {
	x, y := b.Elems[0].Lit(), b.Elems[1].Lit()
	from, err1 := strconv.ParseInt(x, 10, 64)
	to, err2 := strconv.ParseInt(y, 10, 64)
	if err1 != nil || err2 != nil {
		if x == "" || y == "" {
			return 1
		}
		from, to = int64(x[0]), int64(y[0])
	}
	step := int64(1)
	if len(b.Elems) > 2 {
		if s, err := strconv.ParseInt(b.Elems[2].Lit(), 10, 64); err == nil && s != 0 {
			step = s
		}
	}
	if step < 0 {
		step = -step
	}
	span := to - from
	if span < 0 {
		span = -span
	}
	if span < 0 { // overflow
		return maxBraceWords + 1
	}
	return min(span/step+1, maxBraceWords+1)
}

// overBudget refuses the script at p for crossing MaxInvocations or MaxWordBytes.
func (a *analyzer) overBudget(p Pos) {
	if a.err != nil {
		return
	}
	msg := fmt.Sprintf("more than %d bytes of words once expanded (brace expansion, nested substitutions)", MaxWordBytes)
	if len(a.out) > MaxInvocations {
		msg = fmt.Sprintf("more than %d commands", MaxInvocations)
	}
	a.err = &Error{Pos: p, Msg: msg + "; the analysis refuses it rather than spend unbounded time"}
}

// nesting contexts of nestingDepth
const (
	nestParen       = iota // ( $( <( >(
	nestArith              // the second ( of (( and $((: << is a shift there
	nestBrace              // { ...; }
	nestParam              // ${
	nestBracket            // [ $[
	nestDouble             // "
	nestHeredoc            // the body of a here-document whose delimiter is not quoted
	nestBack               // `
	nestCase               // case ... esac: its patterns end in a ) that closes nothing
	nestCompound           // if ... fi, while/until/for/select ... done
	nestElse               // elif and else: the parser nests each in the if before
	nestBackEscaped        // \` inside `...`: a command substitution one level deeper
)

// nestingDepth returns the first offset at which code nests deeper than max,
// or -1. It reads quotes, escapes, comments and here-documents as bash does,
// so that a closing character bash reads as text (in quotes, a comment, a
// here-document, or a case pattern) never hides an opening one. Where it
// cannot tell, it counts an opening and ignores a closing, so it may
// overestimate the depth of odd scripts but does not underestimate it.
//
// Every level of nesting takes at least one byte of its own (an opening, a
// quote, an operator), so code no longer than max is not read at all; the
// tests that check nestingDepth against the parser's own nesting hold this
// shortcut to it too.
func nestingDepth(code string, max int) int {
	if len(code) <= max {
		return -1
	}
	return scanNesting(code, nil, max)
}

type heredoc struct {
	delim        string
	quoted, dash bool
}

func scanNesting(code string, stack []byte, max int) int {
	// The parser holds at once the open constructs (stack) and the links so
	// far of the chain of |, && and || (or arithmetic operators) at each
	// level: links. The tree it builds is deeper: a chain wraps everything
	// inside its operands, so a level is as deep as its longest chain plus
	// the deepest construct inside that chain. frames[i] tracks that for
	// level i; over is set when either depth passes max.
	type frame struct {
		links, inner, height int // this chain's links; its deepest construct; the level's depth so far
	}
	frames := make([]frame, len(stack)+1)
	links := 0
	over := false
	check := func(f *frame) {
		if len(stack)+links > max || len(frames)-1+f.links+f.inner > max || len(frames)-1+f.height > max {
			over = true
		}
	}
	push := func(c byte) bool {
		stack = append(stack, c)
		frames = append(frames, frame{})
		check(&frames[len(frames)-1])
		return over
	}
	top := func() int {
		if len(stack) == 0 {
			return -1
		}
		return int(stack[len(stack)-1])
	}
	endChain := func() {
		f := &frames[len(frames)-1]
		f.height = maxInt(f.height, f.links+f.inner)
		links -= f.links
		f.links, f.inner = 0, 0
	}
	pop := func() {
		endChain()
		h := frames[len(frames)-1].height + 1
		stack = stack[:len(stack)-1]
		frames = frames[:len(frames)-1]
		f := &frames[len(frames)-1]
		f.inner = maxInt(f.inner, h)
		check(f)
	}
	link := func() bool {
		f := &frames[len(frames)-1]
		f.links++
		links++
		check(f)
		return over
	}
	var pending []heredoc
	cmdStart := true // at the start of a command: } and esac are words there
	letArgs := false // in the arguments of let, which are arithmetic
	wordStart := true
	for i := 0; i < len(code); i++ {
		if over {
			return i
		}
		c := code[i]
		if t := top(); t == nestDouble || t == nestHeredoc {
			switch c {
			case '\\':
				i++
			case '"':
				if t == nestDouble {
					pop()
				}
			case '`':
				if push(nestBack) {
					return i
				}
			case '$':
				if i+1 < len(code) && (code[i+1] == '(' || code[i+1] == '{') {
					kind := byte(nestParen)
					if code[i+1] == '{' {
						kind = nestParam
					}
					i++
					if push(kind) {
						return i
					}
					wordStart, cmdStart = true, true
				}
			}
			continue
		}
		wasWordStart := wordStart
		wordStart = false
		if t := top(); (t == nestArith || t == nestBracket || t == nestParam || letArgs) && strings.IndexByte("+-*/%<>&|^,?:=!", c) >= 0 {
			if link() {
				return i
			}
			continue
		}
		switch c {
		case ' ', '\t':
			wordStart = true
			continue
		case '\n':
			wordStart, cmdStart, letArgs = true, true, false
			endChain()
			// Here-document bodies start after the line that names them.
			for _, h := range pending {
				body, next := heredocBody(code, i+1, h.delim, h.dash)
				if !h.quoted {
					inner := append(append([]byte(nil), stack...), nestHeredoc)
					if off := scanNesting(body, inner, max); off >= 0 {
						return i + 1 + off
					}
				}
				i = next - 1
			}
			pending = pending[:0]
			continue
		case '\\':
			if i+1 < len(code) && code[i+1] == '`' && slices.Contains(stack, nestBack) {
				i++
				if top() == nestBackEscaped {
					pop()
				} else if push(nestBackEscaped) {
					return i
				}
				wordStart, cmdStart = true, true
				continue
			}
			i++
		case '\'':
			j := indexByteFrom(code, i+1, '\'')
			if j < 0 {
				return -1 // unterminated: the parser refuses it
			}
			i = j
		case '"':
			if push(nestDouble) {
				return i
			}
		case '`':
			if top() == nestBack {
				pop()
			} else if push(nestBack) {
				return i
			}
			wordStart, cmdStart = true, true
			continue
		case '#':
			if wasWordStart {
				j := indexByteFrom(code, i, '\n')
				if j < 0 {
					return -1
				}
				i = j - 1
				continue
			}
		case '$':
			if i+1 < len(code) {
				switch code[i+1] {
				case '\'':
					i = skipANSI(code, i+2)
				case '{', '[':
					kind := byte(nestParam)
					if code[i+1] == '[' {
						kind = nestBracket
					}
					i++
					if push(kind) {
						return i
					}
				case '(':
					i++
					if push(nestParen) {
						return i
					}
					if i+1 < len(code) && code[i+1] == '(' {
						i++
						if push(nestArith) {
							return i
						}
					}
					wordStart, cmdStart = true, true
					continue
				}
			}
		case '(':
			kind := byte(nestParen)
			if top() == nestParen && i > 0 && code[i-1] == '(' {
				kind = nestArith
			}
			if push(kind) {
				return i
			}
			wordStart, cmdStart = true, true
			continue
		case ')':
			if t := top(); t == nestParen || t == nestArith {
				pop()
			}
			wordStart, cmdStart = true, true
			continue
		case '[':
			if push(nestBracket) {
				return i
			}
		case ']':
			if top() == nestBracket {
				pop()
			}
		case '{':
			if i+1 >= len(code) || code[i+1] == ' ' || code[i+1] == '\t' || code[i+1] == '\n' {
				if push(nestBrace) {
					return i
				}
				// a command follows the brace: f(){ for ...; done; }
				wordStart, cmdStart = true, true
				continue
			}
		case '}':
			if top() == nestParam || (top() == nestBrace && cmdStart) {
				pop()
			}
		case ';', '&', '|':
			if c == '&' && (i > 0 && (code[i-1] == '>' || code[i-1] == '<') || i+1 < len(code) && code[i+1] == '>') {
				break // >&, <&, &> and &>> redirect
			}
			wordStart, cmdStart = true, true
			if c != '|' {
				letArgs = false
			}
			if c == '|' || (c == '&' && i+1 < len(code) && code[i+1] == '&') {
				if c == '&' || (i+1 < len(code) && code[i+1] == '|') {
					i++ // && and || are one link, as | is
				}
				if link() {
					return i
				}
			} else {
				endChain()
			}
			continue
		case '<':
			switch {
			case strings.HasPrefix(code[i:], "<<<"):
				i += 2
			case strings.HasPrefix(code[i:], "<<") && top() != nestArith:
				h, next := heredocStart(code, i+2)
				pending = append(pending, h)
				i = next - 1
			case strings.HasPrefix(code[i:], "<<"):
				i++
			}
		default:
			if wasWordStart && isWord(code, i, "case") {
				if push(nestCase) {
					return i
				}
			} else if wasWordStart && cmdStart && isWord(code, i, "esac") && top() == nestCase {
				pop()
			} else if wasWordStart && cmdStart && compoundStart(code, i) {
				if push(nestCompound) {
					return i
				}
				if isWord(code, i, "if") || isWord(code, i, "while") || isWord(code, i, "until") {
					i = skipWord(code, i) - 1 // a command follows: still at its start
					continue
				}
			} else if wasWordStart && cmdStart && (isWord(code, i, "elif") || isWord(code, i, "else")) && (top() == nestCompound || top() == nestElse) {
				if push(nestElse) {
					return i
				}
				i = skipWord(code, i) - 1
				continue
			} else if wasWordStart && cmdStart && isWord(code, i, "let") {
				letArgs = true
			} else if wasWordStart && cmdStart && leadsCommand(code, i) {
				i = skipWord(code, i) - 1
				continue
			} else if wasWordStart && cmdStart && (isWord(code, i, "fi") || isWord(code, i, "done")) && (top() == nestCompound || top() == nestElse) {
				for top() == nestElse {
					pop()
				}
				if top() == nestCompound {
					pop()
				}
			}
		}
		cmdStart = false
	}
	endChain()
	check(&frames[len(frames)-1])
	if over {
		return maxInt(len(code)-1, 0)
	}
	return -1
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// heredocStart reads the delimiter word after << or <<- at i.
func heredocStart(code string, i int) (h heredoc, next int) {
	if i < len(code) && code[i] == '-' {
		h.dash = true
		i++
	}
	for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
		i++
	}
	var d []byte
	for ; i < len(code); i++ {
		c := code[i]
		switch c {
		case ' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')':
			h.delim = string(d)
			return h, i
		case '\'', '"':
			h.quoted = true
			j := indexByteFrom(code, i+1, c)
			if j < 0 {
				j = len(code)
			}
			d = append(d, code[i+1:j]...)
			i = j
		case '\\':
			h.quoted = true
			if i+1 < len(code) {
				d = append(d, code[i+1])
				i++
			}
		default:
			d = append(d, c)
		}
	}
	h.delim = string(d)
	return h, i
}

// heredocBody returns the body of a here-document starting at offset start
// and the offset after its delimiter line.
func heredocBody(code string, start int, delim string, dash bool) (string, int) {
	for i := start; i < len(code); {
		end := indexByteFrom(code, i, '\n')
		if end < 0 {
			end = len(code)
		}
		line := code[i:end]
		if dash {
			for len(line) > 0 && line[0] == '\t' {
				line = line[1:]
			}
		}
		if line == delim {
			return code[start:i], min(end+1, len(code))
		}
		i = end + 1
	}
	return code[start:], len(code)
}

func skipANSI(code string, i int) int {
	for ; i < len(code); i++ {
		switch code[i] {
		case '\\':
			i++
		case '\'':
			return i
		}
	}
	return len(code)
}

func indexByteFrom(s string, from int, c byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// compoundStart reports whether a compound command that ends in fi or done
// starts at i.
func compoundStart(code string, i int) bool {
	for _, w := range []string{"if", "while", "until", "for", "select"} {
		if isWord(code, i, w) {
			return true
		}
	}
	return false
}

// leadsCommand reports whether a reserved word after which a command starts
// (then, do, else, elif, !, time) is at i.
func leadsCommand(code string, i int) bool {
	for _, w := range []string{"then", "do", "else", "elif", "!", "time"} {
		if isWord(code, i, w) {
			return true
		}
	}
	return false
}

// skipWord returns the offset after the word at i.
func skipWord(code string, i int) int {
	for i < len(code) && strings.IndexByte(" \t\n;&|)", code[i]) < 0 {
		i++
	}
	return i
}

// isWord reports whether s has the whole word w at i.
func isWord(s string, i int, w string) bool {
	if len(s)-i < len(w) || s[i:i+len(w)] != w {
		return false
	}
	if j := i + len(w); j < len(s) {
		switch s[j] {
		case ' ', '\t', '\n', ';', '&', '|', ')':
		default:
			return false
		}
	}
	return true
}

func nestingError(max int) string {
	return fmt.Sprintf("code nested more than %d levels deep (parentheses, braces, substitutions, quotes, if and loops, chains of |, && and ||); the analysis refuses it rather than spend unbounded time", max)
}
