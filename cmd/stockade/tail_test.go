package main

import (
	"strings"
	"testing"
)

func TestTailBuffer(t *testing.T) {
	tb := &tailBuffer{max: 10}
	var all strings.Builder
	for i := range 100 {
		chunk := strings.Repeat(string(rune('a'+i%26)), i%7+1)
		if n, err := tb.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
		all.WriteString(chunk)
		want := all.String()
		if len(want) > 10 {
			want = want[len(want)-10:]
		}
		if got := tb.String(); got != want {
			t.Fatalf("after %d writes: %q, want %q", i+1, got, want)
		}
	}
	tb.Write([]byte(strings.Repeat("z", 25)))
	if got := tb.String(); got != strings.Repeat("z", 10) {
		t.Errorf("after a long write: %q", got)
	}
}
