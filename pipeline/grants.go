package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/supervise"
)

// Grant gives the call that runs c the hosts the policy's rules grant it
// (allow_hosts; see policy.GrantFor), through grants, the credentials of the
// proxy listener the call's session reaches: env is what to set for that
// call alone, note says what it was granted, and revoke ends the grant,
// to be called once the call has ended. With nothing granted, or no proxy,
// env is nil and revoke does nothing.
func (s *Setup) Grant(c Command, grants *netproxy.Grants) (env []string, note string, revoke func()) {
	revoke = func() {}
	if s.Egress == nil || grants == nil {
		return nil, "", revoke
	}
	g := s.Policy.GrantFor(c.Text())
	if len(g.Hosts) == 0 {
		return nil, "", revoke
	}
	allow, err := netproxy.ParseAllowlist(g.Hosts)
	if err != nil { // checked when the policy loaded
		return nil, "", revoke
	}
	by := quoteRules(g.Rules)
	token, revoke := grants.Add(allow, by)
	addr := grants.Addr
	if addr == "" {
		addr = supervise.ProxyAddr
	}
	for k, v := range netproxy.GrantEnv(addr, token) {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env, fmt.Sprintf("network: this call may also reach %s, granted by %s to the commands it runs", strings.Join(g.Hosts, ", "), by), revoke
}

func quoteRules(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return "rule " + q[0]
	}
	return "rules " + strings.Join(q, ", ")
}

// grantedHosts describes the grants of p's rules, one entry each, for the
// description of the network: `pkg.test (granted by rule "x" to curl alone,
// in a call of its own)`.
func grantedHosts(p *policy.Policy) []string {
	var out []string
	for _, r := range p.Rules {
		if len(r.AllowHosts) > 0 {
			out = append(out, fmt.Sprintf("%s (granted by rule %q to %s alone, in a call of its own)", strings.Join(r.AllowHosts, ", "), r.Name, r.GrantedTo()))
		}
	}
	return out
}

// grantHint is the proxy's Suggest for p: the rules that would grant a host
// the allowlist lacks, and to which commands.
func grantHint(p *policy.Policy) func(host string, port int) string {
	return func(host string, port int) string {
		rules := p.Granting(host, port)
		if len(rules) == 0 {
			return ""
		}
		var parts []string
		for _, r := range rules {
			parts = append(parts, fmt.Sprintf("rule %q grants it to %s", r.Name, r.GrantedTo()))
		}
		return strings.Join(parts, "; ") + "; run such a command in a call of its own (cd and export aside), and it reaches " + host
	}
}
