package policy

import (
	"fmt"
	"path"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/stockade/stockade/parse"
)

// compiled is the prepared form of a Matcher. Regular expressions are compiled
// on first use, so loading a policy stays cheap.
type compiled struct {
	names                            []namePattern
	flags                            [][]flagAlt
	notFlags                         [][]flagAlt
	args, notArgs, lastArg           []glob
	writes, reads, deletes, executes []glob
	argsRe, codeRe, envRe            lazyRegexps
	subcommand, via                  []glob
	longNames                        map[string]bool // long names in flags, for abbreviation preference; nil if none
	hasInside, hasUpstream, hasAfter bool
}

type flagAlt struct {
	short byte   // -r
	long  string // --recursive
	word  string // -delete
}

type lazyRegexps struct {
	src  []string
	once sync.Once
	re   []*regexp.Regexp
}

func (l *lazyRegexps) get() []*regexp.Regexp {
	l.once.Do(func() {
		for _, s := range l.src {
			l.re = append(l.re, regexp.MustCompile(s)) // validated at load
		}
	})
	return l.re
}

func (l *lazyRegexps) any(s string) bool {
	for _, re := range l.get() {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// empty reports whether the matcher sets no key: every key of the schema's
// Matcher is an empty list or unset.
func (m *Matcher) empty() bool {
	v := reflect.ValueOf(m).Elem()
	for _, f := range matcherFields {
		fv := v.FieldByIndex(f.Index)
		if fv.Kind() == reflect.Slice && fv.Len() > 0 || fv.Kind() != reflect.Slice && !fv.IsZero() {
			return false
		}
	}
	return true
}

// matcherFields are the keys of a Matcher.
var matcherFields = tomlFields(reflect.TypeFor[Matcher]())

// compile checks and prepares m. Problems are returned as (key, message) pairs.
//
// With trusted set (the built-in policy, checked by the tests), regular
// expressions are not compiled here but on first use, which keeps start-up cheap.
func (m *Matcher) compile(problem func(key, msg string), trusted bool) {
	c := &compiled{}
	m.c = c
	if m.empty() {
		problem("", "the rule matches nothing: set command, args, writes, code or another match key")
	}
	for _, n := range m.Command {
		if n == "" {
			problem("command", "empty command name")
		} else if _, err := path.Match(n, ""); err != nil {
			problem("command", fmt.Sprintf("bad glob %q", n))
		}
	}
	c.names = compileNames(m.Command)
	c.subcommand = compileGlobs(m.Subcommand, "subcommand", problem)
	c.via = compileGlobs(m.Via, "via", problem)
	c.args = compileGlobs(m.Args, "args", problem)
	c.notArgs = compileGlobs(m.NotArgs, "not_args", problem)
	c.lastArg = compileGlobs(m.LastArg, "last_arg", problem)
	c.writes = compileGlobs(m.Writes, "writes", problem)
	c.reads = compileGlobs(m.Reads, "reads", problem)
	c.deletes = compileGlobs(m.Deletes, "deletes", problem)
	c.executes = compileGlobs(m.Executes, "executes", problem)
	c.flags = compileFlags(m.Flags, "flags", problem)
	c.notFlags = compileFlags(m.NotFlags, "not_flags", problem)
	for _, alts := range c.flags {
		for _, a := range alts {
			if a.long != "" {
				if c.longNames == nil {
					c.longNames = map[string]bool{}
				}
				c.longNames[a.long] = true
			}
		}
	}
	for _, key := range []struct {
		name string
		src  []string
		dst  *lazyRegexps
	}{{"args_regex", m.ArgsRegex, &c.argsRe}, {"code", m.Code, &c.codeRe}, {"env", m.Env, &c.envRe}} {
		for _, s := range key.src {
			if trusted {
				break
			}
			if _, err := regexp.Compile(s); err != nil {
				problem(key.name, fmt.Sprintf("bad regular expression %q: %v", s, err))
			}
		}
		key.dst.src = key.src
	}
	if m.Upstream != nil {
		c.hasUpstream = true
		m.Upstream.compile(func(k, msg string) { problem(joinKey("upstream", k), msg) }, trusted)
	}
	if m.Inside != nil {
		c.hasInside = true
		m.Inside.compile(func(k, msg string) { problem(joinKey("inside", k), msg) }, trusted)
	}
	if m.After != nil {
		c.hasAfter = true
		m.After.compile(func(k, msg string) { problem(joinKey("after", k), msg) }, trusted)
	}
}

func joinKey(a, b string) string {
	if b == "" {
		return a
	}
	if a == "" {
		return b
	}
	return a + "." + b
}

func compileFlags(entries []string, key string, problem func(key, msg string)) [][]flagAlt {
	if len(entries) == 0 {
		return nil
	}
	out := make([][]flagAlt, 0, len(entries))
	for _, e := range entries {
		alts := make([]flagAlt, 0, strings.Count(e, "|")+1)
		for s := range strings.SplitSeq(e, "|") {
			switch {
			case s == "" || s == "-" || strings.HasPrefix(s, "--") || strings.ContainsAny(s, " =\t"):
				problem(key, fmt.Sprintf("bad flag %q in %q: write r for -r, recursive for --recursive, -delete for the word -delete", s, e))
			case s[0] == '-':
				alts = append(alts, flagAlt{word: s})
			case len(s) == 1:
				alts = append(alts, flagAlt{short: s[0]})
			default:
				alts = append(alts, flagAlt{long: s})
			}
		}
		out = append(out, alts)
	}
	return out
}

// names returns the literal command names of m, or nil if any of them is a glob
// (or m has none): such rules are tried for every invocation.
func (m *Matcher) literalNames() []string {
	if len(m.Command) == 0 {
		return nil
	}
	for _, n := range m.Command {
		if strings.ContainsAny(n, "*?[\\") {
			return nil
		}
	}
	return m.Command
}

// match reports whether the rule matches invocation i of the script.
func (m *Matcher) match(ctx *scriptCtx, i int, a *argv) bool {
	c := m.c
	inv := &ctx.invs[i]
	if len(c.names) > 0 && !matchName(c.names, a.name, inv.Name) {
		return false
	}
	if len(m.Script) > 0 && (ctx.text == nil || !contains(m.Script, strings.TrimSpace(*ctx.text))) {
		return false
	}
	if m.Dynamic != nil && *m.Dynamic != inv.Dynamic {
		return false
	}
	if m.PipedInto != nil && *m.PipedInto != inv.PipedInto {
		return false
	}
	if m.DynamicArgs != nil && *m.DynamicArgs != a.dynamicArg {
		return false
	}
	if m.Background != nil && *m.Background != inv.Background {
		return false
	}
	if m.EndlessLoop != nil && *m.EndlessLoop != inv.EndlessLoop {
		return false
	}
	if m.Recursive != nil && *m.Recursive != ctx.recursive(inv, a.name) {
		return false
	}
	if len(c.envRe.src) > 0 && !anyString(inv.Env, c.envRe.any) {
		return false
	}
	if len(c.subcommand) > 0 && (a.subcommand == "" || !anyGlob(c.subcommand, a.subcommand, "")) {
		return false
	}
	for _, alts := range c.flags {
		if !a.hasFlag(alts, nil) {
			return false
		}
	}
	for _, alts := range c.notFlags {
		if a.hasFlag(alts, c.longNames) {
			return false
		}
	}
	if len(c.args) > 0 && !a.anyArgGlob(c.args, ctx.home) {
		return false
	}
	if len(c.lastArg) > 0 && (len(a.positionals) == 0 || !anyGlob(c.lastArg, a.positionals[len(a.positionals)-1], ctx.home)) {
		return false
	}
	if len(c.notArgs) > 0 && a.anyArgGlob(c.notArgs, ctx.home) {
		return false
	}
	if len(c.argsRe.src) > 0 && !a.anyArg(c.argsRe.any) {
		return false
	}
	if len(c.writes) > 0 && !anyRedirect(inv, true, c.writes, ctx.home) && !ctx.anyEffect(i, effWrite, c.writes) {
		return false
	}
	if len(c.reads) > 0 && !anyRedirect(inv, false, c.reads, ctx.home) && !ctx.anyEffect(i, effRead, c.reads) {
		return false
	}
	if len(c.deletes) > 0 && !ctx.anyEffect(i, effDelete, c.deletes) {
		return false
	}
	if len(c.executes) > 0 && !ctx.anyEffect(i, effExec, c.executes) {
		return false
	}
	if m.ReadsDenied != nil && *m.ReadsDenied != ctx.readsDenied(i) {
		return false
	}
	if m.ExecutesCreated != nil && *m.ExecutesCreated != ctx.executesCreated(i) {
		return false
	}
	if m.ProgramUnseen != nil && *m.ProgramUnseen != ctx.programUnseen(i) {
		return false
	}
	if len(c.codeRe.src) > 0 && (inv.InlineCode == nil || !c.codeRe.any(inv.InlineCode.Code)) {
		return false
	}
	if len(c.via) > 0 && !anyVia(c.via, inv.Via) {
		return false
	}
	if c.hasUpstream && !ctx.upstreamMatches(i, m.Upstream) {
		return false
	}
	if c.hasInside && !ctx.insideMatches(i, m.Inside) {
		return false
	}
	if c.hasAfter && !ctx.afterMatches(i, m.After) {
		return false
	}
	return true
}

// recursive reports whether invocation inv, which runs name, calls a shell
// function it is inside of: directly (f(){ f|f& }) or through other functions
// (f(){ g|g& }; g(){ f|f& }), that is, name and that function call each other.
func (ctx *scriptCtx) recursive(inv *parse.Invocation, name string) bool {
	for _, v := range inv.Via {
		f, ok := strings.CutPrefix(v, "function ")
		if !ok {
			continue
		}
		if f == name {
			return true
		}
		if inv.Function {
			if ctx.cycles == nil {
				ctx.cycles = callCycles(ctx.invs)
			}
			if c, ok := ctx.cycles[f]; ok && c == ctx.cycles[name] {
				return true
			}
		}
	}
	return false
}

// callCycles returns, for each shell function of the script that is part of a
// cycle of calls, a number shared by the functions of the same cycle (the
// strongly connected components of the call graph, by Tarjan's algorithm, in
// time linear in the calls). A call inside nested function bodies counts as a
// call from each of them.
func callCycles(invs []parse.Invocation) map[string]int {
	calls := map[string][]string{}
	for i := range invs {
		inv := &invs[i]
		if !inv.Function {
			continue
		}
		for _, v := range inv.Via {
			if f, ok := strings.CutPrefix(v, "function "); ok {
				calls[f] = append(calls[f], inv.Name)
			}
		}
	}
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	cycles := map[string]int{}
	var visit func(f string)
	visit = func(f string) {
		index[f], low[f] = len(index), len(index)
		stack = append(stack, f)
		onStack[f] = true
		for _, g := range calls[f] {
			if _, seen := index[g]; !seen {
				visit(g)
				low[f] = min(low[f], low[g])
			} else if onStack[g] {
				low[f] = min(low[f], index[g])
			}
		}
		if low[f] != index[f] {
			return
		}
		n := len(stack) - 1
		for stack[n] != f {
			n--
		}
		if component := stack[n:]; len(component) > 1 {
			for _, g := range component {
				cycles[g] = index[f] + 1
			}
		}
		for _, g := range stack[n:] {
			onStack[g] = false
		}
		stack = stack[:n]
	}
	for f := range calls {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	return cycles
}

func anyString(list []string, f func(string) bool) bool {
	for _, s := range list {
		if f(s) {
			return true
		}
	}
	return false
}

// namePattern is one glob of command, with the literal text it starts with.
type namePattern struct {
	pat    string
	prefix string // pat up to its first *, ?, [ or \; a name that matches starts with it
	meta   bool   // prefix is not all of pat
	path   bool   // pat has a /: it matches the command word as written
}

func compileNames(pats []string) []namePattern {
	if len(pats) == 0 {
		return nil
	}
	out := make([]namePattern, len(pats))
	for i, p := range pats {
		out[i] = namePattern{pat: p, prefix: p, path: strings.Contains(p, "/")}
		if j := strings.IndexAny(p, "*?[\\"); j >= 0 {
			out[i].prefix, out[i].meta = p[:j], true
		}
	}
	return out
}

// matchName matches the base name, or for a pattern with a /, the command word
// as written (without the backslashes that only stop alias expansion).
func matchName(names []namePattern, name, word string) bool {
	word = strings.TrimLeft(word, "\\")
	for i := range names {
		n := &names[i]
		if n.path {
			if strings.Contains(word, "/") && globMatch(n.pat, word) {
				return true
			}
			continue
		}
		if n.pat == name {
			return true
		}
		if !n.meta || !strings.HasPrefix(name, n.prefix) {
			continue // path.Match would not match either
		}
		if ok, _ := path.Match(n.pat, name); ok {
			return true
		}
	}
	return false
}

func anyVia(globs []glob, via []string) bool {
	for _, v := range via {
		if anyGlob(globs, v, "") {
			return true
		}
	}
	return false
}

func anyRedirect(inv *parse.Invocation, write bool, globs []glob, home string) bool {
	for _, r := range inv.Redirects {
		if write && !isWriteOp(r.Op) || !write && r.Op != "<" && r.Op != "<>" {
			continue
		}
		t := r.Target
		if r.Dynamic {
			t = strings.ReplaceAll(t, `"`, "")
		}
		if anyGlob(globs, t, home) {
			return true
		}
	}
	return false
}

func isWriteOp(op string) bool {
	switch op {
	case ">", ">>", "&>", "&>>", ">|", "<>", ">&":
		return true
	}
	return false
}

// scriptCtx holds what matching needs across the invocations of one script.
type scriptCtx struct {
	p        *Policy
	invs     []parse.Invocation
	args     []argv // args[i] is valid when analyzed[i] is set
	analyzed []bool
	matched  []bool
	home     string
	text     *string    // the script's text, when known
	effects  [][]effect // see effectsOf; nil until first used
	// firstMatch caches, per after matcher, the first invocation it matches.
	firstMatch map[*Matcher]int
	// cycles is callCycles of the script, built on first use.
	cycles map[string]int
}

func newScriptCtx(p *Policy, invs []parse.Invocation) *scriptCtx {
	flags := make([]bool, 2*len(invs))
	return &scriptCtx{p: p, invs: invs, args: make([]argv, len(invs)),
		analyzed: flags[:len(invs)], matched: flags[len(invs):], home: p.homeDir}
}

func (ctx *scriptCtx) arg(i int) *argv {
	if !ctx.analyzed[i] {
		ctx.args[i].init(&ctx.invs[i])
		ctx.analyzed[i] = true
	}
	return &ctx.args[i]
}

// upstreamMatches reports whether an earlier stage of the pipeline that ends
// at invocation i matches m. Stages of one pipeline are consecutive
// invocations at the same level (Via without trailing wrappers such as sudo);
// all but the first are PipedInto. Commands a stage wraps count as the stage.
// afterMatches reports whether a command before invocation i in the script
// matches m. The first match is looked for once per script, so a long script
// costs one pass per after key, not one per invocation.
func (ctx *scriptCtx) afterMatches(i int, m *Matcher) bool {
	first, ok := ctx.firstMatch[m]
	if !ok {
		first = len(ctx.invs)
		for j := range ctx.invs {
			if m.match(ctx, j, ctx.arg(j)) {
				first = j
				break
			}
		}
		if ctx.firstMatch == nil {
			ctx.firstMatch = map[*Matcher]int{}
		}
		ctx.firstMatch[m] = first
	}
	return first < i
}

func (ctx *scriptCtx) upstreamMatches(i int, m *Matcher) bool {
	if !ctx.invs[i].PipedInto {
		return false
	}
	level := pipelineLevel(ctx.invs[i].Via)
	for j := i - 1; j >= 0; j-- {
		inv := &ctx.invs[j]
		if len(inv.Via) < len(level) || !sameVia(inv.Via[:len(level)], level) {
			return false
		}
		if len(pipelineLevel(inv.Via)) > len(level) {
			continue // inside a substitution or code string of a stage
		}
		if m.match(ctx, j, ctx.arg(j)) {
			return true
		}
		if len(inv.Via) == len(level) && !inv.PipedInto {
			return false // the first stage
		}
	}
	return false
}

// pipelineLevel strips from via the wrappers (sudo, env, nice, xargs ...)
// the invocation sits in, which do not start a pipeline of their own.
func pipelineLevel(via []string) []string {
	n := len(via)
	for n > 0 && !strings.ContainsAny(via[n-1], " ()`") && via[n-1] != "eval" {
		n--
	}
	return via[:n]
}

// insideMatches reports whether invocation i, found in a $(...) or <(...)
// substitution, is in the arguments of a command matching m. That command is
// taken to be the nearest invocation one level out that starts before i on
// the same line.
func (ctx *scriptCtx) insideMatches(i int, m *Matcher) bool {
	inv := &ctx.invs[i]
	n := len(inv.Via)
	if n == 0 || (inv.Via[n-1] != "$(...)" && inv.Via[n-1] != "<(...)" && inv.Via[n-1] != "`...`") {
		return false
	}
	outer := inv.Via[:n-1]
	best := -1
	for j := range ctx.invs {
		o := &ctx.invs[j]
		if j == i || !sameVia(o.Via, outer) || o.Pos.Line != inv.Pos.Line || o.Pos.Col >= inv.Pos.Col {
			continue
		}
		if best < 0 || o.Pos.Col > ctx.invs[best].Pos.Col {
			best = j
		}
	}
	return best >= 0 && m.match(ctx, best, ctx.arg(best))
}

func sameVia(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
