package parse

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxWrap bounds how many wrappers (sudo env nice ...) are seen through.
const maxWrap = 32

// call handles a simple command.
func (a *analyzer) call(f *frame, c *syntax.CallExpr, redirs []Redirect, stdin *stdinText) {
	var env []string
	for _, as := range c.Assigns {
		text, _ := a.assign(f, as, len(c.Args) == 0)
		env = append(env, text)
	}
	// Taken before pushWords: brace expansion rewrites the words, and may
	// leave one with no parts.
	pos := c.Pos()
	start := len(a.stack)
	defer func() { a.stack = a.stack[:start] }()
	for _, w := range c.Args {
		a.pushWords(f, w)
		if a.err != nil {
			return
		}
	}
	// Handlers may change argv's words, never append to it in place.
	argv := a.stack[start:len(a.stack):len(a.stack)]
	if len(argv) == 0 {
		if len(redirs) > 0 {
			a.out = append(a.out, Invocation{Pos: f.pos(a, pos), Args: []string{}, Env: env, Redirects: redirs,
				Background: f.background, EndlessLoop: f.endless, Via: f.via, PipedInto: f.piped})
		}
		return
	}
	inv := a.invocation(f, argv, nil)
	inv.Env = env
	inv.Redirects = redirs
	a.run(f, inv, argv, stdin, 0)
}

// invocation builds the invocation of argv in frame f, inside the wrappers via.
func (a *analyzer) invocation(f *frame, argv []word, via []string) Invocation {
	inv := Invocation{
		Name: argv[0].text, Dynamic: argv[0].dyn, Pos: argv[0].pos,
		Args:       a.newStrings(len(argv) - 1),
		Background: f.background, EndlessLoop: f.endless, PipedInto: f.piped,
		Via: f.via,
	}
	if len(via) > 0 {
		inv.Via = append(append([]string(nil), f.via...), via...)
	}
	for i, w := range argv[1:] {
		inv.Args[i] = w.text
		if w.dyn {
			if inv.DynamicArgs == nil {
				// Left nil when no argument is dynamic, as Parse reports it.
				inv.DynamicArgs = make([]bool, len(argv)-1)
			}
			inv.DynamicArgs[i] = true
		}
	}
	return inv
}

// newStrings returns a slice of n strings, carved from a larger allocation
// shared with other invocations of the script. Its capacity is n, so that
// appending to it copies.
func (a *analyzer) newStrings(n int) []string {
	if n == 0 {
		return nil
	}
	if cap(a.strs)-len(a.strs) < n {
		a.strs = make([]string, 0, max(n, min(len(a.src)/8, 4096)))
	}
	l := len(a.strs)
	a.strs = a.strs[:l+n]
	return a.strs[l : l+n : l+n]
}

// cmdCtx is what a command handler works on.
type cmdCtx struct {
	a     *analyzer
	f     *frame
	idx   int    // index of the invocation in a.out
	argv  []word // argv[0] is the command word
	base  string // base name of the command word
	stdin *stdinText
	wrap  int      // how many wrappers deep
	via   []string // wrappers around this invocation, outermost first
	frame frame    // where f points unless a handler changes f
}

func (c *cmdCtx) inv() *Invocation { return &c.a.out[c.idx] }

// run records inv and looks into what it runs: wrapped commands, shell code
// and interpreter code.
func (a *analyzer) run(f *frame, inv Invocation, argv []word, stdin *stdinText, wrap int) {
	a.runVia(f, inv, argv, stdin, wrap, nil)
}

func (a *analyzer) runVia(f *frame, inv Invocation, argv []word, stdin *stdinText, wrap int, via []string) {
	a.out = append(a.out, inv)
	if inv.Dynamic || a.err != nil {
		return
	}
	base := path.Base(inv.Name)
	if len(base) > 1 && base[0] == '=' && !strings.ContainsRune(base[1:], '=') {
		base = base[1:] // zsh's =bash: the bash on PATH
	}
	if h := handlerFor(base); h != nil {
		// Handlers keep a pointer to their frame: they get a copy, so that
		// f stays on the caller's stack.
		c := &cmdCtx{a: a, idx: len(a.out) - 1, argv: argv, base: base, stdin: stdin, wrap: wrap, via: via, frame: *f}
		c.f = &c.frame
		h(c)
	}
}

// wrapped reports the command a wrapper runs: argv[k:] with extra environment.
// It returns the index of the new invocation, or -1.
func (c *cmdCtx) wrapped(k int, viaName string, env []string, stdin *stdinText) {
	if k < 0 || k >= len(c.argv) {
		return
	}
	if c.wrap >= maxWrap {
		c.failAt(c.argv[0], "too many nested wrappers")
		return
	}
	via := append(append([]string(nil), c.via...), viaName)
	argv := c.argv[k:]
	inv := c.a.invocation(c.f, argv, via)
	inv.Env = env
	inv.PipedInto = c.inv().PipedInto
	c.a.runVia(c.f, inv, argv, stdin, c.wrap+1, via)
}

// unknown records that a wrapper runs a command this analysis cannot name,
// because an option or operand it depends on is dynamic or not understood.
func (c *cmdCtx) unknown(k int, viaName string) {
	if k >= len(c.argv) {
		k = len(c.argv) - 1
	}
	texts := make([]string, 0, len(c.argv)-k)
	for _, w := range c.argv[k:] {
		texts = append(texts, w.text)
	}
	via := append(append(append([]string(nil), c.f.via...), c.via...), viaName)
	c.a.out = append(c.a.out, Invocation{Name: strings.Join(texts, " "), Args: []string{}, Dynamic: true,
		Pos: c.argv[k].pos, Background: c.f.background, EndlessLoop: c.f.endless, PipedInto: c.inv().PipedInto, Via: via})
}

// code parses text that a bash-like shell will read as code.
func (c *cmdCtx) code(w word, viaName string) {
	if text, ok := NumberCode(w.text); ok && w.dyn {
		w.text, w.dyn = text, false // sh -c "make -j$(nproc)" (number_code.go)
	}
	if w.dyn {
		g := *c.f
		g.via = append(append([]string(nil), c.f.via...), c.via...)
		c.a.out = append(c.a.out, Invocation{Name: w.text, Args: []string{}, Dynamic: true, Pos: w.pos,
			Background: c.f.background, EndlessLoop: c.f.endless, PipedInto: c.inv().PipedInto, Via: appendVia(g.via, viaName)})
		return
	}
	g := *c.f
	g.via = append(append([]string(nil), c.f.via...), c.via...)
	g.piped = c.inv().PipedInto
	c.a.nested(&g, w.pos, w.text, viaName)
}

// setInline records interpreter code on the current invocation.
func (c *cmdCtx) setInline(interp string, w word) {
	c.inv().InlineCode = &InlineCode{Interpreter: interp, Code: w.text, Dynamic: w.dyn}
}

// optSpec describes the options of a command that runs another command.
type optSpec struct {
	arg        string   // short options taking an argument
	flags      string   // short options without argument
	long       []string // long options taking an argument (as --opt ARG or --opt=ARG)
	longFlags  []string // long options without argument
	positional int      // operands before the command (timeout's duration, chroot's root, ...)
	anyLong    bool     // unknown long options are flags
}

// scan returns the index in argv of the first word of the wrapped command
// (len(argv) when there is none), or -1 when that cannot be known.
func (s *optSpec) scan(argv []word) int {
	return min(s.scan1(argv), len(argv))
}

func (s *optSpec) scan1(argv []word) int {
	i := 1
	pos := s.positional
	for i < len(argv) {
		w := argv[i]
		if w.dyn {
			return -1
		}
		t := w.text
		switch {
		case t == "--":
			i++
			for ; pos > 0 && i < len(argv); pos-- {
				if argv[i].dyn {
					return -1
				}
				i++
			}
			return i
		case strings.HasPrefix(t, "--"):
			name, _, hasVal := strings.Cut(t[2:], "=")
			switch {
			case contains(s.long, name):
				if !hasVal {
					i++
				}
			case contains(s.longFlags, name) || s.anyLong:
			default:
				return -1
			}
			i++
		case len(t) > 1 && t[0] == '-' && pos == s.positional:
			for j := 1; j < len(t); j++ {
				ch := t[j]
				if strings.IndexByte(s.arg, ch) >= 0 {
					if j == len(t)-1 {
						i++
					}
					break
				}
				if strings.IndexByte(s.flags, ch) < 0 {
					return -1
				}
			}
			i++
		default:
			if pos == 0 {
				return i
			}
			pos--
			i++
		}
	}
	return i
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// envAssigns returns the NAME=VALUE words starting at argv[k] and the index after them.
func envAssigns(argv []word, k int) ([]string, int) {
	var env []string
	for k < len(argv) && (!argv[k].dyn && isAssignWord(argv[k].text) || quotedAssign(argv[k])) {
		env = append(env, argv[k].text)
		k++
	}
	return env, k
}

// quotedAssign reports whether a word known only at run time is still one
// NAME=VALUE: a static name and a value in double quotes, which no word
// splitting or globbing touches (env -i HOME="$HOME" cmd). Its text, the
// source text, is what rules see.
func quotedAssign(w word) bool {
	if !w.dyn || !isAssignWord(w.text) {
		return false
	}
	_, v, _ := strings.Cut(w.text, "=")
	return len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && !strings.ContainsAny(v[1:len(v)-1], "\"`")
}

func isAssignWord(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
