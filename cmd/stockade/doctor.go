package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/policy"
)

const doctorUsage = `usage: stockade doctor [--json] [--policy FILE] [--host FILE]

Prints what this host can enforce and, for each filesystem mode, what the policy
would get. Exit status: 0 when the policy would be fully enforced, 1 when only
best-effort could run it, 2 when strict enforcement would refuse it.
`

// modes are the filesystem modes doctor shows side by side.
var modes = policy.SandboxChoice("filesystem").Values

// doctorResult is what `stockade doctor --json` prints.
type doctorResult struct {
	Host    degrade.Host   `json:"host"`
	Policy  string         `json:"policy"`
	Sandbox policy.Sandbox `json:"sandbox"`
	// Report is what the policy as written gets; Modes, what it would get
	// with each filesystem mode. stockade run and stockade serve's sessions
	// get the same.
	Report  degrade.Report            `json:"report"`
	Modes   map[string]degrade.Report `json:"modes"`
	Verdict string                    `json:"verdict"` // enforced | best-effort | refused
	Refusal string                    `json:"refusal,omitempty"`
	Hints   []string                  `json:"hints,omitempty"`
	Exit    int                       `json:"exit"`
}

// cmdDoctor implements `stockade doctor`.
func cmdDoctor(args []string, io stdio) int {
	fs := newFlags("doctor", doctorUsage)
	asJSON := fs.Bool("json", false, "one JSON object for machines")
	policyFile := fs.String("policy", "", "the policy `FILE` to check (default: the built-in policy)")
	hostFile := fs.String("host", "", "plan against another machine: `FILE` holds the \"host\" object of its 'stockade doctor --json'")
	if status, ok := fs.parse(args, io); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return fail(io.err, fmt.Errorf("doctor takes no arguments, got %q", fs.Arg(0)), fs.helpHint())
	}

	wd, _ := os.Getwd()
	pol, err := policy.LoadLayers(pipeline.PolicySources(wd, *policyFile))
	if err != nil {
		return fail(io.err, err)
	}
	host := degrade.WithUserNS(hostfacts.Detect())
	if *hostFile != "" {
		h, err := readHost(*hostFile)
		if err != nil {
			return fail(io.err, err)
		}
		host = h
	}
	workdir, _ := os.Getwd()
	tmpdir := os.TempDir()

	res := doctorResult{Host: host, Policy: pol.Source, Sandbox: pol.Sandbox, Modes: map[string]degrade.Report{}}
	_, rep, err := degrade.Plan(host, pol.Sandbox, workdir, tmpdir)
	var refusal *degrade.Refusal
	if err != nil && !errors.As(err, &refusal) {
		return fail(io.err, err)
	}
	res.Report = rep
	for _, m := range modes {
		s := pol.Sandbox
		s.Filesystem = m
		_, r, err := degrade.Plan(host, s, workdir, tmpdir)
		if err != nil && !errors.As(err, new(*degrade.Refusal)) {
			return fail(io.err, err)
		}
		res.Modes[m] = r
	}
	switch {
	case refusal != nil:
		res.Verdict, res.Exit = "refused", 2
		res.Refusal, res.Hints = refusal.Error(), refusal.Hints()
	case !rep.Full:
		res.Verdict, res.Exit = "best-effort", 1
	default:
		res.Verdict, res.Exit = "enforced", 0
	}

	if *asJSON {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			printError(io.err, err)
			return 2
		}
		return res.Exit
	}
	printDoctor(io.out, res)
	if refusal != nil {
		printError(io.err, refusal)
	}
	return res.Exit
}

// readHost reads a Host from a file holding either the Host object itself or a
// whole `stockade doctor --json` result.
func readHost(path string) (degrade.Host, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return degrade.Host{}, fmt.Errorf("--host: %w", err)
	}
	var wrapped struct {
		Host *degrade.Host `json:"host"`
	}
	dec := func(v any) error {
		d := json.NewDecoder(strings.NewReader(string(b)))
		return d.Decode(v)
	}
	if err := dec(&wrapped); err == nil && wrapped.Host != nil {
		return *wrapped.Host, nil
	}
	var h degrade.Host
	if err := dec(&h); err != nil {
		return h, fmt.Errorf("--host %s: %w", path, err)
	}
	if h.OS == "" {
		return h, fmt.Errorf("--host %s: no \"os\": want the host object of 'stockade doctor --json'", path)
	}
	return h, nil
}

func printDoctor(w io.Writer, res doctorResult) {
	h := res.Host
	fmt.Fprintf(w, "host: %s/%s", h.OS, h.Arch)
	if h.Kernel != "" {
		fmt.Fprintf(w, ", kernel %s", h.Kernel)
	}
	if h.Root {
		fmt.Fprint(w, ", running as root")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if h.OS == "linux" {
		ll := fmt.Sprintf("abi %d", h.LandlockABI)
		switch {
		case h.LandlockABI == 0:
			ll = strings.TrimSuffix("no: "+h.LandlockReason, ": ")
		case h.LandlockErrataKnown:
			ll += fmt.Sprintf(", errata %#x", h.LandlockErrata)
		default:
			ll += ", errata not reported"
		}
		fmt.Fprintf(tw, "  landlock\t%s\n", ll)
		sc := "yes"
		if !h.Seccomp {
			sc = strings.TrimSuffix("no: "+h.SeccompReason, ": ")
		}
		if h.SeccompMode == 2 {
			sc += " (this process already runs under a seccomp filter)"
		}
		fmt.Fprintf(tw, "  seccomp\t%s\n", sc)
		if h.Seccomp {
			sv := "yes (network = \"allowlist\" without a network namespace, System V IPC without an IPC namespace)"
			if !h.SeccompNotify {
				sv = strings.TrimSuffix("no: "+h.SeccompNotifyReason, ": ")
			}
			fmt.Fprintf(tw, "  connect supervisor\t%s\n", sv)
		}
		pids := h.PidsCgroup
		if pids == "" {
			pids = strings.TrimSuffix("no: "+h.PidsReason, ": ")
		}
		fmt.Fprintf(tw, "  pids cgroup\t%s\n", pids)
		if !h.Root {
			userns := "yes"
			if !h.UserNS {
				userns = strings.TrimSuffix("no: "+h.UserNSReason, ": ")
			}
			fmt.Fprintf(tw, "  user namespaces\t%s\n", userns)
		}
	} else {
		fmt.Fprintf(tw, "  sandbox\tnone: stockade's kernel sandbox needs Linux (Landlock and seccomp)\n")
	}
	tw.Flush()

	s := res.Sandbox.WithDefaults()
	fmt.Fprintf(w, "\npolicy: %s (enforce = %q, network = %q, unix_sockets = %q, max_processes = %d)\n\n",
		res.Policy, s.Enforce, s.Network, s.UnixSockets, s.MaxProcesses)

	mine := s.Filesystem
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "protection")
	for _, m := range modes {
		if m == mine {
			m += " *"
		}
		fmt.Fprintf(tw, "\t%s", m)
	}
	fmt.Fprintf(tw, "\tby (%s)\n", mine)
	for _, p := range res.Report.Protections {
		fmt.Fprint(tw, p.Name)
		for _, m := range modes {
			q, _ := res.Modes[m].Get(p.Name)
			st := string(q.Status)
			if q.Required && q.Status != degrade.Enforced {
				st += " !"
			}
			fmt.Fprintf(tw, "\t%s", st)
		}
		fmt.Fprintf(tw, "\t%s\n", p.By)
	}
	tw.Flush()
	fmt.Fprintf(w, "* the policy's filesystem mode; ! required by the policy but not enforced\n")

	var notes []string
	for _, p := range res.Report.Protections {
		if p.Note != "" && (p.Status == degrade.Partial || p.Status == degrade.NotEnforced) {
			notes = append(notes, fmt.Sprintf("  %s: %s", p.Name, p.Note))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nwhat is left open (%s):\n%s\n", mine, strings.Join(notes, "\n"))
	}

	fmt.Fprintln(w)
	switch res.Verdict {
	case "enforced":
		fmt.Fprintln(w, "every protection the policy requires is enforced on this host")
	case "best-effort":
		fmt.Fprintf(w, "best-effort: commands run with less than the policy asks (%s)\n",
			strings.TrimPrefix(res.Report.Summary(), "best-effort: "))
	case "refused":
		fmt.Fprintln(w, "strict: commands would be refused on this host (see the error below)")
	}
}
