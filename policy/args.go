package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/stockade/stockade/parse"
)

// argv is an invocation's arguments, read the way getopt-style tools read them.
type argv struct {
	name        string    // base name of the command word
	words       []string  // every argument
	values      []string  // values of --opt=value, and of -Xvalue for options known to take one
	shorts      [4]uint64 // bit c: some option word has the letter c
	longs       []string  // long option names, without dashes or value
	dashWords   []string  // words starting with one dash, up to any '='
	positionals []string
	subcommand  string // first positional
	dynamicArg  bool   // some argument is known only at run time
	// dynamicOutside: some argument is known only at run time and is not a
	// file-name pattern relative to the workdir (workdirPattern).
	dynamicOutside bool
	// norms[i] is normPath of the i-th of words and values, for path
	// patterns; computed on first use, with normFirsts their first bytes.
	norms      []string
	normFirsts byteSet
	normsBuf   [4]string // where norms are for up to four words and values
	// firsts are the first bytes of words and values, once firstsKnown.
	firsts      byteSet
	firstsKnown bool
	// acts is actsOf the invocation, once actsKnown (acts.go).
	acts      act
	actsKnown bool
	// redirects are the invocation's redirection targets with their
	// normPath, once redirectsKnown: every writes and reads rule looks at
	// them, so they are cleaned once (redirectTargets).
	redirects      []redirectTarget
	redirectsKnown bool
	// joinedText is words and values joined by NUL, once joinedKnown
	// (joined).
	joinedText  string
	joinedKnown bool
	// gates are the gates the invocation passes, once gatesKnown (gates.go).
	gates      gate
	gatesKnown bool
	// lists is where positionals, longs and dashWords start for a command
	// of up to four arguments (init): a third each, as each argument goes
	// to one of them at most. The argv arrays are pooled with their
	// scriptCtx, so most commands' lists take no allocation.
	lists [12]string
}

// valueOptions lists, for a few commands, the options that take a value in the
// next word, so that the value is not read as the subcommand or as flags.
// (A switch rather than a map: nothing to build when the program starts.)
func valueOptions(name string) (short string, long []string) {
	switch name {
	case "git":
		return "Cc", gitValueLong
	case "sudo":
		return "ugCDhprRT", sudoValueLong
	case "rclone":
		return "", rcloneValueLong
	case "getent":
		return "s", getentValueLong // getent -s dns hosts NAME
	case "pip", "pip3":
		return pipValueShort, pipValueLong
	}
	return "", nil
}

var (
	getentValueLong = []string{"service"}
	gitValueLong    = []string{"git-dir", "work-tree", "namespace", "config-env", "super-prefix", "list-cmds"}
	sudoValueLong   = []string{"user", "group", "chdir", "host", "prompt", "role", "type", "close-from"}
	// rclone's global options that take a value, which may come before
	// its subcommand (rclone --config x.conf copy ./a remote:b)
	rcloneValueLong = []string{"config", "transfers", "checkers", "bwlimit", "log-file", "log-level", "filter-from", "include-from", "exclude-from",
		"files-from", "include", "exclude", "filter", "backup-dir", "suffix", "min-age", "max-age", "min-size", "max-size", "stats", "retries",
		"order-by", "max-transfer", "max-depth", "user-agent", "cache-dir", "password-command", "tpslimit", "multi-thread-streams"}
)

// pipValueShort and pipValueLong: pip's options that take a value (pip
// download -d wheels requests: wheels is where the files go, not a
// package), read from pipSig, the one list of them.
var pipValueShort, pipValueLong = func() (string, []string) {
	short, long := "", []string{}
	for o := range pipSig.opts {
		if len(o) == 1 {
			short += o
		} else {
			long = append(long, o)
		}
	}
	b := []byte(short)
	slices.Sort(b)
	slices.Sort(long)
	return string(b), long
}()

// commandName is the base name of a command word: /usr/bin/rm, \rm and
// zsh's =rm are rm.
func commandName(word string) string {
	word = strings.TrimLeft(word, "\\")
	if len(word) > 1 && word[0] == '=' && !strings.ContainsAny(word[1:], "=/") {
		word = word[1:] // zsh's =curl: the path of curl on PATH
	}
	if i := strings.LastIndexByte(word, '/'); i >= 0 && i < len(word)-1 {
		word = word[i+1:]
	}
	return word
}

// completionOutput reports whether a word known only at run time is the
// output of a tool's completion command, <(kubectl completion bash) or
// "$(gh completion -s zsh)": the shell code the tool writes to be sourced,
// as trusted as running the tool, which is judged on its own. Its words
// must be plain (no expansion, no second command).
func completionOutput(w string) bool {
	w = strings.TrimSuffix(strings.TrimPrefix(w, `"`), `"`)
	inner, ok := strings.CutPrefix(w, "<(")
	if !ok {
		inner, ok = strings.CutPrefix(w, "$(")
	}
	if !ok || !strings.HasSuffix(inner, ")") {
		return false
	}
	f := strings.Fields(strings.TrimSuffix(inner, ")"))
	if len(f) < 2 || len(f) > 6 {
		return false
	}
	completion := false
	for _, p := range f {
		if strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.=") != "" {
			return false
		}
		switch strings.TrimLeft(p, "-") {
		case "completion", "completions", "shell-completion", "completion-script":
			completion = true
		}
	}
	return completion && !strings.HasPrefix(f[0], "-")
}

// workdirPattern reports whether a word known only at run time is a plain
// file-name pattern that names paths inside the workdir: relative, with no
// expansion but *, ? and [...] (letters, digits and ._-+@%,:/ besides: no
// $, `, quotes, backslashes, braces, ~ or <(...)),
// no .. and no part starting with a dot and a pattern character, which
// bash may let match . or .. (.* is ., .. and the dot files).
func workdirPattern(w string) bool {
	if w == "" || w[0] == '/' || w[0] == '-' {
		return false
	}
	for _, c := range []byte(w) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._-+@%,:/*?[]!^", c) >= 0) {
			return false
		}
	}
	for part := range strings.SplitSeq(w, "/") {
		if part == ".." || (strings.HasPrefix(part, ".") && len(part) > 1 && strings.ContainsAny(part[1:2], "*?[")) {
			return false
		}
	}
	return true
}

// init reads the arguments of inv into a.
func (a *argv) init(inv *parse.Invocation) {
	a.words = inv.Args
	if inv.Dynamic {
		a.name = inv.Name
	} else {
		a.name = commandName(inv.Name)
	}
	for i, d := range inv.DynamicArgs {
		if d && !completionOutput(inv.Args[i]) {
			a.dynamicArg = true
			if !workdirPattern(inv.Args[i]) && !tempNamedPattern(inv.Args[i]) && !disposableUnder(inv.Args[i]) {
				a.dynamicOutside = true
			}
			// "$HOME/x" is matched as $HOME/x, so that path patterns see it.
			if unq := strings.ReplaceAll(inv.Args[i], `"`, ""); unq != inv.Args[i] {
				a.values = append(a.values, unq)
			}
		}
	}
	voShort, voLong := valueOptions(a.name)
	optsDone := false
	if n := len(inv.Args); n > 0 {
		// One array for the three lists, not one per list and doubling.
		lists := a.lists[:]
		if 3*n > len(lists) {
			lists = make([]string, 3*n)
		}
		a.positionals, a.longs, a.dashWords = lists[:0:n], lists[n:n:2*n], lists[2*n:2*n:3*n]
	}
	for i := 0; i < len(inv.Args); i++ {
		w := inv.Args[i]
		switch {
		case optsDone || len(w) < 2 || w[0] != '-':
			a.positionals = append(a.positionals, w)
		case w == "--":
			optsDone = true
		case w[1] == '-':
			name, val, hasVal := strings.Cut(w[2:], "=")
			a.longs = append(a.longs, name)
			if hasVal {
				a.values = append(a.values, val)
			} else if contains(voLong, name) && i+1 < len(inv.Args) {
				i++
				a.values = append(a.values, inv.Args[i])
			}
		default:
			word, val, hasVal := strings.Cut(w, "=")
			a.dashWords = append(a.dashWords, word)
			if hasVal {
				a.values = append(a.values, val)
			}
			for j := 1; j < len(w); j++ {
				a.setShort(w[j])
				if strings.IndexByte(voShort, w[j]) >= 0 {
					if j+1 < len(w) {
						a.values = append(a.values, w[j+1:])
					} else if i+1 < len(inv.Args) {
						i++
						a.values = append(a.values, inv.Args[i])
					}
					break
				}
			}
		}
	}
	if len(a.positionals) > 0 {
		a.subcommand = a.positionals[0]
	}
}

func (a *argv) setShort(c byte)      { a.shorts[c>>6] |= 1 << (c & 63) }
func (a *argv) hasShort(c byte) bool { return a.shorts[c>>6]&(1<<(c&63)) != 0 }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hasFlag reports whether any alternative is present. With prefer set (for
// not_flags), an abbreviation that is also a prefix of a long name in prefer
// does not count, unless it is the alternative spelled out.
func (a *argv) hasFlag(alts []flagAlt, prefer map[string]bool) bool {
	for _, alt := range alts {
		switch {
		case alt.short != 0:
			if a.hasShort(alt.short) {
				return true
			}
		case alt.word != "":
			if contains(a.dashWords, alt.word) {
				return true
			}
		default:
			for _, l := range a.longs {
				if l == alt.long {
					return true
				}
				if l == "" || !strings.HasPrefix(alt.long, l) {
					continue
				}
				if prefer != nil && prefersOther(l, prefer) {
					continue
				}
				return true
			}
		}
	}
	return false
}

func prefersOther(abbrev string, prefer map[string]bool) bool {
	for name := range prefer {
		if strings.HasPrefix(name, abbrev) {
			return true
		}
	}
	return false
}

// anyArgGlob reports whether some argument word or option value matches one
// of globs (anyGlob). Each argument is normalised for path patterns once per
// invocation, and a pattern is tried on the words only when one of them can
// match it: some word starts with the text the pattern starts with, or,
// for **TEXT**, the words joined contain TEXT.
func (a *argv) anyArgGlob(l *globList, at places) bool {
	n := len(a.words) + len(a.values)
	if n == 0 {
		return false
	}
	if a.norms == nil && hasPathGlob(l.globs) {
		if n <= len(a.normsBuf) {
			a.norms = a.normsBuf[:n]
		} else {
			a.norms = make([]string, n)
		}
		for i := range n {
			a.norms[i] = normPath(a.nth(i), at)
			a.normFirsts.addFirst(a.norms[i])
		}
	}
	if !a.firstsKnown {
		a.firstsKnown = true
		for i := range n {
			a.firsts.addFirst(a.nth(i))
		}
	}
	globs := l.globs
	if !l.firsts.meets(&a.firsts) && !l.firsts.meets(&a.normFirsts) {
		globs = l.firstless // no word starts as a pattern with plain text does
	}
	for k := range globs {
		g := &globs[k]
		switch {
		case g.contains != "":
			if strings.Contains(a.joined(), g.contains) {
				return true
			}
			continue
		case g.first != 0 && g.isPath && !a.normFirsts.has(g.first),
			g.first != 0 && !g.isPath && !a.firsts.has(g.first):
			continue
		}
		for i := range n {
			t := a.nth(i)
			if g.isPath {
				t = a.norms[i]
			}
			if g.matches(t) {
				return true
			}
		}
	}
	return false
}

// byteSet is a set of bytes: the first bytes of some strings.
type byteSet [4]uint64

// addFirst adds the first byte of s, if any.
func (b *byteSet) addFirst(s string) {
	if s != "" {
		b.add(s[0])
	}
}

func (b *byteSet) add(c byte) { b[c>>6] |= 1 << (c & 63) }

// meets reports whether b and o have a byte in common.
func (b *byteSet) meets(o *byteSet) bool {
	return b[0]&o[0] != 0 || b[1]&o[1] != 0 || b[2]&o[2] != 0 || b[3]&o[3] != 0
}

func (b *byteSet) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }

// nth returns the i-th of words and values.
func (a *argv) nth(i int) string {
	if i < len(a.words) {
		return a.words[i]
	}
	return a.values[i-len(a.words)]
}

func hasPathGlob(globs []glob) bool {
	for i := range globs {
		if globs[i].isPath {
			return true
		}
	}
	return false
}

// joined returns the words and values joined by NUL, which no argument
// holds: a literal that is in none of them is not in it. One word is its
// own joined text; more take one allocation, of the joined length.
func (a *argv) joined() string {
	if !a.joinedKnown {
		a.joinedKnown = true
		n := len(a.words) + len(a.values)
		if n == 1 {
			a.joinedText = a.nth(0)
			return a.joinedText
		}
		var b strings.Builder
		size := max(n-1, 0)
		for i := range n {
			size += len(a.nth(i))
		}
		b.Grow(size)
		for i := range n {
			if i > 0 {
				b.WriteByte(0)
			}
			b.WriteString(a.nth(i))
		}
		a.joinedText = b.String()
	}
	return a.joinedText
}

// joinedPairs returns the pairs of invocation i's joined arguments.
func (ctx *scriptCtx) joinedPairs(i int, a *argv) *pairSet { return ctx.argPairs.of(i, a.joined()) }

// codePairs returns the pairs of invocation i's inline code, which it has.
func (ctx *scriptCtx) codePairs(i int) *pairSet {
	return ctx.codePairSet.of(i, ctx.invs[i].InlineCode.Code)
}

// invPairs holds the pairs of one invocation's text at a time, as the
// rules tried on it one after another look at them.
type invPairs struct {
	set pairSet
	inv int // the invocation's index + 1; 0: none yet
}

// of returns the pairs of text, invocation i's, made once for i.
func (c *invPairs) of(i int, text string) *pairSet {
	if c.inv != i+1 {
		c.inv = i + 1
		c.set = pairSet{}
		c.set.add(text)
	}
	return &c.set
}

// anyArg reports whether f holds for some argument word or option value.
func (a *argv) anyArg(f func(string) bool) bool {
	for _, w := range a.words {
		if f(w) {
			return true
		}
	}
	for _, v := range a.values {
		if f(v) {
			return true
		}
	}
	return false
}

// glob is one compiled pattern of args, writes, reads, subcommand or via.
type glob struct {
	pat    string // normalised when isPath
	isPath bool
	meta   bool // has *, ?, [ or \
	// contains: for a pattern **TEXT** with no other pattern characters,
	// TEXT, which a string matches by containing it (a quick test that
	// rules looking at every command use, such as "**|**").
	contains string
	// inner: for a pattern with *, ?, [ or \, the longest text after the
	// first of them that every match contains (globLiteral), looked for
	// before matching; "" if none. The text before is matched first and
	// fails fast; what follows a ** would be tried at every position
	// (~/**/.git/hooks/* on each path under the home directory).
	inner string
	// first: the byte every string the pattern matches starts with, when
	// the pattern starts with plain text; 0 otherwise.
	first byte
}

func compileGlobs(pats []string, key string, problem func(key, msg string)) []glob {
	if len(pats) == 0 {
		return nil
	}
	out := make([]glob, 0, len(pats))
	for _, p := range pats {
		if p == "" {
			problem(key, "empty pattern")
			continue
		}
		if err := checkGlob(p); err != nil {
			problem(key, fmt.Sprintf("bad pattern %q: %v", p, err))
			continue
		}
		g := glob{pat: p, isPath: isPathPattern(p)}
		if g.isPath {
			g.pat = normPath(p, places{})
		}
		g.meta = strings.ContainsAny(g.pat, "*?[\\")
		if mid, ok := strings.CutPrefix(g.pat, "**"); ok && !g.isPath && len(mid) > 2 {
			if mid, ok = strings.CutSuffix(mid, "**"); ok && !strings.ContainsAny(mid, "*?[\\") {
				g.contains = mid
			}
		}
		if g.meta && g.contains == "" {
			g.inner = globLiteral(g.pat[strings.IndexAny(g.pat, "*?[\\"):])
		}
		if strings.IndexByte("*?[\\", g.pat[0]) < 0 {
			g.first = g.pat[0]
		}
		out = append(out, g)
	}
	return out
}

// globLiteral returns the longest run of pattern p's characters that
// every string p matches contains as written: text between wildcards,
// outside classes and escapes. "" if there is none.
func globLiteral(p string) string {
	best, start := "", 0
	run := func(end int) {
		if start < end && end-start > len(best) {
			best = p[start:end]
		}
	}
	for i := 0; i < len(p); {
		switch p[i] {
		case '*', '?':
			run(i)
			i++
		case '\\':
			run(i)
			i += 2
		case '[':
			run(i)
			end := classEnd(p[i:])
			if end < 0 {
				return best
			}
			i += end + 1
		default:
			i++
			continue
		}
		start = i
	}
	run(len(p))
	return best
}

func isPathPattern(p string) bool {
	return p[0] == '/' || p[0] == '~' || p[0] == '.' || strings.HasPrefix(p, "$HOME") || strings.HasPrefix(p, "${HOME}")
}

// normPath puts a path in the form patterns are written in: ~, ~user, $HOME,
// ${HOME} and the home directory itself become ~, and the path is cleaned.
func normPath(s string, at places) string {
	home := at.home
	switch {
	case s == "":
		return s
	case s[0] == '~':
		if i := strings.IndexByte(s, '/'); i > 1 {
			s = "~" + s[i:] // ~user/x
		} else if i < 0 {
			s = "~"
		}
	case strings.HasPrefix(s, "$HOME"):
		s = "~" + s[len("$HOME"):]
	case strings.HasPrefix(s, "${HOME}"):
		s = "~" + s[len("${HOME}"):]
	case home != "" && home != "/" && (s == home || below(s, home)):
		s = "~" + s[len(home):]
	}
	c := path.Clean(s)
	// ./~ is a directory named ~ here, not the home directory: only a
	// leading ~ is the home.
	if c != "" && c[0] == '~' && s[0] != '~' {
		return "./" + c
	}
	if w := at.work; w != "" {
		// /home/dev/src/app/dist with the workdir /home/dev/src/app is
		// dist: a path in the workdir is written as one from it.
		switch {
		case c == w:
			return "."
		case below(c, w):
			return c[len(w)+1:]
		}
	}
	return c
}

// places are the directories a path is written from once normalised: the
// home (~/...) and the workdir (relative), when known.
type places struct{ home, work string }

func anyGlob(globs []glob, s string, at places) bool {
	norm := ""
	if hasPathGlob(globs) {
		norm = normPath(s, at)
	}
	return anyGlobNormed(globs, s, norm)
}

// anyGlobNormed is anyGlob, given norm = normPath(s, home) when some glob is
// a path pattern.
func anyGlobNormed(globs []glob, s, norm string) bool {
	for i := range globs {
		g := &globs[i]
		t := s
		if g.isPath {
			t = norm
		}
		if g.matches(t) {
			return true
		}
	}
	return false
}

// globList is the patterns of a path or argument key (pathKey), with the
// bytes those that start with plain text start with: a path or word that
// starts with none of them is tried only on the patterns that start with
// *, ?, [ or \ (firstless). Most paths a command writes or reads are in
// the workdir, and most patterns of those keys name places outside it.
//
// /dev/null, where most commands' unwanted output goes, is answered once
// for the list when it is made (devNull).
type globList struct {
	globs     []glob
	firsts    byteSet
	firstless []glob
	devNull   bool
}

func newGlobList(globs []glob) *globList {
	l := &globList{globs: globs}
	for _, g := range globs {
		if g.first == 0 {
			l.firstless = append(l.firstless, g)
		} else {
			l.firsts.add(g.first)
		}
	}
	l.devNull = anyGlobNormed(globs, "/dev/null", "/dev/null")
	return l
}

// matches reports whether s (or norm = normPath(s), for path patterns)
// matches one of the patterns.
func (l *globList) matches(s, norm string) bool {
	if s == "/dev/null" && norm == s {
		return l.devNull
	}
	if s != "" && l.firsts.has(s[0]) || norm != "" && l.firsts.has(norm[0]) {
		return anyGlobNormed(l.globs, s, norm)
	}
	return anyGlobNormed(l.firstless, s, norm)
}

// matches reports whether t (normalised when g is a path pattern) matches g.
func (g *glob) matches(t string) bool {
	if g.first != 0 && (t == "" || t[0] != g.first) {
		return false
	}
	if !g.meta {
		return g.pat == t
	}
	if g.contains != "" {
		return strings.Contains(t, g.contains)
	}
	if g.inner != "" && !strings.Contains(t, g.inner) {
		return false
	}
	return globMatch(g.pat, t)
}

// globMatch matches s against p: * is any run of characters but /, ** any
// run at all, ? one character but /, [a-z] and [!a-z] classes, \x a literal x.
func globMatch(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			double := len(p) > 1 && p[1] == '*'
			if double {
				p = p[2:]
			} else {
				p = p[1:]
			}
			for i := 0; i <= len(s); i++ {
				if globMatch(p, s[i:]) {
					return true
				}
				if i < len(s) && !double && s[i] == '/' {
					return false
				}
			}
			return false
		case '?':
			if len(s) == 0 || s[0] == '/' {
				return false
			}
			p, s = p[1:], s[1:]
		case '[':
			end := classEnd(p)
			if len(s) == 0 || !classMatch(p[1:end], s[0]) {
				return false
			}
			p, s = p[end+1:], s[1:]
		default:
			if p[0] == '\\' && len(p) > 1 {
				p = p[1:]
			}
			if len(s) == 0 || p[0] != s[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return len(s) == 0
}

// classEnd returns the index of the ] closing the class at p[0], or -1.
func classEnd(p string) int {
	i := 1
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		i++
	}
	if i < len(p) && p[i] == ']' {
		i++
	}
	for ; i < len(p); i++ {
		if p[i] == ']' {
			return i
		}
	}
	return -1
}

func classMatch(class string, c byte) bool {
	neg := len(class) > 0 && (class[0] == '!' || class[0] == '^')
	if neg {
		class = class[1:]
	}
	in := false
	for i := 0; i < len(class); i++ {
		lo, hi := class[i], class[i]
		if i+2 < len(class) && class[i+1] == '-' {
			hi = class[i+2]
			i += 2
		}
		if lo <= c && c <= hi {
			in = true
		}
	}
	return in != neg
}

func checkGlob(p string) error {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			end := classEnd(p[i:])
			if end < 0 {
				return fmt.Errorf("unterminated [")
			}
			i += end
		}
	}
	return nil
}
