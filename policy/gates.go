package policy

// A gate is something an invocation must have for a rule to match it:
// inline code for a code key, an assignment for env, a file it writes for
// writes. The rules that look at every command are sorted by gate when the
// policy is indexed, and an invocation is tried only against the rules
// whose gate it passes, among those and among the rules for its command
// name: most commands have no inline code, no assignment and no outward
// act, so most of those rules are never tried. A gate is only ever a
// necessary condition of a key that every match must satisfy; a rule with
// none of these keys has no gate. TestCandidatesAreTheRulesWhoseCommandHolds
// checks, on the corpora, that no rule its gate leaves out would match.
type gate uint8

const (
	gateCode    gate = 1 << iota // InlineCode is set (key code)
	gateEnv                      // an assignment before the command (key env)
	gateStdin                    // a here-document or here-string (key stdin)
	gateActs                     // some act of the world outside (key acts)
	gateWrites                   // a write redirection or a write effect (key writes)
	gateReads                    // a read redirection or a read effect (key reads)
	gateDeletes                  // a delete effect (key deletes)
	gateCount   = iota
)

// gateOf returns the gate of m: one key every match must satisfy, the
// rarest first; 0 when m has none of them.
func gateOf(m *Matcher) gate {
	switch {
	case len(m.Code) > 0:
		return gateCode
	case len(m.Env) > 0:
		return gateEnv
	case len(m.Stdin) > 0:
		return gateStdin
	case len(m.Acts) > 0:
		return gateActs
	case len(m.Deletes) > 0:
		return gateDeletes
	case len(m.Writes) > 0:
		return gateWrites
	case len(m.Reads) > 0:
		return gateReads
	}
	return 0
}

// gatesOf returns the gates invocation i passes, computed once per
// invocation.
func (ctx *scriptCtx) gatesOf(i int, a *argv) gate {
	if a.gatesKnown {
		return a.gates
	}
	inv := &ctx.invs[i]
	var g gate
	if inv.InlineCode != nil {
		g |= gateCode
	}
	if len(inv.Env) > 0 {
		g |= gateEnv
	}
	for _, r := range inv.Redirects {
		switch {
		case (r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<") && r.FD == "":
			g |= gateStdin
		case r.Op == "<>":
			g |= gateWrites | gateReads
		case r.Op == "<":
			g |= gateReads
		case isWriteOp(r.Op):
			g |= gateWrites
		}
	}
	for _, e := range ctx.effectsOf(i) {
		switch e.kind {
		case effWrite:
			g |= gateWrites
		case effRead:
			g |= gateReads
		case effDelete:
			g |= gateDeletes
		}
	}
	if ctx.actsAt(i, a) != 0 {
		g |= gateActs
	}
	a.gates, a.gatesKnown = g, true
	return g
}
