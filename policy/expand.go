package policy

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/stockade/stockade/parse"
)

// Expansions the analysis can resolve from the script itself. parse
// reports a word whose value depends on the run as dynamic, with its source
// text. Many such words are known all the same: the script set the
// variable a few lines up (d=~/.ssh; cat "$d/id_rsa"), set the positional
// parameters (set -- -rf ~; rm "$@"), or called a function with literal
// arguments (f(){ rm "$@"; }; f -rf ~). For each invocation whose dynamic
// words all resolve, expandScript adds a copy with the resolved words right
// after it, which every rule then judges too. What does not resolve
// (indirection, a value from the environment, command output, a variable
// assigned a dynamic value) stays dynamic: unknown, never harmless.

// maxExpansions bounds the copies one script may add.
const maxExpansions = 256

// expandScript returns the invocations to judge: those of s, with the
// resolved copies inserted after their originals.
//
// Assignments the script makes for the rest of it (FOO=1 alone) are
// judged as the declare that says the same (declare FOO=1), added at the
// end: PROMPT_COMMAND=..., PATH=.:$PATH.
func expandScript(s *parse.Script) []parse.Invocation {
	invs := loopbackSockets(inlineProgramCalls(linkedPrograms(resolveScript(s))))
	written := mayRunWrittenCode(invs)
	if len(s.Assignments) == 0 && !anyCommandArg(invs) && !written {
		return invs
	}
	out := make([]parse.Invocation, len(invs), len(invs)+len(s.Assignments))
	copy(out, invs)
	if written {
		out = append(out, writtenCode(invs)...)
	}
	for i := range invs {
		out = append(out, commandArgCode(&invs[i])...)
	}
	for _, as := range s.Assignments {
		inv := parse.Invocation{Name: "declare", Args: []string{as.Name + "=" + as.Value}, Pos: as.Pos, Via: []string{"assignment"}}
		if as.Dynamic {
			inv.DynamicArgs = []bool{true}
		}
		out = append(out, inv)
		out = append(out, codeInValue(as)...)
	}
	return out
}

// codeInValue returns the commands in the command substitutions a static
// value holds as text (x='a[$(rm -rf ~)]'): bash runs them when the value
// is evaluated as arithmetic ($((x)), ((x)), [[ x -eq 1 ]], an array
// index) or as code.
func codeInValue(as parse.Assignment) []parse.Invocation {
	if as.Dynamic || !(strings.Contains(as.Value, "$(") || strings.Contains(as.Value, "`")) {
		return nil
	}
	inner, err := parseScript(": " + as.Value)
	if err != nil {
		// Not code bash can read as a word: judged as a dynamic command.
		return []parse.Invocation{{Name: as.Value, Dynamic: true, Pos: as.Pos, Via: []string{"assignment", "value"}}}
	}
	var out []parse.Invocation
	for _, inv := range inner.Invocations {
		if inv.Name == ":" && len(inv.Via) == 0 {
			continue
		}
		inv.Pos = as.Pos
		inv.Via = append([]string{"assignment", "value"}, inv.Via...)
		out = append(out, inv)
	}
	return out
}

// resolveScript returns the invocations of s with the resolved copies
// inserted, or s.Invocations itself when there is nothing to resolve.
func resolveScript(s *parse.Script) []parse.Invocation {
	invs := certainVarArgs(s, freshTempArgs(s))
	anyDyn := false
	for i := range invs {
		if invs[i].Dynamic || invs[i].DynamicArgs != nil || dynamicTarget(&invs[i]) {
			anyDyn = true
			break
		}
	}
	if !anyDyn && !anyXargs(invs) {
		return invs
	}
	x := expander{s: s}
	x.scan()
	var out []parse.Invocation
	added := 0
	for i := range invs {
		inv := &invs[i]
		var copies []parse.Invocation
		if c, ok := x.xargsInput(invs, i); ok && added < maxExpansions {
			copies = append(copies, c)
		}
		dyn := inv.Dynamic || inv.DynamicArgs != nil || dynamicTarget(inv)
		if !dyn && len(copies) == 0 || added >= maxExpansions {
			out = kept(out, inv)
			continue
		}
		if dyn {
			copies = append(copies, x.resolve(inv)...)
		}
		if len(copies) == 0 {
			out = kept(out, inv)
			continue
		}
		out = spliced(out, invs, i)
		if !x.everyCall(inv, len(copies)) {
			out = append(out, *inv)
		}
		var code []parse.Invocation
		if dyn {
			for k := range copies {
				code = append(code, resolvedOwnCode(inv, &copies[k])...)
			}
		}
		out = append(out, copies...)
		out = append(out, code...)
		added += len(copies) + len(code)
	}
	if out == nil {
		return invs
	}
	return out
}

// anyXargs: some command is run by xargs.
func anyXargs(invs []parse.Invocation) bool {
	for i := range invs {
		if v := invs[i].Via; len(v) > 0 && v[len(v)-1] == "xargs" {
			return true
		}
	}
	return false
}

// xargsInput returns invocation i, run by xargs, with the arguments xargs
// gives it appended, when xargs reads them from echo or printf with words
// that resolve (printf '%s\0' "$HOME" | xargs -0 rm -rf is rm -rf ~), or
// from a static here-string (xargs rm -rf <<< ~).
// xargs options other than -0, -r, -t and -n/-P leave it unresolved.
func (x *expander) xargsInput(invs []parse.Invocation, i int) (parse.Invocation, bool) {
	inv := &invs[i]
	if v := inv.Via; len(v) == 0 || v[len(v)-1] != "xargs" || inv.Dynamic || i < 1 {
		return parse.Invocation{}, false
	}
	xa := &invs[i-1]
	if xa.Name != "xargs" || xa.Dynamic || len(xa.Args) < 1+len(inv.Args) {
		return parse.Invocation{}, false
	}
	here, isHere := hereStringInput(xa)
	if !isHere && (i < 2 || !xa.PipedInto) {
		return parse.Invocation{}, false
	}
	var pr *parse.Invocation
	if !isHere {
		pr = &invs[i-2]
		if pr.PipedInto || pr.Dynamic || len(pr.Redirects) > 0 || (pr.Name != "echo" && pr.Name != "printf") {
			return parse.Invocation{}, false
		}
	}
	null := false
	opts := xa.Args[:len(xa.Args)-1-len(inv.Args)]
	for k := 0; k < len(opts); k++ {
		switch o := opts[k]; {
		case xa.DynamicArgs != nil && xa.DynamicArgs[k]:
			return parse.Invocation{}, false
		case o == "-0" || o == "--null":
			null = true
		case o == "-r" || o == "--no-run-if-empty" || o == "-t" || o == "--verbose" || o == "--":
		case (o == "-n" || o == "-P") && k+1 < len(opts):
			k++
		case strings.HasPrefix(o, "-n") || strings.HasPrefix(o, "-P") || strings.HasPrefix(o, "--max-args=") || strings.HasPrefix(o, "--max-procs="):
		default:
			return parse.Invocation{}, false
		}
	}
	var out string
	ok := true
	switch {
	case isHere:
		out = here
	case pr.Name == "echo" || pr.Name == "printf":
		args := pr.Args
		if pr.DynamicArgs != nil {
			c := x.resolve(pr)
			if len(c) != 1 {
				return parse.Invocation{}, false
			}
			args = c[0].Args
		}
		if pr.Name == "echo" {
			out, ok = echoOutput(args)
		} else {
			out, ok = printfOutput(args)
		}
	}
	if !ok {
		return parse.Invocation{}, false
	}
	var items []string
	if null {
		items = strings.Split(out, "\x00")
		if items[len(items)-1] == "" {
			items = items[:len(items)-1]
		}
	} else {
		if strings.ContainsAny(out, "'\"\\\x00") {
			return parse.Invocation{}, false
		}
		items = strings.Fields(out)
	}
	c := *inv
	c.Args = append(append([]string(nil), inv.Args...), items...)
	c.DynamicArgs = nil
	return c, true
}

// hereStringInput returns what a static here-string gives xargs on its
// standard input (the word and a newline: xargs rm -rf <<< ~), and whether
// it has one and nothing else redirects its input.
func hereStringInput(xa *parse.Invocation) (string, bool) {
	in, found := "", false
	for _, r := range xa.Redirects {
		if r.FD != "" && r.FD != "0" || strings.HasPrefix(r.Op, ">") || r.Op == "&>" || r.Op == "&>>" {
			continue
		}
		if r.Op != "<<<" || r.Dynamic || found {
			return "", false
		}
		in, found = r.Target+"\n", true
	}
	return in, found
}

// expander holds what the script sets: variables, arrays, positional
// parameters (set --), and the calls of its functions.
type expander struct {
	s     *parse.Script
	sets  []positional          // set -- ARGS, in script order
	calls map[string][][]string // function name -> argument lists of its static calls
	// partialCalls: a function some call of which is not in calls (its
	// arguments are dynamic, or it is called too often to list).
	partialCalls map[string]bool
	ifs          bool // the script assigns IFS: word splitting follows the value it has, when known
	// ifsDynamic: some assignment of IFS is dynamic; splitting is then
	// not known anywhere.
	ifsDynamic bool
	// unknownPos: set -- with words that do not resolve; "$@" after them
	// does not resolve either.
	unknownPos []parse.Pos
	depth      int // command substitutions being resolved, one inside another
	// reads: what read -r A B <<< "words" assigns, A the first word and B
	// the rest (split on the default IFS); unresolved here-strings assign
	// unknown values.
	reads []parse.Assignment
	// what: substitutions of echo and printf are resolved only where they
	// make what runs: a command word, or code for eval or sh -c. A path an
	// argument computes that way stays unknown, as the sandbox's own tests
	// rely on (cat "$(printf %s ~/.ssh/id_rsa)" is for the kernel to refuse).
	what bool
}

type positional struct {
	pos  parse.Pos
	args []string
}

func before(a, b parse.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }

func (x *expander) scan() {
	for _, as := range x.s.Assignments {
		if as.Name == "IFS" {
			x.ifs = true
			x.ifsDynamic = x.ifsDynamic || as.Dynamic
		}
	}
	for i := range x.s.Invocations {
		inv := &x.s.Invocations[i]
		if inv.Name == "read" && !inv.Dynamic && inv.DynamicArgs == nil {
			x.scanRead(inv)
		}
		if inv.Name == "printf" && !inv.Dynamic && len(inv.Args) >= 3 && inv.Args[0] == "-v" && validEnvName(inv.Args[1]) {
			x.scanPrintfV(inv)
		}
		if (inv.Name == "mapfile" || inv.Name == "readarray") && !inv.Dynamic && inv.DynamicArgs == nil {
			x.scanMapfile(i, inv)
		}
		if inv.Name == "set" && !inv.Dynamic && len(inv.Args) > 0 && inv.Args[0] == "--" {
			args := inv.Args[1:]
			if inv.DynamicArgs != nil {
				// set -- -rf "$HOME": resolved as any other word.
				c, ok := x.resolveWith(inv, nil, false)
				if !ok {
					x.sets = append(x.sets, positional{inv.Pos, nil})
					x.unknownPos = append(x.unknownPos, inv.Pos)
					continue
				}
				args = c.Args[1:]
			}
			x.sets = append(x.sets, positional{inv.Pos, args})
		}
		if inv.Function && !inv.Dynamic && (inv.DynamicArgs != nil || len(x.calls[inv.Name]) >= 8) {
			if x.partialCalls == nil {
				x.partialCalls = map[string]bool{}
			}
			x.partialCalls[inv.Name] = true
		}
		if inv.Dynamic || inv.DynamicArgs != nil {
			continue
		}
		if inv.Function {
			if x.calls == nil {
				x.calls = map[string][][]string{}
			}
			if len(x.calls[inv.Name]) < 8 {
				x.calls[inv.Name] = append(x.calls[inv.Name], inv.Args)
			}
		}
	}
}

// everyCall reports whether the n copies resolved from inv, a command of a
// function's body, are that command in every call of the function
// (retry(){ "$@"; }; retry npm ci runs npm ci): the body as written, with
// its words unknown, is then not run as such and need not be judged.
func (x *expander) everyCall(inv *parse.Invocation, n int) bool {
	fn := ""
	for _, v := range inv.Via {
		if strings.HasPrefix(v, "function ") {
			fn = v[len("function "):]
		}
	}
	calls := len(x.calls[fn])
	if fn != "" && x.shifted(fn, inv.Pos) > 0 {
		calls *= 2 // each call's parameters before and after its shifts
	}
	return fn != "" && !x.partialCalls[fn] && n > 0 && n == calls && !isCode(inv)
}

// value returns the value of variable name as the script set it last
// before p, as a list of words for an array.
func (x *expander) value(name string, p parse.Pos) (val string, array []string, ok bool) {
	if name == "HOME" {
		return "~", nil, true
	}
	found := false
	var last parse.Assignment
	for _, as := range x.s.Assignments {
		if as.Name == name && before(as.Pos, p) {
			last, found = as, true
		}
	}
	for _, as := range x.reads {
		if as.Name == name && before(as.Pos, p) && (!found || before(last.Pos, as.Pos)) {
			last, found = as, true
		}
	}
	if !found {
		if name == "IFS" {
			return " \t\n", nil, true // bash sets it at start, whatever the environment says
		}
		return "", nil, false
	}
	if last.Dynamic {
		if len(last.Items) > 0 {
			// for f in a ~/b "$HOME"/c: each of them in turn (param reads
			// them as a list)
			items := make([]string, len(last.Items))
			for k, it := range last.Items {
				if h := homePath(it); h != "" {
					it = h
				}
				items[k] = it
			}
			return "", items, true
		}
		if v := last.Value; len(v) >= 2 && v[0] == '(' && v[len(v)-1] == ')' && !strings.ContainsAny(v[1:len(v)-1], "$`\"'\\()[]*?{}<>|&;") {
			return "", strings.Fields(v[1 : len(v)-1]), true
		}
		if v := last.Value; len(v) >= 2 && v[0] == '(' && v[len(v)-1] == ')' {
			// a=(rm -rf "$HOME"): elements made of values the script set.
			if arr, ok := x.arrayLiteral(v[1:len(v)-1], last.Pos); ok {
				return "", arr, true
			}
			return "", nil, false
		}
		if p := globPath(last.Value); p != "" {
			// for k in ~/.ssh/id_*: each value is a file the pattern
			// matches; the pattern stands for them, as it does written
			// out as an argument (globPath).
			return p, nil, true
		}
		// c="rm,-rf,$HOME": a value made of values the script set. An
		// assignment does not split words; a value that would split here
		// is left unresolved.
		if x.depth < 4 && !strings.HasPrefix(last.Value, "(") {
			x.depth++
			ws, ok := x.expandWord(last.Value, last.Pos, nil, false)
			x.depth--
			if ok && len(ws) == 1 {
				return ws[0], nil, true
			}
			// Round 13: X=rm${IFS}-rf${IFS}~: an assignment splits nothing,
			// so the value is the words together; the default IFS
			// separates them again where $X is used unquoted.
			if ok && len(ws) > 1 && !x.ifs {
				return strings.Join(ws, " "), nil, true
			}
		}
		return "", nil, false
	}
	if x.nameref(last) {
		// declare -n r=HOME: $r is $HOME.
		if !validEnvName(last.Value) || x.depth >= 4 {
			return "", nil, false
		}
		x.depth++
		defer func() { x.depth-- }()
		return x.value(last.Value, p)
	}
	return last.Value, nil, true
}

// loopTarget reports whether a redirection's target is one for loop
// variable alone ("$f", ${f}).
func (x *expander) loopTarget(target string, p parse.Pos) bool {
	m := varWord().FindStringSubmatch(strings.Trim(target, `"`))
	return m != nil && m[2] == "" && x.loopVar(m[1], p)
}

// loopVar reports whether the value of name at p is a for loop's words
// (parse.Assignment.Items): the variable takes each of them in turn.
func (x *expander) loopVar(name string, p parse.Pos) bool {
	var last *parse.Assignment
	for k := range x.s.Assignments {
		if as := &x.s.Assignments[k]; as.Name == name && before(as.Pos, p) {
			last = as
		}
	}
	if last == nil || len(last.Items) == 0 {
		return false
	}
	for _, as := range x.reads {
		if as.Name == name && before(as.Pos, p) && before(last.Pos, as.Pos) {
			return false
		}
	}
	return true
}

// nameref reports whether as is made by declare -n (local -n, typeset -n):
// the variable is then another name for the one its value names.
func (x *expander) nameref(as parse.Assignment) bool {
	for i := range x.s.Invocations {
		inv := &x.s.Invocations[i]
		if inv.Pos.Line != as.Pos.Line || inv.Dynamic {
			continue
		}
		switch commandName(inv.Name) {
		case "declare", "local", "typeset":
		default:
			continue
		}
		ref := false
		for _, a := range inv.Args {
			if len(a) > 1 && a[0] == '-' && strings.IndexByte(a, 'n') > 0 && !strings.Contains(a, "=") {
				ref = true
			}
			if ref && a == as.Name+"="+as.Value {
				return true
			}
		}
	}
	return false
}

// resolve returns the copies of inv with its dynamic words resolved: one
// per set of positional parameters that applies (a function's calls), or
// none when some word does not resolve.
func (x *expander) resolve(inv *parse.Invocation) []parse.Invocation {
	var posLists [][]string
	fn := ""
	for _, v := range inv.Via {
		if strings.HasPrefix(v, "function ") {
			fn = v[len("function "):]
		}
	}
	if fn != "" {
		posLists = x.calls[fn]
		if n := x.shifted(fn, inv.Pos); n > 0 {
			// f(){ shift; "$@"; }; f x rm -rf ~: after shift the
			// parameters start later; a shift in a branch may not have
			// run, so both lists are judged.
			var both [][]string
			for _, pl := range posLists {
				both = append(both, pl, pl[min(n, len(pl)):])
			}
			posLists = both
		}
	} else {
		var last *positional
		for k := range x.sets {
			if before(x.sets[k].pos, inv.Pos) {
				last = &x.sets[k]
			}
		}
		if last != nil {
			for _, u := range x.unknownPos {
				if u == last.pos {
					return nil
				}
			}
			posLists = [][]string{last.args}
		}
	}
	if posLists == nil {
		posLists = [][]string{nil}
	}
	var out []parse.Invocation
	for _, pl := range posLists {
		c, ok := x.resolveWith(inv, pl, fn != "" || len(x.sets) > 0)
		if !ok {
			continue
		}
		if isCode(inv) {
			// eval "$x -rf ~", bash -c "$(printf ...)": the resolved text
			// is code, read as the shell would read it.
			out = append(out, resolvedCode(inv, strings.Join(append([]string{c.Name}, c.Args...), " "))...)
			continue
		}
		out = append(out, c)
	}
	return out
}

// resolvedOwnCode reads the code a resolved command c runs itself, as
// parse reads bash -c CODE, python3 -c CODE or eval CODE written in the
// script (Round 16: run() { "$@"; }; run bash -c 'CODE'): it sets c's
// inline code and returns the commands of a shell's code.
func resolvedOwnCode(inv, c *parse.Invocation) []parse.Invocation {
	if c.Dynamic || len(c.Args) == 0 || c.InlineCode != nil || !isInterpreter(commandName(c.Name)) && c.Name != "eval" {
		return nil
	}
	inner := resolvedCode(inv, shellQuote(append([]string{c.Name}, c.Args...)))
	if len(inner) == 0 {
		return nil
	}
	c.InlineCode = inner[0].InlineCode
	return inner[1:]
}

// shifted returns how many positional parameters the shift commands of
// function fn before p drop (shift, shift 2).
func (x *expander) shifted(fn string, p parse.Pos) int {
	n := 0
	for i := range x.s.Invocations {
		inv := &x.s.Invocations[i]
		if inv.Name != "shift" || inv.Dynamic || !before(inv.Pos, p) || !slices.Contains(inv.Via, "function "+fn) {
			continue
		}
		k := 1
		if len(inv.Args) > 0 {
			if v, err := strconv.Atoi(inv.Args[0]); err == nil && v >= 0 && v < 64 {
				k = v
			}
		}
		n += k
	}
	return n
}

// isCode: inv is code a shell reads that parse could not read because it
// is computed (eval "$x", bash -c "$(...)", trap "$x" EXIT).
func isCode(inv *parse.Invocation) bool {
	if !inv.Dynamic || len(inv.Args) > 0 || len(inv.Via) == 0 {
		return false
	}
	v := inv.Via[len(inv.Via)-1]
	return v == "eval" || v == "trap" || strings.HasSuffix(v, " -c") || strings.HasSuffix(v, " <<")
}

// resolvedCode returns the commands of code, as coming from inv.
func resolvedCode(inv *parse.Invocation, code string) []parse.Invocation {
	inner, err := parseScript(code)
	if err != nil {
		return nil
	}
	var out []parse.Invocation
	for _, x := range inner.Invocations {
		x.Pos = inv.Pos
		x.Via = append(append([]string(nil), inv.Via...), x.Via...)
		out = append(out, x)
		if len(out) > maxExpansions {
			break
		}
	}
	return out
}

func (x *expander) resolveWith(inv *parse.Invocation, pos []string, havePos bool) (parse.Invocation, bool) {
	words := make([]string, 0, len(inv.Args)+1)
	add := func(w string, dyn bool) bool {
		if !dyn {
			words = append(words, w)
			return true
		}
		if !strings.ContainsAny(w, "$`") {
			// Dynamic with nothing to expand: a pattern, or the name a
			// wrapper puts in place at run time (xargs -I %, find -exec
			// {}), whatever its spelling. Unknown here.
			return false
		}
		ws, ok := x.expandWord(w, inv.Pos, pos, havePos)
		if !ok {
			return false
		}
		words = append(words, ws...)
		return true
	}
	x.what = true
	ok := add(inv.Name, inv.Dynamic)
	// A command word hidden in a substitution hides its arguments the same
	// way (`echo rm` -rf `echo ~`): they resolve as it does.
	x.what = isCode(inv) || inv.Dynamic
	if !ok {
		x.what = false
		return parse.Invocation{}, false
	}
	for i, a := range inv.Args {
		if !add(a, inv.DynamicArgs != nil && inv.DynamicArgs[i]) {
			x.what = false
			return parse.Invocation{}, false
		}
	}
	x.what = false
	if len(words) == 0 {
		return parse.Invocation{}, false
	}
	c := *inv
	c.Name, c.Dynamic, c.Args, c.DynamicArgs = words[0], false, words[1:], nil
	if dynamicTarget(inv) {
		c.Redirects = append([]parse.Redirect(nil), inv.Redirects...)
		for k := range c.Redirects {
			r := &c.Redirects[k]
			if !fileRedirect(r) {
				continue
			}
			// echo x >> "$d/.bashrc": a target made of values the script
			// set is the file bash opens (one word, or bash refuses it
			// as ambiguous and runs nothing).
			ws, ok := x.expandWord(r.Target, inv.Pos, pos, havePos)
			switch {
			case ok && len(ws) == 1 && ws[0] != "":
				r.Target, r.Dynamic = ws[0], false
			case ok && len(ws) > 1 && x.loopTarget(r.Target, inv.Pos):
				// for f in ~/*.txt ~/notes; do echo > "$f"; done: each
				// iteration opens one of them
				for _, w := range ws[1:] {
					more := *r
					more.Target, more.Dynamic = w, false
					c.Redirects = append(c.Redirects, more)
				}
				r = &c.Redirects[k] // the append may have moved it
				r.Target, r.Dynamic = ws[0], false
			}
		}
	}
	return c, true
}

// fileRedirect: r is a redirection to or from a file named by a word the
// analysis could not resolve (not a here-document, a here-string or a
// descriptor copy).
func fileRedirect(r *parse.Redirect) bool {
	if !r.Dynamic {
		return false
	}
	switch r.Op {
	case "<<", "<<-", "<<<", ">&", "<&":
		return false
	}
	return true
}

// dynamicTarget: some redirection of inv names a file the analysis could
// not resolve.
func dynamicTarget(inv *parse.Invocation) bool {
	for k := range inv.Redirects {
		if fileRedirect(&inv.Redirects[k]) {
			return true
		}
	}
	return false
}

// expandWord expands the source text of one word as bash would, given the
// script's variables and the positional parameters pos. It handles
// literals, quotes, $NAME, ${NAME}, $1..$9, $@, $* and ${NAME[@]}; anything
// else (command substitution, arithmetic, other parameter operators,
// globs) does not resolve.
func (x *expander) expandWord(src string, at parse.Pos, pos []string, havePos bool) ([]string, bool) {
	var fields []string
	var cur strings.Builder
	curSet := false // cur holds a (possibly empty) quoted part
	flush := func() {
		if cur.Len() > 0 || curSet {
			fields = append(fields, cur.String())
		}
		cur.Reset()
		curSet = false
	}
	// splitInto adds an unquoted expansion's value, split on white space.
	splitInto := func(v string) bool {
		if strings.ContainsAny(v, "*?[") {
			return false
		}
		if x.ifs {
			return x.splitIFS(v, at, &cur, &curSet, flush)
		}
		parts := strings.Fields(v)
		if len(parts) == 0 {
			if v != "" {
				flush() // white space alone still ends the word before it
			}
			return true
		}
		if v[0] == ' ' || v[0] == '\t' || v[0] == '\n' {
			flush()
		}
		for k, p := range parts {
			if k > 0 {
				flush()
			}
			cur.WriteString(p)
		}
		if last := v[len(v)-1]; last == ' ' || last == '\t' || last == '\n' {
			flush()
		}
		return true
	}
	// param reads a parameter at src[i] (after the $) and returns its
	// value(s), whether it is a list ($@, arrays), and the index after it.
	param := func(i int) (vals []string, list bool, next int, ok bool) {
		if i >= len(src) {
			return []string{"$"}, false, i, true
		}
		name := ""
		switch c := src[i]; {
		case c == '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, false, 0, false
			}
			name = src[i+1 : i+end]
			next = i + end + 1
		case c == '@' || c == '*' || c >= '1' && c <= '9':
			name = src[i : i+1]
			next = i + 1
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			name, next = src[i:j], j
		default:
			return nil, false, 0, false
		}
		switch {
		case name == "@" || name == "*":
			if !havePos {
				return nil, false, 0, false
			}
			return pos, name == "@", next, true
		case len(name) == 1 && name[0] >= '1' && name[0] <= '9':
			if !havePos {
				return nil, false, 0, false
			}
			k := int(name[0] - '1')
			if k < len(pos) {
				return []string{pos[k]}, false, next, true
			}
			return []string{""}, false, next, true
		case strings.HasSuffix(name, "[@]") || strings.HasSuffix(name, "[*]"):
			_, arr, ok := x.value(name[:len(name)-3], at)
			if !ok || arr == nil {
				return nil, false, 0, false
			}
			return arr, name[len(name)-2] == '@', next, true
		}
		if len(name) > 2 && name[0] >= '1' && name[0] <= '9' && (name[1] == '-' || strings.HasPrefix(name[1:], ":-")) && x.depth < 4 {
			// Round 14: ${1:-word}, ${1-word}: the parameter when given
			// (and not empty, for :-), else word; with the parameters
			// unknown, word is one of the values it may take, as for
			// ${v:-word} of a variable the script does not set.
			op := name[1:]
			if k := int(name[0] - '1'); havePos && k < len(pos) && (pos[k] != "" || op[0] != ':') {
				return []string{pos[k]}, false, next, true
			}
			x.depth++
			ws, ok := x.expandWord(strings.TrimPrefix(strings.TrimPrefix(op, ":"), "-"), at, pos, havePos)
			x.depth--
			if !ok || len(ws) != 1 {
				return nil, false, 0, false
			}
			return ws, false, next, true
		}
		if k := strings.IndexAny(name, ":-=?"); k > 0 && validEnvName(name[:k]) && (name[k] == '?' || strings.HasPrefix(name[k:], ":?")) {
			// ${v:?word}, ${v?word}: the script's value of v; where v is
			// unset (or empty, for :?) bash stops with word as the message,
			// and nothing runs: only the value is a word it may take.
			v, arr, ok := x.value(name[:k], at)
			if !ok || arr != nil || v == "" && name[k] == ':' {
				return nil, false, 0, false
			}
			return []string{v}, false, next, true
		}
		if k := strings.IndexAny(name, ":-="); k > 0 && validEnvName(name[:k]) {
			// ${v:-word}, ${v-word}, ${v:=word}, ${v=word}: the script's
			// value of v, or else word, the value when v comes unset
			// from the environment (one of the values it may take).
			base, op, word := name[:k], name[k:], ""
			switch {
			case strings.HasPrefix(op, ":-") || strings.HasPrefix(op, ":="):
				word = op[2:]
			case op[0] == '-' || op[0] == '=':
				word = op[1:]
			default:
				return nil, false, 0, false
			}
			v, arr, ok := x.value(base, at)
			if ok && arr == nil && (v != "" || op[0] != ':') {
				return []string{v}, false, next, true
			}
			if ok && arr != nil || x.depth >= 4 {
				return nil, false, 0, false
			}
			x.depth++
			ws, ok := x.expandWord(word, at, pos, havePos)
			x.depth--
			if !ok || len(ws) != 1 {
				return nil, false, 0, false
			}
			return ws, false, next, true
		}
		if ref, ok := strings.CutPrefix(name, "!"); ok && validEnvName(ref) {
			// ${!ref}: the variable ref names, when ref holds a plain
			// name (a subscript in it would be evaluated: not resolved).
			target, arr, ok := x.value(ref, at)
			if !ok || arr != nil || !validEnvName(target) {
				return nil, false, 0, false
			}
			name = target
		}
		if !validEnvName(name) {
			return nil, false, 0, false
		}
		v, arr, ok := x.value(name, at)
		if !ok {
			return nil, false, 0, false
		}
		if arr != nil {
			if x.loopVar(name, at) {
				return arr, true, next, true // for f in a b: $f is each of them
			}
			v = "" // $a of an array is its first element
			if len(arr) > 0 {
				v = arr[0]
			}
		}
		return []string{v}, false, next, true
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\'':
			end := strings.IndexByte(src[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			cur.WriteString(src[i+1 : i+1+end])
			curSet = true
			i += end + 2
		case c == '"':
			i++
			curSet = true
			for {
				if i >= len(src) {
					return nil, false
				}
				d := src[i]
				if d == '"' {
					i++
					break
				}
				switch d {
				case '\\':
					if i+1 < len(src) && strings.IndexByte("$`\"\\", src[i+1]) >= 0 {
						cur.WriteByte(src[i+1])
						i += 2
						continue
					}
					cur.WriteByte(d)
					i++
				case '`':
					return nil, false
				case '$':
					if i+1 < len(src) && src[i+1] == '(' && !strings.HasPrefix(src[i:], "$((") {
						out, next, ok := x.substitution(src, i, at, pos, havePos)
						if !ok {
							return nil, false
						}
						cur.WriteString(out)
						i = next
						continue
					}
					vals, list, next, ok := param(i + 1)
					if !ok {
						return nil, false
					}
					if list {
						// "$@": one word per element, the first and last
						// joined to the text around them.
						if len(vals) == 0 {
							curSet = cur.Len() > 0
						}
						for k, v := range vals {
							if k > 0 {
								flush()
								curSet = true
							}
							cur.WriteString(v)
						}
					} else {
						cur.WriteString(strings.Join(vals, " "))
					}
					i = next
				default:
					cur.WriteByte(d)
					i++
				}
			}
		case c == '\\':
			if i+1 < len(src) {
				cur.WriteByte(src[i+1])
				curSet = true
			}
			i += 2
		case c == '$' && i+1 < len(src) && src[i+1] == '(' && !strings.HasPrefix(src[i:], "$(("):
			out, next, ok := x.substitution(src, i, at, pos, havePos)
			if !ok || !splitInto(out) {
				return nil, false
			}
			i = next
		case c == '`':
			// `...` is $(...) in the old spelling; with a backslash inside,
			// quoting differs: left unresolved.
			end := strings.IndexByte(src[i+1:], '`')
			if end < 0 || strings.ContainsRune(src[i+1:i+1+end], '\\') {
				return nil, false
			}
			out, _, ok := x.substitution("$("+src[i+1:i+1+end]+")", 0, at, pos, havePos)
			if !ok || !splitInto(out) {
				return nil, false
			}
			i += end + 2
		case c == '$':
			vals, _, next, ok := param(i + 1)
			if !ok {
				return nil, false
			}
			for k, v := range vals {
				if k > 0 {
					flush()
				}
				if !splitInto(v) {
					return nil, false
				}
			}
			i = next
		case strings.IndexByte("`*?[{}()<>|&; \t\n", c) >= 0:
			return nil, false
		default:
			cur.WriteByte(c)
			i++
		}
	}
	flush()
	return fields, true
}

// splitIFS adds the unquoted value v to the word being built (cur, with
// flush ending a field) split by the IFS the script set before at: an IFS
// of only white space (IFS=$'\n') or of only other characters (IFS=,).
// A mixed or unknown IFS does not resolve.
func (x *expander) splitIFS(v string, at parse.Pos, cur *strings.Builder, curSet *bool, flush func()) bool {
	ifs, arr, ok := x.value("IFS", at)
	if !ok || x.ifsDynamic || arr != nil {
		return false
	}
	if ifs == "" {
		cur.WriteString(v) // no splitting at all
		return true
	}
	white := strings.Trim(ifs, " \t\n") == ""
	if !white && strings.ContainsAny(ifs, " \t\n") {
		return false
	}
	in := func(c byte) bool { return strings.IndexByte(ifs, c) >= 0 }
	if v == "" {
		return true
	}
	if white {
		parts := strings.FieldsFunc(v, func(r rune) bool { return r < 128 && in(byte(r)) })
		if len(parts) == 0 {
			return true
		}
		if in(v[0]) {
			flush()
		}
		for k, p := range parts {
			if k > 0 {
				flush()
			}
			cur.WriteString(p)
		}
		if in(v[len(v)-1]) {
			flush()
		}
		return true
	}
	// Each delimiter ends a field, empty ones included; one at the very
	// end adds no empty field after it.
	start := 0
	for i := 0; i < len(v); i++ {
		if in(v[i]) {
			cur.WriteString(v[start:i])
			*curSet = true
			flush()
			start = i + 1
		}
	}
	cur.WriteString(v[start:])
	return true
}

// substitution resolves the command substitution $(...) at src[i]: its
// output, when the command is echo or printf with words that resolve (the
// usual way to hide a name: $(echo rm), "$(printf 'r%s' m)"), and the
// index after it. Anything else does not resolve.
func (x *expander) substitution(src string, i int, at parse.Pos, pos []string, havePos bool) (string, int, bool) {
	end := closingParen(src, i+2)
	if end < 0 || x.depth >= 2 || !x.what {
		return "", 0, false
	}
	text := strings.TrimLeft(src[i+2:end], " \t")
	if !strings.HasPrefix(text, "echo") && !strings.HasPrefix(text, "printf") {
		return "", 0, false // parsed only when it can resolve
	}
	inner, err := parseScript(text)
	if err != nil || len(inner.Invocations) != 1 || len(inner.Assignments) != 0 {
		return "", 0, false
	}
	inv := &inner.Invocations[0]
	if inv.Dynamic || len(inv.Redirects) > 0 || len(inv.Via) > 0 || len(inv.Env) > 0 || inv.InlineCode != nil || inv.Background || inv.Function || inv.PipedInto {
		return "", 0, false
	}
	x.depth++
	var args []string
	for k, a := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			ws, ok := x.expandWord(a, at, pos, havePos)
			if !ok {
				x.depth--
				return "", 0, false
			}
			args = append(args, ws...)
			continue
		}
		args = append(args, a)
	}
	x.depth--
	var out string
	var ok bool
	switch inv.Name {
	case "echo":
		out, ok = echoOutput(args)
	case "printf":
		out, ok = printfOutput(args)
	}
	if !ok || strings.IndexByte(out, 0) >= 0 { // bash drops NULs from $(...), with a warning
		return "", 0, false
	}
	return strings.TrimRight(out, "\n"), end + 1, true
}

// closingParen returns the index of the ) that closes the ( before src[i],
// skipping quoted text, or -1.
func closingParen(src string, i int) int {
	depth := 1
	for ; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				return -1
			}
			i += j + 1
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// echoOutput is what bash's echo prints for args (without xpg_echo), when
// that is plain: -e and backslashes are left unresolved.
func echoOutput(args []string) (string, bool) {
	for len(args) > 0 && (args[0] == "-n" || args[0] == "-E") {
		args = args[1:]
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") && strings.Trim(a[1:], "neE") == "" && len(a) > 1 || strings.ContainsRune(a, '\\') {
			return "", false
		}
	}
	return strings.Join(args, " ") + "\n", true
}

// printfOutput is what bash's printf prints for args, for formats of
// literal text, %s, %% and the escapes \n, \t and \\; others do not resolve.
func printfOutput(args []string) (string, bool) {
	if len(args) == 0 || args[0] == "-v" || args[0] == "--" {
		return "", false
	}
	format, vals := args[0], args[1:]
	var b strings.Builder
	for round := 0; ; round++ {
		used := 0
		for i := 0; i < len(format); i++ {
			switch c := format[i]; {
			case c == '\\' && i+1 < len(format):
				i++
				switch format[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '\\':
					b.WriteByte('\\')
				case 'x':
					// \xHH: one or two hex digits.
					n, v := 0, 0
					for n < 2 && i+1 < len(format) && isHex(format[i+1]) {
						i++
						v = v*16 + hexVal(format[i])
						n++
					}
					if n == 0 {
						return "", false
					}
					b.WriteByte(byte(v))
				case '0', '1', '2', '3', '4', '5', '6', '7':
					// \NNN: up to three octal digits.
					v := int(format[i] - '0')
					for n := 1; n < 3 && i+1 < len(format) && format[i+1] >= '0' && format[i+1] <= '7'; n++ {
						i++
						v = v*8 + int(format[i]-'0')
					}
					b.WriteByte(byte(v))
				default:
					return "", false
				}
			case c == '%' && i+1 < len(format):
				i++
				switch format[i] {
				case '%':
					b.WriteByte('%')
				case 's':
					if used < len(vals) {
						b.WriteString(vals[used])
					}
					used++
				default:
					return "", false
				}
			case c == '%' || c == '\\':
				return "", false
			default:
				b.WriteByte(c)
			}
		}
		if used == 0 || used >= len(vals) || round > 64 {
			break
		}
		vals = vals[used:]
	}
	if b.Len() > 4096 {
		return "", false
	}
	return b.String(), true
}

// commandArgCode returns the commands other commands run from their
// arguments, which parse does not read: the shell code some git commands
// take (git submodule foreach CMD, git rebase --exec CMD), the command git
// bisect run runs, and the program a launcher runs by its package or
// module name (python -m twine, npx vsce, uvx ruff, pipx run x).
func commandArgCode(inv *parse.Invocation) (out []parse.Invocation) {
	if inv.Dynamic {
		return nil
	}
	var code []string
	via := commandName(inv.Name)
	if remoteTools[via] {
		out = remoteInvocations(inv, via)
	}
	switch via {
	case "git":
		for k, a := range inv.Args {
			switch {
			case a == "foreach" && k > 0 && (inv.Args[k-1] == "submodule" || k > 1 && inv.Args[k-2] == "submodule" && (inv.Args[k-1] == "-q" || inv.Args[k-1] == "--quiet")):
				rest := inv.Args[k+1:]
				for len(rest) > 0 && (rest[0] == "--recursive" || rest[0] == "-q" || rest[0] == "--quiet" || rest[0] == "--") {
					rest = rest[1:] // git submodule foreach --recursive CMD
				}
				code = append(code, strings.Join(rest, " "))
			case a == "run" && k > 0 && inv.Args[k-1] == "bisect":
				code = append(code, shellQuote(inv.Args[k+1:]))
			case (a == "-x" || a == "--exec") && k+1 < len(inv.Args):
				code = append(code, inv.Args[k+1])
			case strings.HasPrefix(a, "--exec="):
				code = append(code, a[len("--exec="):])
			case strings.HasSuffix(a, "-callback") && strings.HasPrefix(a, "--") && k+1 < len(inv.Args) && slices.Contains(inv.Args[:k], "filter-repo"):
				// Round 14: git filter-repo --commit-callback BODY runs BODY
				// as Python for every commit.
				code = append(code, shellQuote([]string{"python3", "-c", inv.Args[k+1]}))
			case gitFilterOptions[a] && k+1 < len(inv.Args) && slices.Contains(inv.Args[:k], "filter-branch"):
				// Round 14: git filter-branch --tree-filter CMD runs CMD
				// through the shell for every commit.
				code = append(code, inv.Args[k+1])
			}
		}
	case "printf", "test", "[", "read", "unset", "declare", "typeset", "local", "readonly", "let":
		return subscriptCode(inv)
	case "mix", "mvn", "mvnw":
		code = toolCode(inv)
	case "fd", "fdfind", "ansible", "dotnet", "msbuild":
		code = toolCommandCode(inv)
	default:
		c, direct := launchedCode(inv)
		if _, ok := launchers[via]; !ok {
			c, direct = launched(inv)
		}
		code = append(code, c...)
		if direct != nil {
			direct.Pos = inv.Pos
			direct.Env = inheritEnv(inv.Env, direct.Env)
			direct.Via = append(append([]string(nil), inv.Via...), via)
			defer func() { out = append(out, *direct) }()
		}
	}
	return append(out, codesRunBy(inv, code, via, []string{via})...)
}

// codesRunBy returns the commands of each code string inv runs through
// via (codeRunBy), each followed by what it launches in turn (a launcher
// launching a launcher, docker exec run by ssh); a string that does not
// parse is a dynamic command, with dynVia.
func codesRunBy(inv *parse.Invocation, code []string, via string, dynVia []string) (out []parse.Invocation) {
	for _, c := range code {
		inner, ok := codeRunBy(inv, c, via)
		if !ok {
			out = append(out, parse.Invocation{Name: c, Dynamic: true, Pos: inv.Pos, Via: dynVia})
			continue
		}
		for _, x := range inner {
			out = append(out, x)
			if len(x.Via) < 8 && len(out) < maxExpansions && anyCommandArg([]parse.Invocation{x}) {
				out = append(out, commandArgCode(&x)...)
			}
		}
	}
	return out
}

// codeRunBy parses code that inv runs and returns its invocations as inv
// runs them: at inv's place, with inv's environment under their own, and
// inv's chain, then via, before their own. ok is false when the code does
// not parse.
func codeRunBy(inv *parse.Invocation, code, via string) (invs []parse.Invocation, ok bool) {
	inner, err := parseScript(code)
	if err != nil {
		return nil, false
	}
	invs = make([]parse.Invocation, 0, len(inner.Invocations))
	for _, x := range inner.Invocations {
		x.Pos = inv.Pos
		x.Env = inheritEnv(inv.Env, x.Env)
		x.Via = append(append([]string(nil), inv.Via...), append([]string{via}, x.Via...)...)
		invs = append(invs, x)
	}
	return invs, true
}

// inheritEnv is the environment given to a command a launcher or wrapper
// runs: the launcher's own (DATABASE_URL=x npx prisma ...), then its own.
func inheritEnv(outer, own []string) []string {
	if len(outer) == 0 {
		return own
	}
	return append(append([]string(nil), outer...), own...)
}

// subscriptCode returns the commands in the array subscripts of the static
// arguments of a builtin that takes a variable name or an arithmetic
// expression (printf -v 'a[$(cmd)]', test -v, read, unset, declare, let):
// bash evaluates the subscript, and so runs the command substitution in it,
// though the word itself was quoted.
func subscriptCode(inv *parse.Invocation) []parse.Invocation {
	var out []parse.Invocation
	for k, a := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] || !hasSubscriptCode(a) {
			continue
		}
		if commandName(inv.Name) == "let" {
			a = unquoteSimple(a) // let's arguments come as written: arithmetic
		}
		for _, x := range codeInValue(parse.Assignment{Name: "_", Value: a, Pos: inv.Pos}) {
			x.Via = append(append([]string(nil), inv.Via...), append([]string{commandName(inv.Name)}, x.Via...)...)
			out = append(out, x)
		}
		if len(out) > maxExpansions {
			break
		}
	}
	return out
}

// hasSubscriptCode: a word with a command substitution after a [.
func hasSubscriptCode(w string) bool {
	i := strings.IndexByte(w, '[')
	return i >= 0 && (strings.Contains(w[i:], "$(") || strings.Contains(w[i:], "`"))
}

func subscriptArg(inv *parse.Invocation) bool {
	for k, a := range inv.Args {
		if !(inv.DynamicArgs != nil && inv.DynamicArgs[k]) && hasSubscriptCode(a) {
			return true
		}
	}
	return false
}

// launched returns, as shell code, the command python -m MODULE ARGS runs
// (MODULE ARGS); the launchers of the table launchers are read by
// launchedCode. A dynamic word after the module leaves the command as it
// is (direct), since its words cannot be written back as code.
func launched(inv *parse.Invocation) (code []string, direct *parse.Invocation) {
	name := strings.TrimRight(commandName(inv.Name), "0123456789.")
	if name != "python" && name != "pypy" {
		return nil, nil
	}
	args := inv.Args
	dyn := func(k int) bool { return inv.DynamicArgs != nil && inv.DynamicArgs[k] }
	from := func(k int, name string) (code []string, direct *parse.Invocation) {
		for j := k; j < len(args); j++ {
			if dyn(j) {
				d := &parse.Invocation{Name: name, Args: args[k:], DynamicArgs: inv.DynamicArgs[k:]}
				return nil, d
			}
		}
		return []string{shellQuote(append([]string{name}, args[k:]...))}, nil
	}
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case dyn(k) || a == "-c" || !strings.HasPrefix(a, "-") || a == "-":
			return nil, nil
		case a == "-m" && k+1 < len(args) && !dyn(k+1):
			return from(k+2, args[k+1])
		case strings.HasPrefix(a, "-m") && len(a) > 2:
			return from(k+1, a[2:])
		case a == "-W" || a == "-X":
			k++
		}
	}
	return nil, nil
}

// packageCommand is the command a package spec names: @vscode/vsce@2 is
// vsce; a scope's package named cli installs the scope's command
// (@railway/cli is railway, @sanity/cli@3 is sanity).
func packageCommand(spec string) string {
	if i := strings.LastIndexByte(spec, '/'); i >= 0 && strings.HasPrefix(spec, "@") {
		scope, rest := spec[1:i], spec[i+1:]
		if packageCommand(rest) == "cli" && scope != "" && !strings.Contains(scope, "/") {
			return scope
		}
		spec = rest
	}
	if i := strings.IndexByte(spec[min(1, len(spec)):], '@'); i >= 0 {
		spec = spec[:i+min(1, len(spec))]
	}
	if i := strings.IndexAny(spec, "=<>[~"); i > 0 { // ruff==0.5, pkg[extra]
		spec = spec[:i]
	}
	return spec
}

// shellQuote writes words as shell code that gives back the same words.
func shellQuote(words []string) string {
	var b strings.Builder
	for k, w := range words {
		if k > 0 {
			b.WriteByte(' ')
		}
		if w != "" && strings.IndexFunc(w, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			b.WriteString(w)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(w, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

func anyCommandArg(invs []parse.Invocation) bool {
	for i := range invs {
		if invs[i].Dynamic {
			continue
		}
		switch n := commandName(invs[i].Name); {
		case n == "git":
			for _, a := range invs[i].Args {
				if a == "foreach" || a == "-x" || a == "--exec" || a == "bisect" || strings.HasPrefix(a, "--exec=") || a == "filter-branch" || a == "filter-repo" {
					return true
				}
			}
		case n == "printf" || n == "test" || n == "[" || n == "read" || n == "unset" || n == "declare" || n == "typeset" || n == "local" || n == "readonly" || n == "let":
			if subscriptArg(&invs[i]) {
				return true
			}
		case launchers[n].subs != nil || launchers[n].values != nil || launchers[n].code != nil:
			return true
		case toolCodeTools[n]:
			return true
		case toolCommandTools[n]:
			return true
		case remoteTools[n] && (len(invs[i].Args) > 1 || len(invs[i].Redirects) > 0):
			return true
		case strings.HasPrefix(n, "python") || strings.HasPrefix(n, "pypy"):
			for _, a := range invs[i].Args {
				if strings.HasPrefix(a, "-m") {
					return true
				}
			}
		}
	}
	return false
}

// codeInQuotedText returns the commands in single-quoted text that holds a
// command substitution, in a script that evaluates text as arithmetic
// ([[ $n -eq 'x[$(cmd)]' ]], (( ... )), let): bash runs the substitution
// in an array subscript of the text.
func codeInQuotedText(text string) []parse.Invocation {
	if !strings.Contains(text, "[[") && !strings.Contains(text, "((") && !strings.Contains(text, "let ") && !strings.Contains(text, "declare -i") {
		return nil
	}
	var out []parse.Invocation
	for rest := text; ; {
		i := strings.IndexByte(rest, '\'')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '\'')
		if j < 0 {
			break
		}
		q := rest[i+1 : i+1+j]
		rest = rest[i+j+2:]
		if !strings.Contains(q, "$(") && !strings.Contains(q, "`") {
			continue
		}
		out = append(out, codeInValue(parse.Assignment{Name: "_", Value: q, Pos: parse.Pos{Line: 1, Col: 1}})...)
		if len(out) > maxExpansions {
			break
		}
	}
	return out
}

// A variable the script sets only to what mktemp prints names a file or
// directory that mktemp has just made, fresh and random: removing it, or
// anything under it, removes only what the script put there
// (tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT). Any other assignment
// of the variable (another value, a loop, read, declare ...) and it is
// unknown again. (The patterns are compiled on first use, not when the
// program starts.)
var (
	mktempValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^"?\$\(mktemp(\s+(-[dqtu]+|--directory|--dry-run|--quiet|--tmpdir(=[^\s$` + "`" + `;|&()]*)?|-p\s+[^\s$` + "`" + `;|&()]+|--suffix=[^\s$` + "`" + `;|&()/]*|[A-Za-z0-9._-]*XXX[A-Za-z0-9._-]*))*\)"?$`)
	})
	varWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?(/[^$` + "`" + `'\\]*)?$`)
	})
)

// freshTempPath stands for a path mktemp made.
const freshTempPath = "/tmp/tmp.mktemp"

// freshTempArgs returns the invocations of s with the arguments that name
// such a fresh path written as that path, no longer unknown.
func freshTempArgs(s *parse.Script) []parse.Invocation {
	invs := s.Invocations
	var fresh map[string]bool
	for _, as := range s.Assignments {
		if as.Dynamic && mktempValue().MatchString(as.Value) {
			if fresh == nil {
				fresh = map[string]bool{}
			}
			if _, seen := fresh[as.Name]; !seen {
				fresh[as.Name] = true
			}
		}
	}
	if fresh == nil {
		return invs
	}
	for _, as := range s.Assignments {
		if !(as.Dynamic && mktempValue().MatchString(as.Value)) {
			delete(fresh, as.Name)
		}
	}
	for i := range invs {
		if assignsUnknownName(&invs[i]) {
			return invs // declare "$n"=/: any variable may change
		}
		for k, a := range invs[i].Args {
			if invs[i].DynamicArgs != nil && invs[i].DynamicArgs[k] {
				continue
			}
			if j := strings.IndexByte(a, '='); j > 0 {
				a = a[:j]
			}
			delete(fresh, a) // read tmp, declare tmp, local tmp=...
		}
	}
	var out []parse.Invocation
	for i := range invs {
		inv := &invs[i]
		if name, ok := freshTempProgram(inv, fresh); ok {
			// "$d/app" --version: a program the script put in its fresh directory
			if out == nil {
				out = append([]parse.Invocation(nil), invs...)
			}
			out[i].Name, out[i].Dynamic = name, false
		}
		if inv.DynamicArgs == nil {
			continue
		}
		args, dyn := resolvedArgs(inv, func(a string) (string, bool) {
			m := varWord().FindStringSubmatch(strings.ReplaceAll(a, `"`, ""))
			if m == nil || !fresh[m[1]] || strings.Contains(m[2], "..") {
				return "", false
			}
			return freshTempPath + m[2], true
		})
		if args == nil {
			continue
		}
		out = withArgs(out, invs, i, args, dyn)
	}
	if out == nil {
		return invs
	}
	return out
}

// resolvedArgs returns inv's arguments, with each dynamic one that resolve
// knows replaced by its value and marked static, or nils when it knows none.
// inv.DynamicArgs must not be nil.
func resolvedArgs(inv *parse.Invocation, resolve func(arg string) (string, bool)) (args []string, dyn []bool) {
	for k, a := range inv.Args {
		if !inv.DynamicArgs[k] {
			continue
		}
		v, ok := resolve(a)
		if !ok {
			continue
		}
		if args == nil {
			args = append([]string(nil), inv.Args...)
			dyn = append([]bool(nil), inv.DynamicArgs...)
		}
		args[k], dyn[k] = v, false
	}
	return args, dyn
}

// withArgs returns invs with invocation i's arguments and their dynamic
// marks replaced, copying invs on the first replacement (out is nil until
// then), so that the caller's slice is never written.
func withArgs(out, invs []parse.Invocation, i int, args []string, dyn []bool) []parse.Invocation {
	if out == nil {
		out = append([]parse.Invocation(nil), invs...)
	}
	out[i].Args = args
	out[i].DynamicArgs = dyn
	if !anyTrue(dyn) {
		out[i].DynamicArgs = nil
	}
	return out
}

// spliced returns out with repl in place of invs[i], copying invs[:i] on
// the first change (out is nil until then), so that the caller's slice is
// never written. kept is its twin for an invocation left as it is.
func spliced(out, invs []parse.Invocation, i int, repl ...parse.Invocation) []parse.Invocation {
	if out == nil {
		out = append(make([]parse.Invocation, 0, len(invs)+len(repl)), invs[:i]...)
	}
	return append(out, repl...)
}

// kept returns out with inv after it once out is a copy; nil stays nil.
func kept(out []parse.Invocation, inv *parse.Invocation) []parse.Invocation {
	if out == nil {
		return nil
	}
	return append(out, *inv)
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// arrayLiteral returns the elements of an array assignment's parenthesised
// list, when each resolves; a substitution or an unresolved word in it and
// the list stays unknown.
func (x *expander) arrayLiteral(list string, at parse.Pos) ([]string, bool) {
	if x.depth >= 4 || strings.ContainsAny(list, "`\n;&|<>") || strings.Contains(list, "$(") || strings.Contains(list, "[") {
		return nil, false
	}
	inner, err := parseScript(": " + list)
	if err != nil || len(inner.Invocations) != 1 || len(inner.Assignments) != 0 {
		return nil, false
	}
	inv := &inner.Invocations[0]
	if inv.Name != ":" || inv.Dynamic || len(inv.Via) > 0 || len(inv.Redirects) > 0 {
		return nil, false
	}
	x.depth++
	defer func() { x.depth-- }()
	var out []string
	for k, a := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			ws, ok := x.expandWord(a, at, nil, false)
			if !ok {
				return nil, false
			}
			out = append(out, ws...)
			continue
		}
		out = append(out, a)
	}
	return out, true
}

// linkedPrograms adds, after each invocation that runs a file an earlier
// command made as a link to or a copy of a program (ln -s /bin/rm ./tidy;
// ./tidy -rf ~), a copy that runs that program by its own name.
func linkedPrograms(invs []parse.Invocation) []parse.Invocation {
	type program struct {
		name    string
		dynamic bool // known only at run time: ln -s "$(command -v rm)" t
	}
	var links map[string]program
	var out []parse.Invocation
	for i := range invs {
		inv := &invs[i]
		if !inv.Dynamic {
			if t, ok := links[path.Clean(inv.Name)]; ok && strings.Contains(inv.Name, "/") {
				c := *inv
				c.Name, c.Dynamic = t.name, t.dynamic
				c.Via = append(append([]string(nil), inv.Via...), "link")
				out = spliced(out, invs, i, *inv, c)
				continue
			}
			switch commandName(inv.Name) {
			case "ln", "cp", "install":
				var ops []string
				var dyn []bool
				for k, a := range inv.Args {
					d := inv.DynamicArgs != nil && inv.DynamicArgs[k]
					if d || !strings.HasPrefix(a, "-") {
						ops, dyn = append(ops, a), append(dyn, d)
					}
				}
				if len(ops) == 2 && !dyn[1] && len(links) < 64 {
					if links == nil {
						links = map[string]program{}
					}
					links[path.Clean(ops[1])] = program{ops[0], dyn[0]}
				}
			}
		}
		out = kept(out, inv)
	}
	if out == nil {
		return invs
	}
	return out
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// scanPrintfV records what printf -v NAME FORMAT ARGS assigns NAME, when
// its words resolve (printf -v c '%s ' rm -rf "$HOME"; eval "$c").
func (x *expander) scanPrintfV(inv *parse.Invocation) {
	args := inv.Args
	if inv.DynamicArgs != nil {
		if slices.Contains(inv.DynamicArgs[:2], true) {
			return
		}
		c, ok := x.resolveWith(inv, nil, false)
		if !ok {
			x.reads = append(x.reads, parse.Assignment{Name: args[1], Pos: inv.Pos, Dynamic: true, Value: "printf"})
			return
		}
		args = c.Args
	}
	out, ok := printfOutput(args[2:])
	x.reads = append(x.reads, parse.Assignment{Name: args[1], Pos: inv.Pos, Dynamic: !ok, Value: out})
}

// scanMapfile records the array mapfile -t NAME (readarray) fills from a
// static here-string or here-document, one element a line.
func (x *expander) scanMapfile(i int, inv *parse.Invocation) {
	name := "MAPFILE"
	for _, a := range inv.Args {
		switch {
		case a == "-t":
		case strings.HasPrefix(a, "-"):
			return // -d, -C, -s ...: not resolved
		case validEnvName(a):
			name = a
		default:
			return
		}
	}
	for _, r := range inv.Redirects {
		if (r.Op == "<<<" || r.Op == "<<" || r.Op == "<<-") && (r.FD == "" || r.FD == "0") {
			as := parse.Assignment{Name: name, Pos: inv.Pos, Dynamic: true, Value: "mapfile"}
			lines := strings.Split(strings.TrimSuffix(r.Target, "\n"), "\n")
			if !r.Dynamic && !strings.ContainsAny(r.Target, "$`\"'\\()[]*?{}<>|&; \t") {
				as.Value = "(" + strings.Join(lines, " ") + ")"
			}
			x.reads = append(x.reads, as)
			return
		}
		// Round 20: or from echo and printf of static words in a process
		// substitution (mapfile -t a < <(printf '%s\n' cat f)), the
		// commands just before it in the list
		if r.Op == "<" && (r.FD == "" || r.FD == "0") && strings.HasPrefix(r.Target, "<(") {
			if out, ok := x.substitutionOutput(i, inv); ok && !strings.ContainsAny(out, "$`\"'\\()[]*?{}<>|&; \t") {
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				x.reads = append(x.reads, parse.Assignment{Name: name, Pos: inv.Pos, Dynamic: true, Value: "(" + strings.Join(lines, " ") + ")"})
			}
			return
		}
	}
}

// substitutionOutput is what the echo and printf commands of the process
// substitution inv reads from print, resolved as any other words: the
// invocations before the i-th on its line, inside <(...), after its start.
func (x *expander) substitutionOutput(i int, inv *parse.Invocation) (string, bool) {
	start := i
	for start > 0 {
		f := &x.s.Invocations[start-1]
		if len(f.Via) == 0 || f.Via[len(f.Via)-1] != "<(...)" || f.Pos.Line != inv.Pos.Line || f.Pos.Col <= inv.Pos.Col {
			break
		}
		start--
	}
	if start == i {
		return "", false
	}
	var out strings.Builder
	for k := start; k < i; k++ {
		f := &x.s.Invocations[k]
		if f.Dynamic || len(f.Via) != 1 || f.Name != "echo" && f.Name != "printf" || len(f.Redirects) > 0 {
			return "", false
		}
		args := f.Args
		if f.DynamicArgs != nil {
			c, ok := x.resolveWith(f, nil, false)
			if !ok {
				return "", false
			}
			args = c.Args
		}
		text, ok := echoOutput(args)
		if f.Name == "printf" {
			text, ok = printfOutput(args)
		}
		if !ok {
			return "", false
		}
		out.WriteString(text)
	}
	return out.String(), true
}

// scanRead records what read assigns from a here-string (read -r a b <<< "x y z")
// or the first line of a here-document.
func (x *expander) scanRead(inv *parse.Invocation) {
	var names []string
	array := false // read -a NAME (-ra NAME): the words are NAME's elements
	whole := false // read -d '' NAME: up to a NUL, the whole input
	for k := 0; k < len(inv.Args); k++ {
		switch a := inv.Args[k]; {
		case (a == "-d" || a == "-rd") && k+1 < len(inv.Args) && inv.Args[k+1] == "" && (inv.DynamicArgs == nil || !inv.DynamicArgs[k+1]):
			whole = true // Round 21: a here-document read whole, then run (eval "$P")
			k++
		case a == "-r":
		case a == "-a" || a == "-ra" || a == "-ar":
			array = true
		case strings.HasPrefix(a, "-"):
			return // -d, -n ...: not resolved
		case validEnvName(a):
			names = append(names, a)
		default:
			return
		}
	}
	if array && len(names) != 1 {
		return
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	var text string
	ok := false
	for _, r := range inv.Redirects {
		if r.Op == "<<<" && r.FD == "" {
			text, ok = r.Target, !r.Dynamic
			if r.Dynamic && !x.ifs && x.depth < 4 {
				x.depth++
				ws, wok := x.expandWord(r.Target, inv.Pos, nil, false)
				x.depth--
				if wok && len(ws) == 1 {
					text, ok = ws[0], true
				}
			}
		}
		// Round 13: a here-document gives read its first line.
		if (r.Op == "<<" || r.Op == "<<-") && r.FD == "" {
			text, _, _ = strings.Cut(r.Target, "\n")
			if whole {
				text = r.Target
			}
			ok = !r.Dynamic
		}
	}
	if whole && !array && len(names) == 1 {
		// one name takes it all, lines kept, IFS whitespace trimmed at the ends
		as := parse.Assignment{Name: names[0], Pos: inv.Pos, Dynamic: !ok, Value: "read"}
		if ok {
			as.Value = strings.Trim(text, " \t\n")
		}
		x.reads = append(x.reads, as)
		return
	}
	fields := strings.Fields(text)
	if array {
		// an array literal of the words, as value reads it back
		// (unknown when a word would not read back as itself)
		as := parse.Assignment{Name: names[0], Pos: inv.Pos, Dynamic: true, Value: "read"}
		if ok && !strings.ContainsAny(text, "$`\"'\\()[]*?{}<>|&;") {
			as.Value = "(" + strings.Join(fields, " ") + ")"
		}
		x.reads = append(x.reads, as)
		return
	}
	for k, n := range names {
		as := parse.Assignment{Name: n, Pos: inv.Pos, Dynamic: !ok, Value: "read"}
		if ok {
			as.Value = ""
			switch {
			case k == len(names)-1 && k < len(fields):
				as.Value = strings.Join(fields[k:], " ")
			case k < len(fields):
				as.Value = fields[k]
			}
		}
		x.reads = append(x.reads, as)
	}
}
