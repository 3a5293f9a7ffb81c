package parse

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// analyzer holds the state of one Parse call.
type analyzer struct {
	src     string // the top-level script
	lines   []int  // offsets of line starts in src, in lineBuf while they fit
	lineBuf [4]int
	out     []Invocation
	assigns []Assignment
	funcs   map[string]bool
	err     *Error

	// setupEvals: eval "$(TOOL ...)" of a tool's setup or completion code,
	// taken as such unless the script defines a function of its name
	setupEvals []setupEval

	stack []word // words of the commands being walked; see pushWords
	// stackBuf is where stack starts: an everyday command has a few
	// words, which then take no allocation of their own.
	stackBuf [8]word
	buf      []byte   // scratch space for resolving words
	strs     []string // free space for the Args of invocations; see newStrings
	// reader is what the parser reads code from (parseCode): one for
	// every string parsed, as the parser is done with it when it returns.
	reader strings.Reader

	// work spent so far, against the bounds in budget.go
	parsed    int // bytes of code given to the parser
	wordBytes int // bytes of resolved words
}

// frame is where the walker stands: the text being walked and the context that
// every invocation found there inherits.
type frame struct {
	src        string   // the text the current AST was parsed from
	outer      *Pos     // position of the word holding src, when src is not the script
	depth      int      // how many strings deep src is
	via        []string // see Invocation.Via
	piped      bool     // standard input comes from a pipe
	background bool
	endless    bool // inside the body of a loop that never ends (while true)
	// uncertain: what runs here may not run, or runs in another process
	// (a subshell, a pipeline, a branch, a loop, a function body, a
	// substitution, code read again): an assignment here may not hold
	// after it.
	uncertain bool
	// placeholder, when set, is text a wrapper (xargs -I, find -exec, parallel)
	// replaces at run time: words containing it are dynamic.
	placeholder string
}

func (a *analyzer) fail(f *frame, p syntax.Pos, msg string) {
	if a.err != nil {
		return
	}
	a.err = &Error{Pos: f.pos(a, p), Msg: msg}
}

// pos converts a position in f.src into a position in the script.
func (f *frame) pos(a *analyzer, p syntax.Pos) Pos {
	if f.outer != nil {
		return *f.outer
	}
	if !p.IsValid() {
		return Pos{1, 1}
	}
	return a.posAt(int(p.Offset()))
}

// source returns the source text of n.
func (f *frame) source(n syntax.Node) string {
	s, e := n.Pos(), n.End()
	if !s.IsValid() || !e.IsValid() {
		return ""
	}
	so, eo := int(s.Offset()), int(e.Offset())
	if so > eo || eo > len(f.src) {
		return ""
	}
	return f.src[so:eo]
}

// nested parses code read again as code (sh -c, eval, ...) found in a word at p.
func (a *analyzer) nested(f *frame, p Pos, code, via string) {
	g := *f
	g.uncertain = true
	if g.outer == nil {
		g.outer = &p
	}
	a.parseCode(&g, code, via)
}

func (a *analyzer) stmts(f *frame, list []*syntax.Stmt) {
	for _, s := range list {
		if a.err != nil {
			return
		}
		a.stmt(f, s)
	}
}

func (a *analyzer) stmt(f *frame, s *syntax.Stmt) {
	g := *f
	if s.Background {
		g.background = true
		g.uncertain = true
	}
	if s.Coprocess || s.Disown {
		a.fail(f, s.Pos(), "mksh and zsh job operators are not supported")
		return
	}
	// Redirections apply to the statement's command; their words are
	// expanded by the shell running the statement.
	redirs, stdin := a.redirects(&g, s.Redirs)
	if a.err != nil {
		return
	}
	if stdin != nil {
		g.piped = false
	}
	switch c := s.Cmd.(type) {
	case nil:
		// Only redirections: `> file`.
		if len(redirs) > 0 {
			a.out = append(a.out, Invocation{Name: "", Pos: g.pos(a, s.Pos()), Redirects: redirs,
				Background: g.background, EndlessLoop: g.endless, Via: g.via, PipedInto: g.piped})
		}
	case *syntax.CallExpr:
		a.call(&g, c, redirs, stdin)
	case *syntax.DeclClause:
		a.decl(&g, c, redirs)
	default:
		a.compound(&g, s.Cmd, redirs)
	}
}

// compound walks a compound command. Its redirections apply to everything in it,
// so they are attached to the invocations directly inside.
func (a *analyzer) compound(f *frame, cmd syntax.Command, redirs []Redirect) {
	start := len(a.out)
	if _, ok := cmd.(*syntax.Block); !ok {
		if b, ok := cmd.(*syntax.BinaryCmd); !ok || b.Op == syntax.Pipe || b.Op == syntax.PipeAll {
			u := *f
			u.uncertain = true
			f = &u
		}
	}
	switch c := cmd.(type) {
	case *syntax.Block:
		a.stmts(f, c.Stmts)
	case *syntax.Subshell:
		a.stmts(f, c.Stmts)
	case *syntax.BinaryCmd:
		a.stmt(f, c.X)
		g := *f
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			g.piped = true
		}
		g.uncertain = true // a && b, a || b: b may not run
		a.stmt(&g, c.Y)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			a.stmts(f, c.Cond)
			a.stmts(f, c.Then)
		}
	case *syntax.WhileClause:
		a.stmts(f, c.Cond)
		g := *f
		g.endless = g.endless || endlessCond(c.Cond, c.Until)
		a.stmts(&g, c.Do)
	case *syntax.ForClause:
		g := *f
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, w := range l.Items {
				a.subs(f, w)
			}
			// The loop assigns its variable: a value earlier in the
			// script no longer holds inside it. Over one file-name
			// pattern of static text (for k in ~/.ssh/id_*), each value
			// is a file the pattern matches: the pattern stands for them,
			// as it does written out as an argument.
			val := "for " + l.Name.Value + " in ..."
			var items []string
			if len(l.Items) == 1 && staticPattern(f.source(l.Items[0])) {
				val = f.source(l.Items[0])
			} else if len(l.Items) > 1 && len(l.Items) <= 64 {
				// Over several words of static text, the variable is each
				// of them in turn (Assignment.Items).
				items = make([]string, 0, len(l.Items))
				for _, w := range l.Items {
					if src := f.source(w); staticWord(src) {
						items = append(items, src)
					} else {
						items = nil
						break
					}
				}
			}
			a.assigns = append(a.assigns, Assignment{Name: l.Name.Value, Value: val, Dynamic: true, Pos: f.pos(a, l.Name.Pos()), Uncertain: true, Items: items})
		case *syntax.CStyleLoop:
			a.subs(f, l.Init)
			a.subs(f, l.Cond)
			a.subs(f, l.Post)
			g.endless = g.endless || l.Cond == nil // for ((;;))
		}
		a.stmts(&g, c.Do)
	case *syntax.CaseClause:
		a.subs(f, c.Word)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				a.subs(f, p)
			}
			a.stmts(f, it.Stmts)
		}
	case *syntax.FuncDecl:
		name := ""
		if c.Name != nil {
			name = c.Name.Value
		}
		if a.funcs == nil {
			a.funcs = map[string]bool{} // most scripts define no function
		}
		a.funcs[name] = true
		g := *f
		g.via = appendVia(f.via, "function "+name)
		g.background, g.piped, g.endless = false, false, false
		a.stmt(&g, c.Body)
		return // redirections of a definition apply when it is called
	case *syntax.ArithmCmd:
		a.subs(f, c.X)
	case *syntax.TestClause:
		a.subs(f, c.X)
	case *syntax.LetClause:
		args := make([]string, len(c.Exprs))
		for i, e := range c.Exprs {
			a.subs(f, e)
			args[i] = f.source(e)
		}
		a.out = append(a.out, Invocation{Name: "let", Args: args, DynamicArgs: make([]bool, len(args)),
			Pos: f.pos(a, c.Pos()), Background: f.background, EndlessLoop: f.endless, Via: f.via, PipedInto: f.piped})
	case *syntax.TimeClause:
		if c.Stmt != nil {
			g := *f
			g.via = appendVia(f.via, "time")
			a.stmt(&g, c.Stmt)
		}
	case *syntax.CoprocClause:
		a.coproc(f, c)
	case *syntax.TestDecl:
		a.fail(f, c.Pos(), "bats @test is not bash")
	default:
		a.fail(f, cmd.Pos(), fmt.Sprintf("unsupported command %T", cmd))
	}
	if len(redirs) > 0 {
		for i := start; i < len(a.out); i++ {
			if len(a.out[i].Via) == len(f.via) {
				a.out[i].Redirects = append(a.out[i].Redirects, redirs...)
			}
		}
	}
}

// coproc walks `coproc [NAME] COMMAND`: bash runs COMMAND in the
// background with its standard input and output piped to the script, and
// NAME only names the array of the pipe's descriptors. Its invocations are
// via "coproc". Bash takes a first
// word as NAME only before a compound command ({ ...; }, ( ... ), while ...).
// The parser reads that, and a plain simple command, as bash does (checked
// against bash in TestCoprocAgainstBash); what it reads differently is
// refused: a NAME that is not a plain name, a first word followed by a
// pipe (coproc rm x | cat), a descriptor number taken for a word
// (coproc 2>/dev/null rm x) and an assignment first (coproc X=1 cmd), which
// bash gives to the command.
func (a *analyzer) coproc(f *frame, c *syntax.CoprocClause) {
	if c.Stmt == nil || c.Stmt.Cmd == nil {
		a.fail(f, c.Pos(), "coproc without a command")
		return
	}
	first := c.Stmt
	for {
		b, ok := first.Cmd.(*syntax.BinaryCmd)
		if !ok {
			break
		}
		first = b.X
	}
	call, simple := first.Cmd.(*syntax.CallExpr)
	switch {
	case c.Name != nil && !syntax.ValidName(c.Name.Lit()):
		a.fail(f, c.Name.Pos(), "coproc name is not a plain name")
		return
	case c.Name != nil && simple, c.Name == nil && simple && first != c.Stmt:
		a.fail(f, c.Pos(), "coproc of a pipeline or list of simple commands: bash and the parser read its first word differently")
		return
	case simple && len(call.Args) > 0 && len(call.Assigns) == 0 && looksLikeAssignment(f.source(call.Args[0])):
		a.fail(f, call.Args[0].Pos(), "coproc followed by an assignment: bash gives it to the command, the parser would run it")
		return
	case simple && len(call.Args) > 0:
		for _, r := range first.Redirs {
			if r.OpPos == call.Args[0].End() {
				a.fail(f, call.Args[0].Pos(), "coproc followed by a redirection of a numbered descriptor: the parser would run the number")
				return
			}
		}
	}
	g := *f
	g.background = true
	g.via = appendVia(f.via, "coproc")
	a.stmt(&g, c.Stmt)
}

// looksLikeAssignment reports whether a word as written starts like a shell
// assignment (NAME=, NAME+=, NAME[...]=).
func looksLikeAssignment(w string) bool {
	i := 0
	for i < len(w) && (w[i] == '_' || 'a' <= w[i] && w[i] <= 'z' || 'A' <= w[i] && w[i] <= 'Z' || i > 0 && '0' <= w[i] && w[i] <= '9') {
		i++
	}
	return i > 0 && i < len(w) && (w[i] == '=' || w[i] == '+' || w[i] == '[')
}

// stdinText is what a here-document or here-string feeds to a command.
type stdinText struct {
	text string
	dyn  bool
	pos  Pos
}

// redirects resolves the redirections of a statement and walks their words.
// stdin is set when standard input is redirected; its text is set for here
// documents and here strings.
func (a *analyzer) redirects(f *frame, rs []*syntax.Redirect) ([]Redirect, *stdinText) {
	var out []Redirect
	var stdin *stdinText
	for _, r := range rs {
		rd := Redirect{Op: r.Op.String()}
		if r.N != nil {
			rd.FD = r.N.Value
		}
		fd0 := rd.FD == "" || rd.FD == "0"
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			text, dyn := a.heredoc(f, r)
			rd.Target, rd.Dynamic = text, dyn
			if fd0 {
				stdin = &stdinText{text: text, dyn: dyn, pos: f.pos(a, r.Pos())}
			}
		default:
			start := len(a.stack)
			src := f.source(r.Word) // before pushWords splits its braces
			n := a.pushWords(f, r.Word)
			if a.err != nil {
				a.stack = a.stack[:start]
				return nil, nil
			}
			if n != 1 {
				// bash: "ambiguous redirect"; the command does not run.
				rd.Target, rd.Dynamic = src, true
			} else {
				rd.Target, rd.Dynamic = a.stack[start].text, a.stack[start].dyn
			}
			a.stack = a.stack[:start]
			switch r.Op {
			case syntax.WordHdoc:
				if fd0 {
					stdin = &stdinText{text: rd.Target + "\n", dyn: rd.Dynamic, pos: ws0pos(a, f, r.Word)}
				}
			case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
				if fd0 {
					stdin = &stdinText{dyn: true}
				}
			}
		}
		out = append(out, rd)
	}
	return out, stdin
}

func ws0pos(a *analyzer, f *frame, w *syntax.Word) Pos { return f.pos(a, w.Pos()) }

// heredoc returns the body of a here-document as the command will read it.
func (a *analyzer) heredoc(f *frame, r *syntax.Redirect) (string, bool) {
	if r.Hdoc == nil {
		return "", false
	}
	a.subs(f, r.Hdoc)
	quoted := false
	for _, p := range r.Word.Parts {
		if l, ok := p.(*syntax.Lit); !ok || strings.ContainsRune(l.Value, '\\') {
			quoted = true
		}
	}
	var sb, src strings.Builder
	dyn := false
	for _, p := range r.Hdoc.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			src.WriteString(p.Value)
			if quoted {
				sb.WriteString(p.Value)
			} else {
				sb.WriteString(unescapeDQ(p.Value, true))
			}
		default:
			src.WriteString(f.source(p))
			dyn = true
		}
	}
	if dyn {
		return src.String(), true
	}
	body := sb.String()
	if r.Op == syntax.DashHdoc {
		lines := strings.SplitAfter(body, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		body = strings.Join(lines, "")
	}
	return body, false
}

// subs walks any node that is not itself a command (words, arithmetic, tests)
// for the commands inside it: command and process substitutions, and
// parameter expansions that evaluate text as code.
func (a *analyzer) subs(f *frame, n syntax.Node) {
	if n == nil || a.err != nil {
		return
	}
	if w, ok := n.(*syntax.Word); ok && (w == nil || plain(w.Parts)) {
		return
	}
	a.walkSubs(*f, n)
}

// plain reports whether parts are only literals and quoted literals, which
// hold nothing subs looks for.
func plain(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !plain(p.Parts) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// walkSubs is subs for a node that may hold something. It takes its frame
// by value: the walk's callback keeps it, and the caller's stays on the stack.
func (a *analyzer) walkSubs(fv frame, n syntax.Node) {
	f := &fv
	syntax.Walk(n, func(n syntax.Node) bool {
		if a.err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst:
			if n.TempFile || n.ReplyVar {
				a.fail(f, n.Pos(), "${ cmd;} substitutions are not supported")
				return false
			}
			g := *f
			g.uncertain = true
			via := "$(...)"
			if n.Backquotes {
				via = "`...`"
			}
			g.via = appendVia(f.via, via)
			a.stmts(&g, n.Stmts)
			return false
		case *syntax.ProcSubst:
			g := *f
			g.uncertain = true
			g.via = appendVia(f.via, n.Op.String()+"...)")
			g.piped = false
			a.stmts(&g, n.Stmts)
			return false
		case *syntax.BinaryArithm:
			// (( B = 1 )), $((B+=2)), arr[B=3]: arithmetic assigns B
			if n.Op == syntax.Assgn || n.Op >= syntax.AddAssgn && n.Op <= syntax.PowAssgn {
				a.arithAssign(f, n.X)
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				a.arithAssign(f, n.X)
			}
		case *syntax.ExtGlob:
			a.fail(f, n.Pos(), "extended glob "+n.Op.String()+"...) is not supported: its meaning depends on shopt extglob")
			return false
		case *syntax.DblQuoted:
			if n.Dollar {
				// $"..." is translated at run time; its parts still expand.
				return true
			}
		case *syntax.ParamExp:
			if n.Excl && n.Names == 0 && n.Exp == nil && n.Repl == nil && n.Slice == nil && !n.Length {
				// ${!x}: the value of x names a variable, and bash evaluates an
				// array subscript in that name, which can run commands.
				a.dynamicCode(f, n.Pos(), f.source(n), "${!...}")
			}
			if n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && n.Exp.Word.Lit() == "P" {
				// ${x@P} expands the value as a prompt string, which runs
				// command substitutions in it.
				a.dynamicCode(f, n.Pos(), f.source(n), "${...@P}")
			}
		}
		return true
	})
}

// dynamicCode records code that will run but cannot be known statically.
func (a *analyzer) dynamicCode(f *frame, p syntax.Pos, text, via string) {
	a.out = append(a.out, Invocation{Name: text, Args: []string{}, Dynamic: true, Pos: f.pos(a, p),
		Background: f.background, EndlessLoop: f.endless, Via: appendVia(f.via, via), PipedInto: f.piped})
}

// decl handles declare, export, local, readonly, typeset and nameref.
func (a *analyzer) decl(f *frame, c *syntax.DeclClause, redirs []Redirect) {
	inv := Invocation{Name: c.Variant.Value, Pos: f.pos(a, c.Pos()), Redirects: redirs,
		Background: f.background, EndlessLoop: f.endless, Via: f.via, PipedInto: f.piped}
	for _, as := range c.Args {
		text, dyn := a.assign(f, as, true)
		if a.err != nil {
			return
		}
		inv.Args = append(inv.Args, text)
		inv.DynamicArgs = append(inv.DynamicArgs, dyn)
	}
	a.out = append(a.out, inv)
}

// assign resolves one assignment to "NAME=VALUE" text, walking it for
// substitutions; record adds it to the script's assignments.
func (a *analyzer) assign(f *frame, as *syntax.Assign, record bool) (string, bool) {
	a.subs(f, as.Index)
	if as.Naked && as.Name == nil {
		// declare option or dynamic name
		start := len(a.stack)
		src := f.source(as.Value) // before pushWords splits its braces
		if a.pushWords(f, as.Value) == 1 {
			w := a.stack[start]
			a.stack = a.stack[:start]
			return w.text, w.dyn
		}
		a.stack = a.stack[:start]
		return src, true
	}
	if as.Name == nil {
		return f.source(as), true
	}
	name := as.Name.Value
	if as.Index != nil {
		name = f.source(as.Name) + "[" + f.source(as.Index) + "]"
	}
	if as.Naked {
		return name, as.Index != nil
	}
	var val string
	dyn := as.Index != nil
	switch {
	case as.Array != nil:
		a.subs(f, as.Array)
		val, dyn = f.source(as.Array), true
	case as.Value != nil:
		v, d := a.assignValue(f, as.Value)
		val, dyn = v, dyn || d
	}
	op := "="
	if as.Append {
		op = "+="
	}
	if record {
		a.assigns = append(a.assigns, Assignment{Name: name, Value: val, Dynamic: dyn, Pos: f.pos(a, as.Pos()), Uncertain: f.uncertain})
	}
	return name + op + val, dyn
}

// assignValue resolves the value of an assignment: no brace expansion or word
// splitting happens there.
func (a *analyzer) assignValue(f *frame, w *syntax.Word) (string, bool) {
	a.subs(f, w)
	r := resolver{buf: a.buf[:0]}
	r.parts(w.Parts, false)
	a.buf = r.buf[:0]
	if r.err != "" {
		a.fail(f, w.Pos(), r.err)
		return "", true
	}
	if r.dyn {
		return f.source(w), true
	}
	return r.String(), false
}

// word is one resolved word.
type word struct {
	text string
	dyn  bool
	pos  Pos
}

// pushWords resolves a word the way bash expands it for a command line and
// appends the result to a.stack: brace expansion may make it many words, an
// empty unquoted one none. It also walks the word for substitutions. It
// returns how many words it pushed.
//
// a.stack is a stack shared by the whole walk: a caller takes the words it
// pushed with a.stack[start:], and truncates the stack back to start when it
// is done with them. Code walked meanwhile (a $(...) in the word, a string
// read again as code) pushes and pops above them.
func (a *analyzer) pushWords(f *frame, w *syntax.Word) int {
	if w == nil || a.err != nil {
		return 0
	}
	a.subs(f, w)
	if a.err != nil {
		return 0
	}
	p := f.pos(a, w.Pos())
	// The source text, taken before SplitBraces rewrites w: the position of
	// a rewritten word whose first element is empty ({,x}) is not defined.
	src := f.source(w)
	if !syntax.SplitBraces(w) {
		if x, keep := a.resolveWord(f, w, src, p); keep {
			a.stack = append(a.stack, x)
			return 1
		}
		return 0
	}
	return a.pushBraces(*f, w, src, p)
}

// pushBraces is pushWords for a word with brace expansion. It takes its
// frame by value, as walkSubs does.
func (a *analyzer) pushBraces(fv frame, w *syntax.Word, src string, p Pos) int {
	f := &fv
	if msg := checkBraces(w); msg != "" {
		if a.err == nil {
			a.err = &Error{Pos: p, Msg: msg}
		}
		return 0
	}
	if braceWords(w) > maxBraceWords {
		if a.err == nil {
			a.err = &Error{Pos: p, Msg: fmt.Sprintf("brace expansion would make more than %d words", maxBraceWords)}
		}
		return 0
	}
	n := 0
	for w2, err := range expand.BracesSeq(nil, w) {
		if err != nil {
			if a.err == nil {
				a.err = &Error{Pos: p, Msg: err.Error()}
			}
			return n
		}
		x, keep := a.resolveWord(f, w2, braceItemSource(f, w2, src), p)
		if a.err != nil {
			return n
		}
		if keep {
			a.stack = append(a.stack, x)
			n++
		}
	}
	return n
}

// braceItemSource returns the source text of w2, one of the words brace
// expansion makes of a word whose source is src: the text of its literal
// parts and the source of the others ({rm,-rf,$HOME} makes rm, -rf and
// $HOME), so that a dynamic item keeps its own text, not the whole word's.
// src when a part has no source to take.
func braceItemSource(f *frame, w2 *syntax.Word, src string) string {
	var b strings.Builder
	for _, part := range w2.Parts {
		if l, ok := part.(*syntax.Lit); ok {
			b.WriteString(l.Value)
			continue
		}
		t := f.source(part)
		if t == "" {
			return src
		}
		b.WriteString(t)
	}
	return b.String()
}

// resolveWord resolves w2, which is a word or one of the words brace
// expansion makes of it; src and p are the source text and position of that
// word. It reports false for a word that expands to nothing.
func (a *analyzer) resolveWord(f *frame, w2 *syntax.Word, src string, p Pos) (word, bool) {
	r := resolver{buf: a.buf[:0], nullable: true}
	r.parts(w2.Parts, false)
	a.buf = r.buf[:0]
	if r.err != "" {
		if a.err == nil {
			a.err = &Error{Pos: p, Msg: r.err}
		}
		return word{}, false
	}
	text := r.String()
	if a.wordBytes += len(text) + len(src); a.wordBytes > MaxWordBytes || len(a.out) > MaxInvocations {
		a.overBudget(p)
		return word{}, false
	}
	if r.dyn || (f.placeholder != "" && strings.Contains(text, f.placeholder)) {
		return word{text: src, dyn: true, pos: p}, true
	}
	return word{text: text, pos: p}, !r.nullable || len(text) > 0
}

// checkBraces refuses letter sequences whose range includes a backslash, such
// as {a..C}: bash yields an empty word for it, mvdan.cc/sh yields none.
func checkBraces(w *syntax.Word) string {
	for _, p := range w.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		if b.Sequence && len(b.Elems) >= 2 {
			x, y := b.Elems[0].Lit(), b.Elems[1].Lit()
			if len(x) == 1 && len(y) == 1 && (x[0] <= '\\') != (y[0] <= '\\') {
				return "brace sequence {" + x + ".." + y + "} crosses non-letters; bash and this analysis differ there"
			}
		}
		for _, e := range b.Elems {
			if msg := checkBraces(e); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// endlessCond reports whether a while (or until) condition is a constant that
// never ends the loop: true or : (false for until).
func endlessCond(cond []*syntax.Stmt, until bool) bool {
	if len(cond) != 1 || cond[0].Negated || len(cond[0].Redirs) > 0 {
		return false
	}
	call, ok := cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || len(call.Assigns) > 0 {
		return false
	}
	switch call.Args[0].Lit() {
	case "true", ":":
		return !until
	case "false":
		return until
	}
	return false
}

// staticPattern reports whether src is a file-name pattern of static text:
// pattern characters, and nothing else the shell would expand but a
// leading ~ or $HOME.
func staticPattern(src string) bool {
	rest := withoutHome(src)
	return rest != "" && strings.ContainsAny(rest, "*?") && !strings.ContainsAny(rest, "$`'\"\\{}()<>|&;~ \t\n")
}

// withoutHome returns src without a leading ~/ or $HOME/ in any spelling.
func withoutHome(src string) string {
	for _, h := range []string{"~/", "$HOME/", "${HOME}/", "\"$HOME\"/", "\"${HOME}\"/"} {
		if r, ok := strings.CutPrefix(src, h); ok {
			return r
		}
	}
	return src
}

// staticWord reports whether src is a word of static text, a file-name
// pattern or not, under the home or not (~/x, $HOME/*.json, build, a.txt).
func staticWord(src string) bool {
	rest := withoutHome(src)
	return rest != "" && !strings.ContainsAny(rest, "$`'\"\\{}()<>|&;~ \t\n=")
}

// arithAssign records the variable an arithmetic expression assigns as
// assigned a value known only at run time, where the assignment may not
// hold (it may be in a branch not taken).
func (a *analyzer) arithAssign(f *frame, x syntax.ArithmExpr) {
	w, ok := x.(*syntax.Word)
	if !ok {
		return
	}
	name := w.Lit()
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i]
	}
	if name == "" {
		return
	}
	a.assigns = append(a.assigns, Assignment{Name: name, Value: "$((" + name + "=...))", Dynamic: true, Pos: f.pos(a, w.Pos()), Uncertain: true})
}
