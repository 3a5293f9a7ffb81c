package policy

import (
	"regexp"
	"strings"
	"sync"

	"github.com/stockade/stockade/parse"
)

// Inline code that runs a program named in full by literals
// (python -c "import subprocess; subprocess.run(['pytest', '-q'])",
// node -e "require('child_process').execSync('npm run build')",
// ruby -e 'system("bundle exec rspec")') runs that program: the call is judged as
// the command it runs, added to the script, and the code is judged with the
// call taken out. A call whose program or arguments are computed, an alias
// of the module, an environment or a shell option given to the call, and
// any other way of running programs leave the code as it was, so
// inline-code-runs-programs still judges it.

// str matches one plain string literal: no escapes, no interpolation
// (checked per language in literal).
const str = `(?:'[^'\\\n]*'|"[^"\\\n]*")`

var inlineCallPatterns = sync.OnceValue(func() map[string][]*regexp.Regexp {
	list := `\[\s*` + str + `(?:\s*,\s*` + str + `)*\s*,?\s*\]`
	pyKw := `(?:(?:check|capture_output|text|universal_newlines|shell)\s*=\s*(?:True|False)|timeout\s*=\s*\d+|(?:cwd|encoding)\s*=\s*` + str + `|(?:stdout|stderr)\s*=\s*subprocess\.(?:PIPE|DEVNULL|STDOUT)|stdin\s*=\s*subprocess\.DEVNULL)`
	py := []*regexp.Regexp{
		regexp.MustCompile(`\bsubprocess\.(run|call|check_call|check_output|Popen)\(\s*(` + list + `|` + str + `)((?:\s*,\s*` + pyKw + `)*)\s*,?\s*\)`),
		regexp.MustCompile(`\bos\.(system)\(\s*(` + str + `)()\s*\)`),
		// Round 17: exec(open('f.py').read()) and runpy.run_path('f.py') run
		// the file as python f.py does
		regexp.MustCompile(`\b(exec)\(\s*open\(\s*(` + str + `)\s*\)\.read\(\)\s*\)()`),
		regexp.MustCompile(`\brunpy\.(run_path)\(\s*(` + str + `)()\s*\)`),
	}
	cp := `require\(\s*['"](?:node:)?child_process['"]\s*\)`
	jsOpt := `(?:(?:stdio|encoding|cwd)\s*:\s*` + str + `|timeout\s*:\s*\d+)`
	js := []*regexp.Regexp{
		regexp.MustCompile(cp + `\.(execSync|exec|execFileSync|execFile|spawnSync|spawn)\(\s*(` + str + `)\s*((?:,\s*` + list + `)?\s*(?:,\s*\{\s*(?:` + jsOpt + `(?:\s*,\s*` + jsOpt + `)*)?\s*,?\s*\})?)\s*\)`),
	}
	sys := []*regexp.Regexp{
		regexp.MustCompile(`\b(system)\(\s*(` + str + `(?:\s*,\s*` + str + `)*)()\s*\)`),
	}
	return map[string][]*regexp.Regexp{"python": py, "node": js, "ruby": sys, "perl": sys}
})

// inlineCallsNeed is, for each family, what code must contain for one of
// its call patterns to match (requiredText of each): most inline code holds
// none of it, and is not searched further.
var inlineCallsNeed = sync.OnceValue(func() map[string]requirement {
	need := map[string]requirement{}
	for family, pats := range inlineCallPatterns() {
		var r requirement
		for _, re := range pats {
			w := requiredText(re.String())
			if w == nil {
				r = nil // nothing known: search every code
				break
			}
			r = append(r, w...)
		}
		need[family] = r
	}
	return need
})

// inlineFamily is the language of an interpreter's inline code, as
// inlineCallPatterns names it.
func inlineFamily(interp string) string {
	switch strings.TrimRight(interp, "0123456789.") {
	case "python", "pypy":
		return "python"
	case "node", "nodejs", "bun", "deno":
		return "node"
	case "ruby":
		return "ruby"
	case "perl":
		return "perl"
	}
	// Not awk: a text tool running any program is its own class
	// (inline-code-runs-programs, awk 'BEGIN{system("id")}').
	return ""
}

var (
	literalRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(str) })
	jsCwdRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`cwd\s*:\s*(` + str + `)`) })
	pyCwdRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`cwd\s*=\s*(` + str + `)`) })
	repeats   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(for|while|until|loop|do|each|times|upto|map|forEach|setInterval|setTimeout|repeat|Array\.from|range|goto|redo)\b|=>|\blambda\b|\bfunction\b|\bdef\b|\bsub\b|\bproc\b`)
	})
	pyShellRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`shell\s*=\s*True`) })
	importPyRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|;|\n)\s*import\s+(?:subprocess|os)(?:\s*,\s*(?:subprocess|os|sys|json|pathlib|shutil))*\s*(;|\n|$)`)
	})
)

// literals returns the strings of a run of literals, false when one of them
// could interpolate in family's language.
func literals(s, family string) ([]string, bool) {
	var out []string
	for _, l := range literalRe().FindAllString(s, -1) {
		v := l[1 : len(l)-1]
		if l[0] == '"' && (family == "ruby" && strings.Contains(v, "#{") || family == "perl" && strings.ContainsAny(v, "$@")) {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// inlineCalls returns the code with the calls taken out and the shell text
// of the commands they run, or ok false when the code has none of them.
func inlineCalls(ic *parse.InlineCode) (code string, cmds []string, ok bool) {
	if ic == nil || ic.Dynamic {
		return "", nil, false
	}
	family := inlineFamily(commandName(ic.Interpreter))
	pats := inlineCallPatterns()[family]
	if pats == nil || !inlineCallsNeed()[family].holds(ic.Code, nil) {
		return "", nil, false // no call to take out
	}
	if repeats().MatchString(ic.Code) {
		return "", nil, false // for(;;) spawn(...): as many programs as it likes
	}
	code = ic.Code
	for _, re := range pats {
		bad := false
		code = re.ReplaceAllStringFunc(code, func(call string) string {
			m := re.FindStringSubmatch(call)
			fn, first, rest := m[1], m[2], m[3]
			args, lit := literals(first, family)
			if !lit || len(args) == 0 {
				bad = true
				return call
			}
			var text string
			switch {
			case family == "python" && (fn == "exec" || fn == "run_path"):
				text = "python3 " + shellQuote(args[:1]) // a file of Python code
			case family == "python" && fn == "system", family == "python" && pyShellRe().MatchString(rest):
				text = args[0] // a shell command line
			case family == "python":
				if strings.HasPrefix(first, "[") {
					text = shellQuote(args)
				} else {
					text = shellQuote(args[:1]) // a program name, no arguments
				}
			case family == "node":
				rargs, _ := literals(strings.Split(rest, "{")[0], family)
				switch fn {
				case "execSync", "exec":
					if strings.Contains(rest, "[") {
						bad = true
						return call
					}
					text = args[0]
				default:
					text = shellQuote(append(args[:1], rargs...))
				}
			default: // system(...) in ruby and perl
				if len(args) == 1 {
					text = args[0]
				} else {
					text = shellQuote(args)
				}
			}
			cwdRe := pyCwdRe()
			if family == "node" {
				cwdRe = jsCwdRe()
			}
			if c := cwdRe.FindStringSubmatch(rest); c != nil {
				dir, _ := literals(c[1], family)
				text = "cd " + shellQuote(dir) + " && " + text
			}
			cmds = append(cmds, text)
			return "0"
		})
		if bad {
			return "", nil, false
		}
	}
	if len(cmds) == 0 || strings.Contains(code, "stdin") || strings.Contains(code, "communicate") {
		// spawn('sh').stdin.write(CODE): the program reads code unseen
		return "", nil, false
	}
	if family == "python" {
		code = importPyRe().ReplaceAllString(code, "$1$2")
	}
	return code, cmds, true
}

// inlineProgramCalls returns invs with each inline code's literal program
// calls taken out of it and added as the commands they run.
func inlineProgramCalls(invs []parse.Invocation) []parse.Invocation {
	var out []parse.Invocation
	for i := range invs {
		inv := &invs[i]
		if inv.InlineCode == nil {
			out = kept(out, inv)
			continue
		}
		code, cmds, ok := inlineCalls(inv.InlineCode)
		if !ok {
			out = kept(out, inv)
			continue
		}
		out = spliced(out, invs, i, withInlineCode(inv, code))
		via := commandName(inv.InlineCode.Interpreter) + " code"
		for _, text := range cmds {
			inner, ok := codeRunBy(inv, text, via)
			if !ok {
				out = append(out, parse.Invocation{Name: text, Dynamic: true, Pos: inv.Pos, Via: append(append([]string(nil), inv.Via...), via)})
				continue
			}
			out = append(out, inner...)
		}
	}
	if out == nil {
		return invs
	}
	return out
}

// withInlineCode returns a copy of inv whose inline code is code.
func withInlineCode(inv *parse.Invocation, code string) parse.Invocation {
	c := *inv
	ic := *inv.InlineCode
	ic.Code = code
	c.InlineCode = &ic
	return c
}
