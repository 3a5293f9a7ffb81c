package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Approval advice. When the policy asks about a script, the advice is the
// [[rule]] blocks that, added to a policy file, allow exactly that script
// and nothing broader: each is an allow limited to the script's text
// (script = [...]) and, where a rule asked, overriding that rule by name.
// Every other rule still applies to the script, and a script that differs
// by one character is still asked about.

// adviceRule is one [[rule]] of the advice, in the order a person would write it.
type adviceRule struct {
	Name     string   `toml:"name"`
	Decision Verdict  `toml:"decision"`
	Override string   `toml:"override,omitempty"`
	Script   []string `toml:"script"`
}

// AdviceRules returns the [[rule]] blocks that allow exactly script, or ""
// when the policy does not ask about it (it allows or denies it). They are
// checked before they are returned: merged into p, they make it allow
// script.
func (p *Policy) AdviceRules(script string) string {
	d := p.Check(script)
	if d.Verdict != Ask {
		return ""
	}
	text := strings.TrimSpace(script)
	sum := sha256.Sum256([]byte(text))
	id := "approved-" + hex.EncodeToString(sum[:4])
	s, err := parseScript(script)
	if err != nil {
		return ""
	}
	invs := expandScript(s)
	ctx := newScriptCtx(p, invs)
	ctx.text = &script
	var rules []adviceRule
	seen := map[string]bool{}
	unmatched := false
	for i := range invs {
		a := ctx.arg(i)
		any := false
		for _, r := range p.Rules {
			if !r.judges(ctx, i) || !r.match(ctx, i, a) {
				continue
			}
			any = true
			if r.Decision == Allow || seen[r.Name] {
				continue
			}
			seen[r.Name] = true
			rules = append(rules, adviceRule{Name: id + "-" + r.Name, Decision: Allow, Override: r.Name, Script: []string{text}})
		}
		unmatched = unmatched || !any
	}
	if unmatched && p.defaultVerdict() != Allow {
		rules = append(rules, adviceRule{Name: id, Decision: Allow, Script: []string{text}})
	}
	b, err := toml.Marshal(struct {
		Rule []adviceRule `toml:"rule"`
	}{rules})
	if err != nil {
		return ""
	}
	out := string(b)
	if !p.allowsWith(out, script) {
		return "" // cannot happen; never print advice that does not work
	}
	return out
}

// allowsWith reports whether p, with the rules of the TOML text added as a
// last layer, allows script.
func (p *Policy) allowsWith(rules, script string) bool {
	q, _, err := decodeLayer([]byte("version = 1\n"+rules), "advice")
	if err != nil {
		return false
	}
	merged := *p
	merged.Rules = append(append([]*Rule(nil), p.Rules...), q.Rules...)
	merged.overrides = true
	merged.index()
	return merged.Check(script).Verdict == Allow
}

// ApprovalAdvice is the text printed with an ask that cannot be put to a
// person (`stockade run` without a terminal, an MCP client without
// elicitation): how to allow exactly this script from now on. Both
// front-ends print this text.
func (p *Policy) ApprovalAdvice(script string) string {
	rules := p.AdviceRules(script)
	if rules == "" {
		return ""
	}
	return fmt.Sprintf("To allow exactly this command from now on (and nothing broader), add these lines to your policy file "+
		"(%s, or a --policy file outside the workdir):\n\n%s", userFileForDisplay(), strings.TrimRight(rules, "\n"))
}

func userFileForDisplay() string {
	return "~/.config/stockade/policy.toml"
}
