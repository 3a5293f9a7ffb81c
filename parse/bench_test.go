package parse

import (
	"strings"
	"testing"
)

var everyday = []string{
	"ls -la",
	"git status --short && git diff --stat",
	"go test ./... 2>&1 | tail -n 20",
	`grep -rn "TODO" --include='*.go' . | head -50`,
	"cd /tmp && tar xzf x.tgz && rm -rf x",
	`find . -name '*.o' -exec rm -f {} +`,
	`for f in *.txt; do echo "$f: $(wc -l < "$f")"; done`,
	`sudo -u app env FOO=1 python3 -c 'print(1)'`,
}

// script10k is a ~10 KB script of everyday commands.
var script10k = func() string {
	var sb strings.Builder
	for sb.Len() < 10<<10 {
		for _, s := range everyday {
			sb.WriteString(s)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}()

func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, src string }{
		{"everyday", strings.Join(everyday[:1], "")},
		{"pipeline", everyday[2]},
		{"loop", everyday[6]},
		{"wrappers", everyday[7]},
		{"10KB", script10k},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(bc.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
