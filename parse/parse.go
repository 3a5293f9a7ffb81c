// Package parse turns shell text into the list of commands it would run, with
// mvdan.cc/sh/v3/syntax in bash mode. It does no I/O and knows nothing of policy.
package parse

// Pos is a 1-based line and column in the script text.
type Pos struct {
	Line uint `json:"line"`
	Col  uint `json:"col"`
}

// Redirect is one redirection of an invocation.
type Redirect struct {
	Op      string `json:"op"`     // ">", ">>", "<", "&>", ">|", "<>", "<<<", ...
	Target  string `json:"target"` // resolved word, or its source text when Dynamic
	Dynamic bool   `json:"dynamic,omitempty"`
}

// Invocation is one command the script would run.
type Invocation struct {
	Name       string     `json:"name"`              // resolved command word; source text when Dynamic
	Args       []string   `json:"args"`              // resolved arguments after Name
	Dynamic    bool       `json:"dynamic,omitempty"` // the command word cannot be known without running something
	Pos        Pos        `json:"pos"`
	Redirects  []Redirect `json:"redirects,omitempty"`
	Background bool       `json:"background,omitempty"`
	// Via lists, outermost first, what this invocation was found inside of:
	// "pipeline", "$(...)", "<(...)", "bash -c", "eval", "sudo", "xargs", "function f", ...
	Via []string `json:"via,omitempty"`
	// InlineCode is interpreter code passed on the command line (python -c, node -e, ...).
	InlineCode *InlineCode `json:"inline_code,omitempty"`
	// PipedInto is true when standard input comes from an earlier command of a pipeline.
	PipedInto bool `json:"piped_into,omitempty"`
}

// InlineCode is program text handed to an interpreter in an argument or here-document.
type InlineCode struct {
	Interpreter string `json:"interpreter"`
	Code        string `json:"code"`
}

// Script is the analysis of one script.
type Script struct {
	Invocations []Invocation `json:"invocations"`
}
