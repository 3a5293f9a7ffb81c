// Package policy loads policy files and decides, for a parsed script, allow, ask
// or deny, with the rule and a reason a person can read. It knows nothing of processes.
package policy

import "github.com/stockade/stockade/parse"

// Verdict is the outcome for a script.
type Verdict string

const (
	Allow Verdict = "allow"
	Ask   Verdict = "ask"
	Deny  Verdict = "deny"
)

// Decision is the judgement of a whole script: the strictest over its invocations.
type Decision struct {
	Verdict     Verdict            `json:"decision"`
	Rule        string             `json:"rule"`
	Reason      string             `json:"reason"`
	Invocation  *parse.Invocation  `json:"invocation,omitempty"` // the one that decided, if any
	Invocations []parse.Invocation `json:"invocations"`
}

// Policy is a loaded policy file.
type Policy struct {
	Version int     `toml:"version" json:"version"`
	Sandbox Sandbox `toml:"sandbox" json:"sandbox"`
	Env     Env     `toml:"env" json:"env"`
	Source  string  `toml:"-" json:"source"` // file path, or "default"
}

// Default returns the built-in policy. Placeholder until the policy work lands.
func Default() *Policy {
	return &Policy{Version: 1, Source: "default", Sandbox: Sandbox{
		Filesystem: "workspace-write", Network: "off", UnixSockets: "deny", Enforce: "strict",
		DenyRead: []string{"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gh", "~/.netrc", "~/.docker/config.json", "~/.kube"},
	}}
}

// Check judges a script. Placeholder: allows everything.
func (p *Policy) Check(script string) Decision {
	return Decision{Verdict: Allow, Rule: "placeholder", Reason: "analysis not implemented yet"}
}
