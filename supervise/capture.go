package supervise

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// Truncation says which part of a stream longer than the limit a result keeps.
type Truncation string

const (
	TruncateHead   Truncation = "head"   // the first Limit characters
	TruncateMiddle Truncation = "middle" // the first and the last Limit/2 characters
)

// DefaultLimit is how many characters of each stream a result carries.
const DefaultLimit = 30000

// Output is one captured stream, ready to return.
type Output struct {
	Text       string `json:"text"`
	Truncated  bool   `json:"truncated"`
	TotalBytes int64  `json:"total_bytes"`
	// FullPath is the file that holds the whole stream, when Text does not.
	FullPath string `json:"full_output_path,omitempty"`
}

// Capture records one stream with bounded memory: the first bytes (and, in
// middle mode, the last) stay in memory; once the stream is longer than that,
// everything goes to a spill file instead, so a command that writes gigabytes
// costs disk, not memory.
type Capture struct {
	limit     int
	mode      Truncation
	keep      int // bytes kept in memory at each end: enough for limit characters
	head      []byte
	tail      []byte // middle mode: the newest bytes, at most 2*keep before compaction
	total     int64
	spillDir  string
	spillName string
	spill     *os.File
	spillErr  error
	onData    func([]byte)
}

// NewCapture records a stream; the whole stream goes to a file in spillDir
// (named after spillName) once it is too long to return; onData, if set, sees
// every write as it comes.
func NewCapture(limit int, mode Truncation, spillDir, spillName string, onData func([]byte)) *Capture {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Capture{limit: limit, mode: mode, keep: 4 * limit, spillDir: spillDir, spillName: spillName, onData: onData}
}

// Write never fails, so a copy into it never stops reading the command's output
// (a stalled reader would block the command); a spill-file error is reported in
// the rendered notice instead.
func (c *Capture) Write(p []byte) (int, error) {
	if c.onData != nil {
		c.onData(p)
	}
	c.total += int64(len(p))
	if room := c.keep - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(room, len(p))]...)
	}
	if c.mode == TruncateMiddle {
		c.tail = append(c.tail, p...)
		if len(c.tail) > 2*c.keep {
			c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.keep:]...)
		}
	}
	if c.total > int64(c.keep) {
		if c.spill == nil && c.spillErr == nil {
			c.openSpill(c.head[:c.total-int64(len(p))])
		}
		if c.spill != nil {
			if _, err := c.spill.Write(p); err != nil {
				c.spillErr = err
				c.spill.Close()
				c.spill = nil
			}
		}
	}
	return len(p), nil
}

// openSpill starts the spill file with what came before the current write.
func (c *Capture) openSpill(before []byte) {
	f, err := os.CreateTemp(c.spillDir, c.spillName+"-*.txt")
	if err == nil {
		_, err = f.Write(before)
	}
	if err != nil {
		c.spillErr = err
		if f != nil {
			f.Close()
		}
		return
	}
	c.spill = f
}

// Finish renders the stream: escape sequences stripped, valid UTF-8, at most
// limit characters plus a notice saying how much there was and where all of it is.
func (c *Capture) Finish() Output {
	out := Output{TotalBytes: c.total}
	inMemory := c.total <= int64(c.keep)
	text := CleanText(c.head)
	n := utf8.RuneCountInString(text)
	if inMemory && n <= c.limit {
		out.Text = text
		return out
	}
	out.Truncated = true
	if c.spill == nil && c.spillErr == nil {
		c.openSpill(c.head)
	}
	if c.spill != nil {
		out.FullPath = c.spill.Name()
		c.spill.Close()
		c.spill = nil
	}
	var shown string
	if c.mode == TruncateMiddle {
		half := c.limit / 2
		last := text
		if !inMemory {
			last = CleanText(c.tail)
		}
		shown = firstRunes(text, half) + "\n\n[... stockade: middle of the output omitted ...]\n\n" + lastRunes(last, c.limit-half)
	} else {
		shown = firstRunes(text, c.limit)
	}
	notice := fmt.Sprintf("\n\n[stockade: output truncated: %d bytes in all, the first", c.total)
	if c.mode == TruncateMiddle {
		notice = fmt.Sprintf("\n\n[stockade: output truncated: %d bytes in all, the first and last", c.total)
	}
	notice += fmt.Sprintf(" %d characters shown", c.limit)
	switch {
	case out.FullPath != "":
		notice += "; full output in " + out.FullPath + "]"
	case c.spillErr != nil:
		notice += "; the full output could not be saved: " + c.spillErr.Error() + "]"
	default:
		notice += "]"
	}
	out.Text = shown + notice
	return out
}

// Discard removes the spill file of a capture whose result is not returned.
func (c *Capture) Discard() {
	if c.spill != nil {
		c.spill.Close()
		os.Remove(c.spill.Name())
		c.spill = nil
	}
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func lastRunes(s string, n int) string {
	i := len(s)
	for i > 0 && n > 0 {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		n--
	}
	return s[i:]
}

// CleanText strips terminal escape sequences and makes the text valid UTF-8, so
// a model reads plain text and the JSON-RPC response cannot break.
func CleanText(b []byte) string {
	return strings.ToValidUTF8(stripANSI(b), "\uFFFD")
}

// stripANSI removes CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other
// two-byte escapes.
func stripANSI(b []byte) string {
	if !hasEscape(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == 0x1b && i+1 < len(b) && b[i+1] == '[':
			i = skipCSI(b, i+2)
		case c == 0x1b && i+1 < len(b) && (b[i+1] == ']' || b[i+1] == 'P' || b[i+1] == '_' || b[i+1] == '^'):
			i = skipString(b, i+2)
		case c == 0x1b && i+1 < len(b):
			i++ // a two-byte escape such as ESC ( B or ESC =
		case c == 0x1b:
			// a lone escape at the end
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == 0x1b {
			return true
		}
	}
	return false
}

// skipCSI returns the index of the final byte of a control sequence starting at i.
func skipCSI(b []byte, i int) int {
	for ; i < len(b); i++ {
		if b[i] >= 0x40 && b[i] <= 0x7e {
			return i
		}
	}
	return len(b) - 1
}

// skipString returns the index of the end of an OSC/DCS string (BEL or ESC \).
func skipString(b []byte, i int) int {
	for ; i < len(b); i++ {
		if b[i] == 0x07 {
			return i
		}
		if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
			return i + 1
		}
	}
	return len(b) - 1
}
