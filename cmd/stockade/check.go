package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/stockade/stockade/parse"
	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/policy"
)

// Exit statuses of `stockade check`: the verdict, so scripts and CI can branch on it.
const (
	exitAllow = 0
	exitAsk   = 1
	exitDeny  = 126 // as `stockade run` when the policy denies
)

const checkUsage = `usage: stockade check [--policy FILE] [--json] 'SCRIPT'

Prints the decision for SCRIPT (allow, ask or deny), the rule that decided,
its reason, every command the script would run, and the hosts rules grant
it (allow_hosts). Nothing is run.

Exit status: 0 allow, 1 ask, 126 deny, 2 usage or policy-file error.
`

// cmdCheck implements `stockade check`.
func cmdCheck(args []string, io stdio) int {
	fs := newFlags("check", checkUsage)
	policyFile := fs.String("policy", "", "policy `FILE` (default: the built-in policy)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if status, ok := fs.parse(args, io); !ok {
		return status
	}
	if fs.NArg() != 1 {
		return fail(io.err, fmt.Errorf("check takes one script, got %d arguments", fs.NArg()),
			"quote the script as one argument: stockade check 'rm -rf ./build'",
			"put flags before the script")
	}
	p, code := loadPolicy(*policyFile, io)
	if p == nil {
		return code
	}
	// Judged as `stockade run` here would judge it: paths in the current
	// directory are its own (pipeline.InWorkdir).
	wd, _ := os.Getwd()
	p = pipeline.InWorkdir(p, wd)
	d := p.Check(fs.Arg(0))
	if *asJSON {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(d); err != nil {
			return fail(io.err, err)
		}
	} else {
		printDecision(io, d)
		if g := p.GrantFor(fs.Arg(0)); len(g.Hosts) > 0 && d.Verdict != policy.Deny {
			fmt.Fprintf(io.out, "grants:   %s (%s; with network = \"allowlist\")\n", strings.Join(g.Hosts, ", "), strings.Join(g.Rules, ", "))
		}
	}
	return verdictStatus(d.Verdict)
}

func verdictStatus(v policy.Verdict) int {
	switch v {
	case policy.Allow:
		return exitAllow
	case policy.Ask:
		return exitAsk
	}
	return exitDeny
}

// loadPolicy loads the policy's layers (policy.LoadLayers): the built-in
// policy, the user's file, the project file of the current directory, and
// file when not "". On error it prints the error and returns nil and the
// exit status.
func loadPolicy(file string, io stdio) (*policy.Policy, int) {
	wd, _ := os.Getwd()
	p, err := policy.LoadLayers(pipeline.PolicySources(wd, file))
	if err != nil {
		return nil, fail(io.err, err)
	}
	return p, 0
}

func printDecision(io stdio, d policy.Decision) {
	fmt.Fprintf(io.out, "decision: %s\n", d.Verdict)
	fmt.Fprintf(io.out, "rule:     %s\n", d.Rule)
	fmt.Fprintf(io.out, "reason:   %s\n", d.Reason)
	if d.Invocation != nil {
		fmt.Fprintf(io.out, "at:       %s\n", describeInvocation(d.Invocation))
	}
	fmt.Fprintf(io.out, "invocations: %d\n", len(d.Invocations))
	for i := range d.Invocations {
		fmt.Fprintf(io.out, "  %s\n", describeInvocation(&d.Invocations[i]))
	}
}

// describeInvocation prints one invocation on one line: position, words, and
// where it sits.
func describeInvocation(inv *parse.Invocation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%d %s", inv.Pos.Line, inv.Pos.Col, parse.Quote(inv.Name))
	for _, a := range inv.Args {
		b.WriteString(" " + parse.Quote(a))
	}
	for _, r := range inv.Redirects {
		if r.Op == "<<" || r.Op == "<<-" {
			b.WriteString(" " + r.Op + "...")
			continue
		}
		b.WriteString(" " + r.Op + parse.Quote(r.Target))
	}
	var notes []string
	if inv.Dynamic {
		notes = append(notes, "dynamic")
	}
	if inv.PipedInto {
		notes = append(notes, "piped into")
	}
	if inv.Background {
		notes = append(notes, "background")
	}
	if len(inv.Via) > 0 {
		notes = append(notes, "via "+strings.Join(inv.Via, " > "))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, "  (%s)", strings.Join(notes, ", "))
	}
	return b.String()
}
