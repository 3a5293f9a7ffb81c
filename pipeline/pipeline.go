// Package pipeline is the one path a command takes, whichever front-end
// received it: `stockade run` (cmd/stockade) and the MCP bash tool (server)
// both call it, so they behave the same and return the same Result.
//
//	Prepare  policy file and flag overrides -> sandbox plan for this host,
//	         scrubbed environment (a Setup)
//	Judge    size and emptiness first, then the policy; an "ask" verdict goes
//	         back to the front-end, which alone knows how to ask a person
//	Run      in a session (MCP) or in a one-shot child (run), then one Result
//
// The front-ends keep only what is theirs: the MCP schema, the approval
// prompt and progress notifications; the CLI's flags and exit statuses. The
// stable error codes, and the one table from the stages' errors to them, are
// here too (errors.go), because both front-ends report them.
package pipeline

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/hostfacts"
	"github.com/stockade/stockade/internal/envlist"
	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/parse"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/sandbox"
	"github.com/stockade/stockade/supervise"
)

// Overrides are what a front-end's flags change in the policy's sandbox.
type Overrides struct {
	PolicyPath string // --policy: a layer over the built-in, user and project ones (PolicySources)
	Workdir    string // "": the current directory
	Filesystem string // read-only, workspace-write or off; "": the policy's
	Network    string // off or on; "": the policy's
	Enforce    string // strict or best-effort; "": the policy's
	AllowWrite []string
	AllowRead  []string
	// AllowHost adds hosts to [network] allow, and turns a network "off" that
	// no flag set into "allowlist"; Resolve pins NAME=ADDR for the proxy.
	AllowHost []string
	Resolve   []string
	Host      *degrade.Host // plan as if on this host; nil: detect this one
	// DangerousWorkdir lets a workdir of /, $HOME or one that holds a
	// deny-read path be writable (see checkWorkdir).
	DangerousWorkdir bool
}

// Setup is what a command needs before anything runs: the policy, the sandbox
// spec this host can apply, the report of what that enforces, and the
// environment commands start with.
type Setup struct {
	Policy  *policy.Policy
	Workdir string
	Spec    sandbox.Spec
	Report  degrade.Report
	Env     []string
	// Network is the network mode in force: off, allowlist or on.
	Network string
	// Egress is the proxy of network = "allowlist", when the sandbox lets
	// the command reach it (a network namespace, the connect supervisor, or
	// Landlock's port rule); nil otherwise.
	Egress *netproxy.Proxy
}

// Prepare loads the policy, applies the overrides and plans the sandbox for
// this host. tmpdir is the private TMPDIR (a session sets its own later). A
// *degrade.Refusal means strict enforcement refused this host; any other
// error is a mistake in the overrides or the policy file.
func Prepare(o Overrides, tmpdir string) (*Setup, error) {
	workdir := o.Workdir
	if workdir == "" {
		workdir, _ = os.Getwd()
	}
	workdir, err := filepath.Abs(workdir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(workdir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("workdir %s is not a directory", workdir)
	}
	p, err := policy.LoadLayers(PolicySources(workdir, o.PolicyPath))
	if err != nil {
		return nil, err
	}
	sb := p.Sandbox
	for _, f := range []struct {
		val  string
		dst  *string
		name string
		key  string
	}{
		{o.Filesystem, &sb.Filesystem, "--fs", "filesystem"},
		{o.Network, &sb.Network, "--network", "network"},
		{o.Enforce, &sb.Enforce, "--enforce", "enforce"},
	} {
		if f.val == "" {
			continue
		}
		if c := policy.SandboxChoice(f.key); !c.Allows(f.val) {
			return nil, fmt.Errorf("%s %q: must be one of %s", f.name, f.val, strings.Join(c.Values, ", "))
		}
		*f.dst = f.val
	}
	allow := append(append([]string(nil), p.Network.Allow...), o.AllowHost...)
	if len(o.AllowHost) > 0 && sb.Network == policy.NetworkOff && o.Network == "" {
		sb.Network = policy.NetworkAllowlist
	}
	allowlist, err := netproxy.ParseAllowlist(allow)
	if err != nil {
		return nil, err
	}
	pins, err := netproxy.ParsePins(o.Resolve)
	if err != nil {
		return nil, err
	}
	sb.WritableRoots = append(sb.WritableRoots, o.AllowWrite...)
	sb.ReadableRoots = append(sb.ReadableRoots, o.AllowRead...)

	if sb.WithDefaults().Filesystem == policy.FilesystemWorkspaceWrite {
		if err := checkWorkdir(workdir, sb.DenyRead); err != nil {
			if !o.DangerousWorkdir {
				return nil, err
			}
			slog.Warn("the workdir is writable although it is dangerous (--allow-dangerous-workdir)", "why", err.Error())
		}
	}
	p = InWorkdir(p, workdir)
	cacheDir := projectBuildCache(&sb, workdir)
	var host degrade.Host
	if o.Host != nil {
		host = *o.Host
	} else {
		host = degrade.WithUserNS(hostfacts.Detect())
	}
	spec, report, err := degrade.Plan(host, sb, workdir, tmpdir)
	if err != nil {
		return nil, err
	}
	// Every policy file in use: rewritten, it would change what runs next.
	for _, l := range p.Layers {
		if l.File == "" {
			continue
		}
		if abs, err := filepath.Abs(l.File); err == nil && !slices.Contains(spec.Protected, abs) {
			spec.Protected = append(spec.Protected, abs)
		}
	}
	env, removed := policy.ScrubEnv(os.Environ(), p.Env)
	if len(removed) > 0 {
		slog.Info("secrets removed from the environment of commands", "names", strings.Join(removed, ","))
	}
	env = pointAtBuildCache(env, cacheDir, p, append([]string{workdir}, spec.WritableRoots...))
	st := &Setup{Policy: p, Workdir: workdir, Spec: spec, Report: report, Env: env, Network: sb.Network}
	proxied := spec.NetNS || spec.Supervised || spec.ProxyPortOnly
	if sb.Network == policy.NetworkOff || sb.Network == policy.NetworkAllowlist && !proxied {
		for k, v := range netproxy.OffEnv() {
			if !hasEnv(st.Env, k) {
				st.Env = envlist.Set(st.Env, k, v)
			}
		}
	}
	if sb.Network == policy.NetworkAllowlist && proxied {
		st.Egress = netproxy.New(allowlist)
		st.Egress.Resolve = pins.Resolver(nil)
		st.Egress.Suggest = grantHint(p)
		st.Egress.Granted = grantedHosts(p)
		if spec.NetNS { // supervised: see HostProxy
			for k, v := range netproxy.Env(supervise.ProxyAddr) {
				st.Env = envlist.Set(st.Env, k, v)
			}
		}
		for k, v := range netproxy.RetryEnv() {
			if !hasEnv(st.Env, k) {
				st.Env = envlist.Set(st.Env, k, v)
			}
		}
	}
	return st, nil
}

// HostProxy opens the egress proxy's listener on the host's loopback, for a
// spec without a network namespace (the connect supervisor lets the command
// reach this one address; or, partial, Landlock this one port), and returns
// the spec and environment that name it. A port of its own for each command
// or session. The connections the supervisor refuses go to record, as the
// proxy's own do. Without such a spec and a proxy it returns nil and spec and
// env unchanged.
func (st *Setup) HostProxy(spec sandbox.Spec, env []string, record func(netproxy.Event)) (net.Listener, sandbox.Spec, []string, error) {
	if !spec.Supervised && !spec.ProxyPortOnly || st.Egress == nil {
		return nil, spec, env, nil
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, spec, env, fmt.Errorf("the egress proxy's listener: %w", err)
	}
	spec.ProxyTo = ln.Addr().String()
	spec.Refused = func(r sandbox.Refusal) {
		var ev netproxy.Event
		switch {
		case r.Call != "connect":
			by := "the connect supervisor refuses " + r.Call
			if !r.Addr.IsValid() {
				by += " on a socket never bound"
			}
			ev = netproxy.Listen(r.Addr, by)
		case r.Unix != "":
			ev = netproxy.DirectUnix(r.Unix)
		default:
			ev = st.Egress.Direct(r.Addr)
		}
		ev.Pgid = r.Pgid
		record(ev)
	}
	for k, v := range netproxy.Env(spec.ProxyTo) {
		env = envlist.Set(env, k, v)
	}
	return ln, spec, env, nil
}

// hasEnv reports whether env sets name.
func hasEnv(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// PolicySources are the layers of the policy for commands run in workdir
// (see policy.LoadLayers): the user's file, the project's, and file (from
// --policy) when it is set.
func PolicySources(workdir, file string) policy.Sources {
	s := policy.Sources{Workdir: workdir, User: policy.UserFile()}
	if file != "" {
		s.Files = []string{file}
	}
	return s
}

// Command is what a front-end was asked to run: a script (bash -c), or an
// argv (stockade run -- CMD ARGS).
type Command struct {
	Script string
	Argv   []string
}

// Text is the shell text the policy judges: the script, or the argv quoted.
func (c Command) Text() string {
	if c.Argv != nil {
		return parse.QuoteArgv(c.Argv)
	}
	return c.Script
}

// MaxScript is the largest script accepted, in bytes: the kernel's bound on
// one argument (MAX_ARG_STRLEN) less a margin, since the script is passed to
// the shell as one.
const MaxScript = 128<<10 - 1

// Judge decides whether the command may run: what cannot run at all (empty,
// too large) is refused first, then the policy decides. A deny is returned as
// the error; an ask is returned as the decision, for the front-end to put to
// a person (see ApprovalRequired and ApprovalDeclined when it cannot or the
// person says no). The error is always an *Error with a stable code.
func (s *Setup) Judge(c Command) (policy.Decision, error) {
	if err := checkSize(c); err != nil {
		return policy.Decision{}, err
	}
	d := s.Policy.Check(c.Text())
	if d.Verdict == policy.Deny {
		return d, &Error{Code: CodePolicyDenied, Msg: denial(d)}
	}
	return d, nil
}

func checkSize(c Command) error {
	words := c.Argv
	if words == nil {
		if strings.TrimSpace(c.Script) == "" {
			return &Error{Code: CodeEmptyCommand, Msg: "the command is empty; pass the shell command to run in `command`"}
		}
		words = []string{c.Script}
	}
	for _, w := range words {
		if len(w) > MaxScript {
			return &Error{Code: CodeInvalidArgument, Msg: fmt.Sprintf("the command is %d bytes; at most %d bytes are accepted (write longer scripts to a file in the workdir and run that)", len(w), MaxScript)}
		}
	}
	return nil
}

// Offending names the invocation that decided, with its position.
func Offending(d policy.Decision) string {
	if d.Invocation == nil {
		return "run 'stockade check' on the command to see every invocation"
	}
	inv := d.Invocation
	return fmt.Sprintf("offending command at %d:%d: %s", inv.Pos.Line, inv.Pos.Col, inv.Words())
}

func denial(d policy.Decision) string {
	return fmt.Sprintf("denied by policy rule %q: %s (%s). Nothing was run. Find another way to reach the goal that the policy allows, or ask the user to change the policy.", d.Rule, d.Reason, Offending(d))
}

// ApprovalRequired is the refusal of an "ask" command when nobody can be
// asked; who says so, e.g. "stockade run cannot get". It carries the
// policy's advice: a rule that, added as printed, allows exactly this command.
func (s *Setup) ApprovalRequired(c Command, d policy.Decision, who string) error {
	msg := fmt.Sprintf("rule %q asks for a person's approval, which %s: %s; nothing was run", d.Rule, who, d.Reason)
	if advice := s.Policy.ApprovalAdvice(c.Text()); advice != "" {
		msg += "\n" + advice
	}
	return &Error{Code: CodeApprovalRequired, Msg: msg}
}

// ApprovalDeclined is the refusal of an "ask" command the person did not approve.
func ApprovalDeclined(d policy.Decision) error {
	return &Error{Code: CodeApprovalDenied, Msg: fmt.Sprintf("the user did not approve running this command (rule %q: %s); nothing was run", d.Rule, d.Reason)}
}
