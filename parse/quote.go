package parse

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Quote renders one word as bash text that reads back as the same word,
// quoting only when it must. Every place stockade shows a command uses it.
func Quote(word string) string {
	q, err := syntax.Quote(word, syntax.LangBash)
	if err != nil { // a word bash cannot hold (a NUL byte): still one readable word
		return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
	}
	return q
}

// QuoteArgv renders argv as the shell text that runs it.
func QuoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = Quote(a)
	}
	return strings.Join(parts, " ")
}

// Words renders the invocation's name and arguments as shell text.
func (inv *Invocation) Words() string {
	return QuoteArgv(append([]string{inv.Name}, inv.Args...))
}
