// Package parse turns shell text into the list of commands it would run, with
// mvdan.cc/sh/v3/syntax in bash mode. It does no I/O and knows nothing of policy.
//
// # What Parse reports
//
// [Parse] returns one [Invocation] for every command the script can run,
// wherever it sits: in lists and pipelines, subshells and { } blocks, function
// bodies (reported where the function is defined, with Via "function f"),
// if/while/until/for/select/case bodies, command and process substitutions
// (also inside double quotes, assignments, redirections, here-documents,
// arithmetic, array indices, parameter expansions and [[ ]] tests), the code of
// `trap` and `mapfile -C`, and strings that a shell reads again as code:
// `bash|sh|dash|zsh|ksh|... -c STRING`, `eval ARGS`, a here-document or
// here-string fed to a shell that has no script argument, and the command
// templates of `watch`, `parallel`, `su -c`, `script -c`, `flock -c`.
// Those strings are parsed recursively, at most [MaxDepth] levels deep; deeper
// nesting is an error. Invocations found inside a string report the position of
// the word that holds the string.
//
// Wrappers are seen through: `sudo -u root env -i FOO=1 nice -n 5 rm -rf /tmp/x`
// yields an invocation for each of sudo, env, nice and rm; the wrapped command
// lists its wrappers in Via ("sudo", "env", "nice") and inherits the wrapper's
// redirections' context (PipedInto, Background). The wrapper's own invocation
// keeps all its arguments, so a policy can judge either. `find -exec`,
// `xargs` and `parallel` mark the arguments they fill in at run time as dynamic.
//
// # How words are resolved
//
// Words are resolved as bash would before running the command: quotes and
// backslashes are removed, $'...' escapes are decoded (bash does this
// statically), brace expansion is applied ({rm,-rf,/} is three words, so the
// command is rm), and a tilde stays as the text "~". A word whose value
// depends on the run – parameter expansion, command or process substitution,
// arithmetic, $"..." translation, or an unquoted glob – is Dynamic: its text is
// then the word's source text. Dynamic is a fact about the text, never a guess.
// When a command word is Dynamic, the Invocation has Dynamic set; when a shell
// or eval gets a Dynamic string, an extra Invocation with Dynamic set stands for
// the code that cannot be known.
//
// # What is refused
//
// Parse returns an [*Error] rather than an analysis that bash could read
// differently: invalid UTF-8, NUL, CR and other control characters, Unicode
// spaces, zero-width and bidirectional characters (see checkText); extended
// globs @(...) !(...) etc., whose meaning depends on `shopt extglob`; coproc
// clauses the parser reads differently from bash (see analyzer.coproc);
// mksh/bash-5.3 ${ cmd;} substitutions; alias definitions (bash may expand
// them) other than plain words naming a program, which are read as a
// function of those words (alias ll='ls -la' is ll(){ ls -la "$@"; }); $'...' escapes whose value depends on the locale or that produce NUL;
// brace expansions of more than 16Ki words (counted before expanding);
// scripts over [MaxScriptSize]; scripts past the analysis budget (nesting or
// chains deeper than [MaxNesting], more than [MaxInvocations] commands, more
// than [MaxWordBytes] of words, more than [MaxParsedBytes] of code to parse);
// and anything mvdan.cc/sh cannot parse as bash.
package parse

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// errInternal starts the message of an Error that is a bug in this package.
const errInternal = "internal error (bug in stockade/parse)"

// MaxDepth bounds how deeply strings read again as code (sh -c, eval, here
// documents fed to a shell, ...) are parsed.
const MaxDepth = 8

// Pos is a 1-based line and column in the script text. The column counts bytes.
type Pos struct {
	Line uint `json:"line"`
	Col  uint `json:"col"`
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Error is a script Parse refuses to analyse, with the position that made it refuse.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg) }

// Redirect is one redirection of an invocation.
type Redirect struct {
	Op      string `json:"op"`           // ">", ">>", "<", "&>", ">|", "<>", "<<<", "<<", "<<-", ">&", "<&", "&>>"
	FD      string `json:"fd,omitempty"` // explicit descriptor before Op: "2" in 2>file, "{v}" in {v}>file
	Target  string `json:"target"`       // resolved word, or its source text when Dynamic; the body for << and <<-
	Dynamic bool   `json:"dynamic,omitempty"`
}

// Invocation is one command the script would run.
type Invocation struct {
	Name    string   `json:"name"`              // resolved command word; source text when Dynamic
	Args    []string `json:"args"`              // resolved arguments after Name
	Dynamic bool     `json:"dynamic,omitempty"` // the command word cannot be known without running something
	// DynamicArgs[i] is true when Args[i] cannot be known without running
	// something (its text is then the word's source text). After a dynamic
	// argument, the count and index of later arguments are not certain either:
	// an unquoted $x may split into many words or none.
	DynamicArgs []bool `json:"dynamic_args,omitempty"`
	// Env lists NAME=VALUE assignments given to this command only
	// (FOO=1 cmd, env FOO=1 cmd, sudo FOO=1 cmd); VALUE is source text when dynamic.
	Env       []string   `json:"env,omitempty"`
	Pos       Pos        `json:"pos"`
	Redirects []Redirect `json:"redirects,omitempty"`
	// Background is true when the command runs asynchronously (cmd &, or inside
	// a list run with &).
	Background bool `json:"background,omitempty"`
	// EndlessLoop is true inside the body of a loop whose condition never
	// ends it: while true, while :, until false, for ((;;)).
	EndlessLoop bool `json:"endless_loop,omitempty"`
	// Via lists, outermost first, what this invocation was found inside of:
	// "$(...)", "`...`", "<(...)", ">(...)", "bash -c", "eval", "bash <<",
	// "trap", "sudo", "xargs", "find -exec", "function f", ...
	Via []string `json:"via,omitempty"`
	// InlineCode is interpreter code passed on the command line (python -c, node -e, ...).
	InlineCode *InlineCode `json:"inline_code,omitempty"`
	// PipedInto is true when standard input comes from an earlier command of a
	// pipeline. Wrapped commands inherit it from their wrapper: for xargs,
	// parallel and the like the piped data reaches them as arguments.
	PipedInto bool `json:"piped_into,omitempty"`
	// Function is true when a shell function of this name is defined somewhere
	// in the script; the function's body is reported where it is defined.
	Function bool `json:"function,omitempty"`
}

// InlineCode is program text handed to an interpreter in an argument or here-document.
type InlineCode struct {
	Interpreter string `json:"interpreter"` // base name of the interpreter: "python3", "bash", "awk", ...
	Code        string `json:"code"`        // the program; source text when Dynamic
	Dynamic     bool   `json:"dynamic,omitempty"`
}

// Assignment is a shell variable set for the rest of the script (FOO=1 alone,
// or through export, declare, local, readonly, typeset).
type Assignment struct {
	Name    string `json:"name"`
	Value   string `json:"value"` // resolved value; source text when Dynamic
	Dynamic bool   `json:"dynamic,omitempty"`
	Pos     Pos    `json:"pos"`
	// Uncertain: the assignment may not run, or runs in another process
	// (in a subshell, pipeline, branch, loop, function body, substitution,
	// or after && or ||), so it may not hold after it.
	Uncertain bool `json:"uncertain,omitempty"`
	// Items: for a for loop over words of static text (for f in
	// ~/.aws/credentials ~/.config/gcloud/*.json), each value the variable
	// takes, as written; nil otherwise.
	Items []string `json:"items,omitempty"`
}

// Script is the analysis of one script.
type Script struct {
	Invocations []Invocation `json:"invocations"`
	Assignments []Assignment `json:"assignments,omitempty"`
}

var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// Parse analyses src as a bash script. The error, if any, is an *Error.
func Parse(src string) (s *Script, err error) {
	if len(src) > MaxScriptSize {
		return nil, &Error{Pos: Pos{1, 1}, Msg: fmt.Sprintf("script is larger than %d bytes", MaxScriptSize)}
	}
	a := analyzers.Get().(*analyzer)
	a.start(src)
	defer func() {
		// A panic here is a bug; fail closed with an error that says so.
		if r := recover(); r != nil {
			s, err = nil, &Error{Pos: Pos{1, 1}, Msg: fmt.Sprintf("%s: %v", errInternal, r)}
		}
		a.release()
	}()
	a.lines = lineStarts(a.lineBuf[:0], src)
	a.parseCode(&frame{src: src}, src, "")
	for _, se := range a.setupEvals {
		if a.funcs[se.tool] {
			// the function's output is what eval runs: unknown code
			a.out = append(a.out, Invocation{Name: se.w.text, Args: []string{}, Dynamic: true, Pos: se.w.pos, Via: se.via,
				Background: se.background, EndlessLoop: se.endless})
		}
	}
	if a.err == nil && len(a.out) > MaxInvocations {
		a.overBudget(Pos{1, 1})
	}
	if a.err != nil {
		return nil, a.err
	}
	for i := range a.out {
		inv := &a.out[i]
		if !inv.Dynamic && a.funcs[inv.Name] {
			inv.Function = true
		}
		if inv.Args == nil {
			inv.Args = []string{}
		}
		if !anyTrue(inv.DynamicArgs) {
			inv.DynamicArgs = nil
		}
	}
	return &Script{Invocations: a.out, Assignments: a.assigns}, nil
}

// analyzers holds the analyzers of finished Parse calls for the next, with
// their scratch buffer: a check then allocates no analyzer (half a
// kilobyte with its arrays). An analyzer in the pool holds nothing of its
// script: release zeroes it but for the capacity of buf, whose bytes are
// copied out of it; what Parse returns (out, assigns, the strs that Args
// are cut from) is never used again.
var analyzers = sync.Pool{New: func() any { return &analyzer{} }}

// start makes a, new or released, the analyzer of src.
func (a *analyzer) start(src string) {
	a.src = src
	// About one invocation per 40 bytes of script, two at least: an
	// Invocation is 184 bytes, and most scripts are one or two commands.
	a.out = make([]Invocation, 0, 2+len(src)/40)
	a.stack = a.stackBuf[:0]
}

// release zeroes a and gives it back to analyzers; a must not be used
// after. A buf grown past maxPooledBuf by a long word is let go.
func (a *analyzer) release() {
	buf := a.buf[:0]
	if cap(buf) > maxPooledBuf {
		buf = nil
	}
	*a = analyzer{buf: buf}
	analyzers.Put(a)
}

// maxPooledBuf bounds the scratch buffer a pooled analyzer keeps.
const maxPooledBuf = 4 << 10

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

func lineStarts(starts []int, s string) []int {
	starts = append(starts, 0)
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// posAt converts a byte offset of the top-level script into a Pos.
func (a *analyzer) posAt(off int) Pos {
	if off > len(a.src) {
		off = len(a.src)
	}
	line := sort.Search(len(a.lines), func(i int) bool { return a.lines[i] > off }) - 1
	return Pos{Line: uint(line + 1), Col: uint(off - a.lines[line] + 1)}
}

// parseCode parses code (the top-level script when f.outer is nil, otherwise a
// string read again as code) and walks it. via is appended to f.via for what
// is found inside.
func (a *analyzer) parseCode(f *frame, code, via string) {
	if a.err != nil {
		return
	}
	inner := *f
	if via != "" {
		inner.via = appendVia(f.via, via)
	}
	if f.outer != nil || via != "" {
		// A string read again as code: positions map to the word holding it.
		if inner.depth >= MaxDepth {
			a.fail(f, syntax.Pos{}, fmt.Sprintf("code nested more than %d levels deep (%s)", MaxDepth, strings.Join(inner.via, " > ")))
			return
		}
		inner.depth++
		inner.src = code
	}
	off, msg := checkText(code)
	if off < 0 {
		if off = nestingDepth(code, MaxNesting); off >= 0 {
			msg = nestingError(MaxNesting)
		}
	}
	if off < 0 {
		if a.parsed += len(code); a.parsed > MaxParsedBytes {
			off, msg = 0, fmt.Sprintf("more than %d bytes of code to parse, counting strings read again as code (eval, bash -c); the analysis refuses it rather than spend unbounded time", MaxParsedBytes)
		}
	}
	if off >= 0 {
		if inner.outer == nil {
			a.err = &Error{Pos: a.posAt(off), Msg: msg}
		} else {
			a.err = &Error{Pos: *inner.outer, Msg: "in " + via + " code: " + msg}
		}
		return
	}
	p := parsers.Get().(*syntax.Parser)
	a.reader.Reset(code)
	file, err := p.Parse(&a.reader, "")
	parsers.Put(p)
	if err != nil {
		msg := err.Error()
		var sp syntax.Pos
		switch e := err.(type) {
		case syntax.ParseError:
			sp, msg = e.Pos, e.Text
		case syntax.LangError:
			sp, msg = e.Pos, fmt.Sprintf("%s is not supported in bash", e.Feature)
		}
		if inner.outer != nil {
			msg = fmt.Sprintf("in %s code: %d:%d: %s", via, sp.Line(), sp.Col(), msg)
		}
		a.fail(&inner, sp, msg)
		return
	}
	a.stmts(&inner, file.Stmts)
}

func appendVia(via []string, v string) []string {
	out := make([]string, len(via), len(via)+1)
	copy(out, via)
	return append(out, v)
}
