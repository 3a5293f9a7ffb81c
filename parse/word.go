package parse

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// resolver builds the value of one word after brace expansion. While the
// value is a single piece of the parsed text it is kept as that string, so
// that most words cost no copy; pieces are joined in buf once there are two.
type resolver struct {
	s        string // the value, until joined is set
	buf      []byte // the value, once joined is set
	joined   bool
	dyn      bool
	nullable bool // true until a quoted part is seen: an empty unquoted result is removed
	bracket  bool // an unquoted '[' was seen; a later ']' makes the word a glob
	err      string
}

func (r *resolver) write(s string) {
	switch {
	case r.joined:
		r.buf = append(r.buf, s...)
	case r.s == "":
		r.s = s
	case s != "":
		r.buf = append(append(r.buf[:0], r.s...), s...)
		r.joined = true
	}
}

// String returns the value built so far.
func (r *resolver) String() string {
	if r.joined {
		return string(r.buf)
	}
	return r.s
}

func (r *resolver) parts(parts []syntax.WordPart, inDQ bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if inDQ {
				r.write(unescapeDQ(p.Value, false))
				r.closeBracket(p.Value)
			} else {
				r.unquoted(p.Value)
			}
		case *syntax.SglQuoted:
			r.nullable = false
			if p.Dollar {
				s, err := ansiC(p.Value)
				if err != "" {
					r.err = err
					return
				}
				r.write(s)
				r.closeBracket(s)
			} else {
				r.write(p.Value)
				r.closeBracket(p.Value)
			}
		case *syntax.DblQuoted:
			r.nullable = false
			if p.Dollar {
				r.dyn = true // $"..." is translated through message catalogs
			}
			r.parts(p.Parts, true)
		case *syntax.BraceExp:
			r.err = "internal error: unexpanded brace expression"
			return
		case *syntax.ExtGlob:
			r.err = "extended glob " + p.Op.String() + "...) is not supported: its meaning depends on shopt extglob"
			return
		default: // ParamExp, CmdSubst, ArithmExp, ProcSubst
			r.nullable = false
			r.dyn = true
		}
	}
}

func (r *resolver) closeBracket(s string) {
	if r.bracket && strings.IndexByte(s, ']') >= 0 {
		r.dyn = true
	}
}

// unquoted adds an unquoted literal: backslashes quote the next character, and
// unquoted glob characters make the word dynamic.
func (r *resolver) unquoted(s string) {
	start := 0 // s[start:i] is still to be written
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			r.write(s[start:i])
			start = i + 1
			if i+1 < len(s) {
				i++
				r.write(s[i : i+1])
				start = i + 1
				r.nullable = false
				if s[i] == ']' {
					r.closeBracket("]")
				}
			}
		case '*', '?':
			r.dyn = true
		case '[':
			r.bracket = true
		case ']':
			r.closeBracket("]")
		}
	}
	r.write(s[start:])
}

// unescapeDQ removes the backslashes that quote a character inside double
// quotes ($ ` " \ and newline), or inside an unquoted here-document ($ ` \ and
// newline) when heredoc is set.
func unescapeDQ(s string, heredoc bool) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '\\':
				i++
			case '"':
				if !heredoc {
					i++
				}
			case '\n':
				i++
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// ansiC decodes the body of a $'...' string as bash does. Escapes whose value
// bash takes from the locale (\u and \U beyond ASCII), \c control escapes,
// and escapes that produce NUL (bash cuts the string there) are refused.
func ansiC(s string) (string, string) {
	if !strings.ContainsRune(s, '\\') {
		return s, ""
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			sb.WriteByte(7)
		case 'b':
			sb.WriteByte(8)
		case 'e', 'E':
			sb.WriteByte(27)
		case 'f':
			sb.WriteByte(12)
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'v':
			sb.WriteByte(11)
		case '\\', '\'', '"', '?':
			sb.WriteByte(e)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := 0, 0
			for n < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7' {
				v = v*8 + int(s[i]-'0')
				i++
				n++
			}
			i--
			if v&0xff == 0 {
				return "", "$'...' escape producing NUL is not supported"
			}
			sb.WriteByte(byte(v))
		case 'x', 'u', 'U':
			maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			v, n := 0, 0
			for n < maxDigits && i+1 < len(s) && isHex(s[i+1]) {
				i++
				v = v*16 + hexVal(s[i])
				n++
			}
			switch {
			case n == 0:
				sb.WriteByte('\\')
				sb.WriteByte(e)
			case v == 0:
				return "", "$'...' escape producing NUL is not supported"
			case e == 'x':
				sb.WriteByte(byte(v))
			case v >= 0x80:
				return "", fmt.Sprintf("$'...' escape \\%c%x depends on the locale", e, v)
			default:
				sb.WriteByte(byte(v))
			}
		case 'c':
			return "", "$'...' control escape \\c is not supported"
		default:
			sb.WriteByte('\\')
			sb.WriteByte(e)
		}
	}
	return sb.String(), ""
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}
