package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/parse"
)

// Grants. A rule's allow_hosts gives hosts to the commands it matches, on
// top of [network] allow: "npm install may reach the npm registry; nothing
// else may". What gets the grant is one call (an MCP bash call, one
// stockade run), since that is what runs with one environment: a call is
// granted the hosts that every command it runs is granted, by some rule
// that matches that command and that no matching rule overrides. Shell
// builtins that start nothing and send nothing (cd, export, set, true ...)
// without redirections do not count, so `cd web && npm ci` is granted what
// `npm ci` is; nor does a wrapper whose command the analysis lists too (env,
// timeout, nice, python3 -m pip): it is judged by what it runs; `npm ci && npm test` is granted nothing unless a rule grants
// npm test the same hosts. Whatever the granted command starts in turn (npm's
// install scripts, a setup.py) runs in the same call and has the same grant:
// that is the limit SECURITY.md states.

// Grant is what one call may reach beyond [network] allow.
type Grant struct {
	Hosts []string `json:"hosts,omitempty"` // allow_hosts entries, as written
	Rules []string `json:"rules,omitempty"` // the rules that granted them
}

// quietBuiltins start no program and write nothing anywhere but where a
// redirection would send it, and a call may run them (without
// redirections) besides its granted commands.
var quietBuiltins = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "dirs": true, "pwd": true,
	"export": true, "unset": true, "set": true, "shopt": true, "umask": true,
	"declare": true, "local": true, "readonly": true, "typeset": true, // and the analysis' own for an assignment
	"true": true, "false": true, ":": true,
}

func quiet(inv *parse.Invocation) bool {
	return !inv.Dynamic && !inv.Function && len(inv.Redirects) == 0 && quietBuiltins[inv.Name]
}

// hasGrants reports whether any rule grants hosts.
func (p *Policy) hasGrants() bool {
	return slices.ContainsFunc(p.Rules, func(r *Rule) bool { return len(r.AllowHosts) > 0 })
}

// GrantFor is what the call that runs script is granted: the hosts every
// command of it is granted (see Grants above). A script that does not parse
// is granted nothing.
func (p *Policy) GrantFor(script string) Grant {
	if !p.hasGrants() {
		return Grant{}
	}
	s, err := parseScript(script)
	if err != nil {
		return Grant{}
	}
	invs := expandScript(s)
	if extra := codeInQuotedText(script); len(extra) > 0 {
		invs = append(invs[:len(invs):len(invs)], extra...)
	}
	ctx := newScriptCtx(p, invs)
	ctx.text = &script
	wrappers := wrappersIn(invs)
	var hosts []string
	var granting []*Rule
	counted := false
	for i := range invs {
		if quiet(&invs[i]) || wrappers[i] {
			continue
		}
		got, by := p.grantsOf(ctx, i)
		if !counted {
			hosts, counted = got, true
		} else {
			hosts = slices.DeleteFunc(hosts, func(h string) bool { return !slices.Contains(got, h) })
		}
		if len(hosts) == 0 {
			return Grant{}
		}
		granting = append(granting, by...)
	}
	g := Grant{Hosts: hosts}
	for _, r := range granting {
		if !slices.Contains(g.Rules, r.Name) && slices.ContainsFunc(r.AllowHosts, func(h string) bool { return slices.Contains(hosts, h) }) {
			g.Rules = append(g.Rules, r.Name)
		}
	}
	return g
}

// wrappersIn marks the invocations that run another invocation of the list:
// one whose Via is the wrapper's Via and then the wrapper's name (env A=1
// npm ci: npm via [env]). bash -c is not one: what it runs is via "bash -c".
func wrappersIn(invs []parse.Invocation) []bool {
	out := make([]bool, len(invs))
	for _, inv := range invs {
		n := len(inv.Via)
		if n == 0 {
			continue
		}
		for i, w := range invs {
			if w.Name == inv.Via[n-1] && slices.Equal(w.Via, inv.Via[:n-1]) && !w.Dynamic {
				out[i] = true
			}
		}
	}
	return out
}

// grantsOf returns the hosts invocation i is granted, and the rules that
// grant them: those that match it and that no matching rule overrides.
func (p *Policy) grantsOf(ctx *scriptCtx, i int) (hosts []string, by []*Rule) {
	a := ctx.arg(i)
	var matched []int
	for ri, r := range p.Rules {
		// Where a rule overrides another, every match counts: the
		// override may be what sets a granting rule aside.
		if (len(r.AllowHosts) > 0 || p.overrides && r.Override != "") && r.judges(ctx, i) && r.match(ctx, i, a) {
			matched = append(matched, ri)
		}
	}
	for _, ri := range matched {
		r := p.Rules[ri]
		if len(r.AllowHosts) == 0 || overridden(p, matched, r.Name) {
			continue
		}
		by = append(by, r)
		for _, h := range r.AllowHosts {
			if !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
	}
	return hosts, by
}

// Granting lists the rules whose allow_hosts let the commands they match
// reach the host name at port.
func (p *Policy) Granting(host string, port int) []*Rule {
	var out []*Rule
	for _, r := range p.Rules {
		if len(r.AllowHosts) == 0 {
			continue
		}
		if a, err := netproxy.ParseAllowlist(r.AllowHosts); err == nil && a.AllowsName(host, port) {
			out = append(out, r)
		}
	}
	return out
}

// GrantedTo says, for a person or a model, which commands a rule matches:
// its examples, or else its command and subcommand patterns.
func (r *Rule) GrantedTo() string {
	if len(r.Examples) > 0 {
		return strings.Join(r.Examples, ", ")
	}
	s := strings.Join(r.Command, "|")
	if s == "" {
		s = "any command"
	}
	if len(r.Subcommand) > 0 {
		s += " " + strings.Join(r.Subcommand, "|")
	}
	return s
}

// checkGrant checks a rule's allow_hosts (key is the rule's key, "rule.3").
func checkGrant(v *validator, key string, r *Rule) {
	if r.AllowHosts == nil {
		return
	}
	switch {
	case len(r.AllowHosts) == 0:
		v.add(key+".allow_hosts", fmt.Sprintf("rule %q: allow_hosts is empty", r.Name), "leave the key out, or name the hosts the commands this rule matches may reach")
	case r.Decision == Deny:
		v.add(key+".allow_hosts", fmt.Sprintf("rule %q denies, so its allow_hosts would grant nothing", r.Name), "")
	}
	if _, err := netproxy.ParseAllowlist(r.AllowHosts); err != nil {
		v.add(key+".allow_hosts", fmt.Sprintf("rule %q: %v", r.Name, err), "")
	}
}
