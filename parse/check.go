package parse

import (
	"fmt"
	"unicode/utf8"
)

// MaxScriptSize is the largest script Parse accepts, in bytes.
const MaxScriptSize = 1 << 20

// checkText refuses text that bash and this analysis, or bash and a human
// reviewer, could read differently. It returns the byte offset of the first
// offending character and a message, or -1.
//
// Refused anywhere in the text, quoted or not:
//   - invalid UTF-8 (bash in a UTF-8 locale and in the C locale disagree on it);
//   - NUL (bash drops it silently, the parser would not);
//   - CR (a script with CRLF line ends runs "cmd\r", not "cmd"), and every other
//     C0 or C1 control character except tab and newline;
//   - DEL;
//   - Unicode spaces other than the ASCII space, zero-width characters and
//     bidirectional controls: bash treats them as ordinary word characters, so
//     "rm\u00a0-rf" is one word to bash but two to a reader (Trojan Source).
func checkText(s string) (int, string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\t' || c == '\n':
			case c == 0:
				return i, "NUL byte is not allowed"
			case c == '\r':
				return i, "carriage return is not allowed (CRLF line ends?)"
			case c < 0x20 || c == 0x7f:
				return i, fmt.Sprintf("control character %U is not allowed", rune(c))
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i, "invalid UTF-8"
		}
		if msg := suspiciousRune(r); msg != "" {
			return i, fmt.Sprintf("%s %U is not allowed", msg, r)
		}
		i += size
	}
	return -1, ""
}

func suspiciousRune(r rune) string {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return "control character"
	case r == 0x85, r == 0xa0, r == 0x1680, r >= 0x2000 && r <= 0x200a,
		r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return "Unicode space"
	case r == 0x180e, r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff,
		r == 0x00ad, r == 0x034f, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0:
		return "invisible character"
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069:
		return "bidirectional control"
	case r >= 0xfff9 && r <= 0xfffb, r >= 0xe0000 && r <= 0xe007f:
		return "invisible character"
	}
	return ""
}
