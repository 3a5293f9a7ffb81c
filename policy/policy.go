package policy

import (
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/stockade/stockade/parse"
)

// rank orders verdicts by strictness; an unknown verdict ranks as deny.
func (v Verdict) rank() int {
	switch v {
	case Allow:
		return 0
	case Ask:
		return 1
	}
	return 2
}

func (v Verdict) valid() bool { return v == Allow || v == Ask || v == Deny }

// Stricter reports whether v is stricter than w (deny > ask > allow).
func (v Verdict) Stricter(w Verdict) bool { return v.rank() > w.rank() }

// Decision is the judgement of a whole script: the strictest over its invocations.
type Decision struct {
	Verdict     Verdict            `json:"decision"`
	Rule        string             `json:"rule"`
	Reason      string             `json:"reason"`
	Invocation  *parse.Invocation  `json:"invocation,omitempty"` // the one that decided, if any
	Invocations []parse.Invocation `json:"invocations"`
}

// Rule names that do not come from a policy file.
const (
	RuleDefault    = "default"     // no rule matched: the policy's default verdict
	RuleParseError = "parse-error" // the script could not be parsed: always deny
)

var (
	defaultOnce   sync.Once
	defaultPolicy *Policy
)

// Default returns the built-in policy (default.toml, printed by `stockade policy
// default`). It is built once, on first use, on defaultRules, data generated
// from default.toml that the program holds ready, so no TOML is decoded and
// nothing is copied at start-up; it is not checked then either, and each
// rule is compiled when first tried: TestDefaultPolicy checks the same text
// as any policy file, examples included, and `stockade policy lint` can too.
func Default() *Policy {
	defaultOnce.Do(func() { defaultPolicy = defaultOn(defaultRules[:]) })
	return defaultPolicy
}

// defaultOn prepares the built-in policy with rules, which it uses in
// place: defaultRules for Default, a copy for loadDefault.
func defaultOn(rules []Rule) *Policy {
	ptrs := make([]*Rule, len(rules))
	for i := range rules {
		ptrs[i] = &rules[i]
	}
	return prepareDefault(defaultWith(ptrs))
}

// defaultGo returns a new copy of the built-in policy as decoding
// default.toml gives it, before it is prepared.
func defaultGo() *Policy {
	fresh := freshDefaultRules()
	rules := make([]*Rule, len(fresh))
	for i := range fresh {
		rules[i] = &fresh[i]
	}
	return defaultWith(rules)
}

// freshDefaultRules copies defaultRules as generated, without what
// preparing Default's policy set on them.
func freshDefaultRules() []Rule {
	rules := slices.Clone(defaultRules[:])
	for i := range rules {
		rules[i].Origin, rules[i].c = "", nil
	}
	return rules
}

// loadDefault builds a new copy of the built-in policy, as Default builds
// its own.
func loadDefault() *Policy {
	return defaultOn(freshDefaultRules())
}

// prepareDefault makes p, the decoded built-in policy, ready to judge
// scripts: it sets what prepare would, and leaves the rules to be compiled
// on first use (Matcher.compiled), which a command meets for the few rules
// its names and the rules for any command select.
func prepareDefault(p *Policy) *Policy {
	p.Source = "default"
	p.Layers = []LayerInfo{{Kind: LayerBuiltin}}
	// defaultRules hold both already (default_gen.go): Default writes
	// nothing into them, which would copy each page it reaches (a fault each).
	var cells []compiledCell
	for i, r := range p.Rules {
		if r.Origin != LayerBuiltin {
			r.Origin = LayerBuiltin
		}
		if r.c == nil {
			if cells == nil {
				cells = make([]compiledCell, len(p.Rules))
			}
			r.c = &cells[i]
		}
	}
	p.homeDir, _ = os.UserHomeDir()
	p.index()
	return p
}

// InWorkdir returns p judging scripts that start in workdir (absolute):
// a path in it, however a script names it (/home/dev/app/dist, ~/app/dist,
// or cd /home/dev/app; rm -rf dist), is judged as the same path written
// relative to it, which is what the workdir's own files are. Without it,
// an absolute path is judged as one outside, where work has no business.
// A workdir that is /, the home directory or above it is not one: p is
// returned as it is (every path there would be the workdir's).
func (p *Policy) InWorkdir(workdir string) *Policy {
	w := normPath(workdir, places{home: p.homeDir})
	if w == "" || w[0] != '/' && !strings.HasPrefix(w, "~/") || w == "/" || p.homeDir != "" && (p.homeDir == workdir || below(p.homeDir, w)) {
		return p
	}
	q := *p
	q.workDir = w
	return &q
}

// Check parses script and judges it. A script that does not parse is denied,
// with the parser's message (and its position) as the reason.
func (p *Policy) Check(script string) Decision {
	s, err := parseScript(script)
	if err != nil {
		return Decision{Verdict: Deny, Rule: RuleParseError, Reason: "the script does not parse: " + err.Error(), Invocations: []parse.Invocation{}}
	}
	return p.checkScript(s, &script)
}

// CheckScript judges an already parsed script: every invocation is matched
// against every rule; the strictest verdict wins, and among equally strict
// ones the first invocation and, for it, the first rule in file order.
//
// Rules with a script key never match here: the text is not known.
func (p *Policy) CheckScript(s *parse.Script) Decision { return p.checkScript(s, nil) }

// checkScript is CheckScript; text, when known, is the script's text.
func (p *Policy) checkScript(s *parse.Script, text *string) Decision {
	invs := expandScript(s)
	if text != nil {
		if extra := codeInQuotedText(*text); len(extra) > 0 {
			invs = append(invs[:len(invs):len(invs)], extra...)
		}
	}
	if invs == nil {
		invs = []parse.Invocation{}
	}
	d := Decision{Verdict: p.defaultVerdict(), Rule: RuleDefault, Invocations: invs}
	best := -1 // rank of the best rule decision so far; -1: none matched
	ctx := takeScriptCtx(p, invs)
	defer ctx.release()
	if text != nil {
		// A copy in ctx: text itself does not escape, and Check's
		// script is not moved to the heap for it.
		ctx.textCopy = *text
		ctx.text = &ctx.textCopy
	}
	for i := range invs {
		r := p.judge(ctx, i)
		if r == nil {
			continue
		}
		if best < 0 || r.Decision.rank() > best {
			best = r.Decision.rank()
			d.Verdict, d.Rule, d.Reason, d.Invocation = r.Decision, r.Name, r.Reason, &invs[i]
		}
	}
	// An invocation no rule matched gets the default verdict; it decides only
	// when it is stricter than every rule that matched.
	if dv := p.defaultVerdict(); best < 0 || dv.rank() > best {
		for i := range invs {
			if !ctx.matched[i] {
				d.Verdict, d.Rule, d.Invocation = dv, RuleDefault, &invs[i]
				d.Reason = defaultReason(dv)
				break
			}
		}
	}
	if len(invs) == 0 {
		d.Verdict, d.Reason = Allow, "no command to judge"
	}
	return d
}

// judge returns the strictest rule matching invocation i, first in file order
// among equals, or nil. It records in ctx whether any rule matched.
func (p *Policy) judge(ctx *scriptCtx, i int) *Rule {
	if p.overrides {
		return p.judgeOverrides(ctx, i)
	}
	a := ctx.arg(i)
	var best *Rule
	bestIdx := -1
	remote := isRemote(ctx.invs[i].Via) // only rules about remote code judge it (remote_code.go)
	p.candidates(a.name, ctx.invs[i].Name, ctx.gatesOf(i, a), func(ri int, commandHolds bool) {
		r := p.Rules[ri]
		if best != nil && (r.Decision.rank() < best.Decision.rank() ||
			(r.Decision.rank() == best.Decision.rank() && ri > bestIdx)) || remote && !remoteRule(r) {
			return
		}
		if r.matchFrom(ctx, i, a, commandHolds) {
			best, bestIdx = r, ri
		}
	})
	ctx.matched[i] = best != nil
	return best
}

// candidates calls try with every rule whose command key may hold for an
// invocation of name, whose command word is word (index): the rules that
// name it, those with a name glob it matches (for both, commandHolds: the
// key is known to hold), those with a path pattern when word has a / and
// they are not among those, and those with no command key; of all of them,
// only those whose gate is among gates (gates.go). The order is not file
// order; judge and judgeOverrides choose by rank and file order.
func (p *Policy) candidates(name, word string, gates gate, try func(ri int, commandHolds bool)) {
	var named []int
	if id, ok := p.byName[name]; ok {
		named = p.nameRules[p.nameStart[id]:p.nameStart[id+1]]
	}
	for _, ri := range named {
		if g := p.gates[ri]; g == 0 || gates&g != 0 {
			try(ri, true)
		}
	}
	for k := range p.nameGlobs {
		g := &p.nameGlobs[k]
		if matchName(g.globs, name, "") && !slices.Contains(named, g.rule) {
			if rg := p.gates[g.rule]; rg == 0 || gates&rg != 0 {
				try(g.rule, true)
			}
		}
	}
	if isNamePath(word) {
		for k := range p.pathNamed {
			g := &p.pathNamed[k]
			if slices.Contains(named, g.rule) || matchName(g.globs, name, "") {
				continue // given above
			}
			if rg := p.gates[g.rule]; rg == 0 || gates&rg != 0 {
				try(g.rule, false)
			}
		}
	}
	for _, ri := range p.anyName {
		try(ri, false)
	}
	for k := range p.gated {
		if gates&(1<<k) != 0 {
			for _, ri := range p.gated[k] {
				try(ri, false)
			}
		}
	}
}

// defaultReason is the reason of a decision by the policy's default
// verdict dv: a constant for each verdict, which a check does not build.
func defaultReason(dv Verdict) string {
	const noRule = "no rule matches; the policy's default is "
	switch dv {
	case Allow:
		return noRule + string(Allow)
	case Ask:
		return noRule + string(Ask)
	case Deny:
		return noRule + string(Deny)
	}
	return noRule + string(dv)
}

func (p *Policy) defaultVerdict() Verdict {
	if p.Default == "" {
		return Allow
	}
	return p.Default
}

// judgeOverrides is judge for a policy where some rule overrides another:
// every matching rule is collected, the rules that a matching rule
// overrides are set aside, and the strictest of the rest wins.
func (p *Policy) judgeOverrides(ctx *scriptCtx, i int) *Rule {
	a := ctx.arg(i)
	var matched []int
	remote := isRemote(ctx.invs[i].Via)
	p.candidates(a.name, ctx.invs[i].Name, ctx.gatesOf(i, a), func(ri int, commandHolds bool) {
		if remote && !remoteRule(p.Rules[ri]) {
			return
		}
		if p.Rules[ri].matchFrom(ctx, i, a, commandHolds) {
			matched = append(matched, ri)
		}
	})
	ctx.matched[i] = len(matched) > 0
	var best *Rule
	bestIdx := -1
	for _, ri := range matched {
		r := p.Rules[ri]
		if overridden(p, matched, r.Name) {
			continue
		}
		if best == nil || r.Decision.rank() > best.Decision.rank() || (r.Decision.rank() == best.Decision.rank() && ri < bestIdx) {
			best, bestIdx = r, ri
		}
	}
	return best
}

// overridden reports whether one of the rules matched names name in override.
func overridden(p *Policy, matched []int, name string) bool {
	for _, ri := range matched {
		if p.Rules[ri].Override == name {
			return true
		}
	}
	return false
}

// checkScriptPlain judges the invocations of s alone, without resolved
// copies or effects of the script's text; the fuzz tests compare it. Paths
// mktemp made, variables set once for sure and programs inline code runs by
// literals are known in both (freshTempArgs, certainVarArgs,
// inlineProgramCalls).
func (p *Policy) checkScriptPlain(s *parse.Script) Decision {
	plain := &parse.Script{Invocations: inlineProgramCalls(certainVarArgs(s, freshTempArgs(s)))}
	return p.checkScript(plain, nil)
}
