package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stockade/stockade/degrade"
	"github.com/stockade/stockade/exec"
	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/policy"
	"github.com/stockade/stockade/sandbox"
)

// sandboxFlags are the flags `serve` and `run` share: where the policy comes
// from, and the few sandbox settings a flag may override.
type sandboxFlags struct {
	policyPath string
	workdir    string
	fs         string
	network    string
	enforce    string
	allowWrite listFlag
	allowRead  listFlag
	allowHost  listFlag
	resolve    listFlag
	hostFile   string
	// dangerousWorkdir lets a workdir of /, $HOME or one that holds a
	// deny-read path be writable (see checkWorkdir).
	dangerousWorkdir bool
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (f *sandboxFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.policyPath, "policy", "", "policy file (default: the built-in policy, see 'stockade policy default')")
	fs.StringVar(&f.workdir, "workdir", "", "working directory commands start in (default: the current directory)")
	fs.StringVar(&f.fs, "fs", "", "override the policy's filesystem mode: read-only, workspace-write or off")
	fs.StringVar(&f.network, "network", "", "override the policy's network: off, allowlist (only the hosts of [network] allow, through stockade's proxy) or on")
	fs.StringVar(&f.enforce, "enforce", "", "override the policy's enforcement: strict or best-effort")
	fs.Var(&f.allowWrite, "allow-write", "an extra writable directory (repeatable)")
	fs.Var(&f.allowHost, "allow-host", "a host the command may reach through stockade's proxy, as in [network] allow (repeatable); turns network \"off\" into \"allowlist\"")
	fs.Var(&f.resolve, "resolve", "NAME=ADDR: the proxy takes NAME to be at ADDR instead of asking DNS, as curl --resolve does (repeatable); ADDR must still be allowed")
	fs.Var(&f.allowRead, "allow-read", "restrict reads to these directories, plus what a shell needs (repeatable)")
	fs.BoolVar(&f.dangerousWorkdir, "allow-dangerous-workdir", false, "let a workdir of /, $HOME or a directory holding a deny-read path be writable (refused otherwise in workspace-write mode)")
	fs.StringVar(&f.hostFile, "simulate-host", "", "for tests: plan as if on the host described in FILE (the \"host\" of 'stockade doctor --json'); what cannot be applied here still fails")
}

// setup is what a command needs before anything runs: the policy, the sandbox
// spec this host can apply, the report of what is enforced, and the environment.
type setup struct {
	policy  *policy.Policy
	workdir string
	spec    sandbox.Spec
	report  degrade.Report
	env     []string
	// egress is the proxy of network = "allowlist", when the sandbox gives the
	// command a network namespace to reach it from; nil otherwise.
	egress *netproxy.Proxy
	// network is the network mode in force: off, allowlist or on.
	network string
}

// prepare loads the policy, applies the flag overrides and plans the sandbox for
// this host. tmpdir is the private TMPDIR (its final place may be set later by
// the session). A *degrade.Refusal means strict enforcement refused this host.
func (f *sandboxFlags) prepare(tmpdir string) (*setup, error) {
	workdir := f.workdir
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
	p, err := policy.LoadLayers(policySources(workdir, f.policyPath))
	if err != nil {
		return nil, err
	}
	sb := p.Sandbox
	for _, o := range []struct {
		val  string
		dst  *string
		name string
		ok   []string
	}{
		{f.fs, &sb.Filesystem, "--fs", []string{"read-only", "workspace-write", "off"}},
		{f.network, &sb.Network, "--network", []string{"off", "allowlist", "on"}},
		{f.enforce, &sb.Enforce, "--enforce", []string{"strict", "best-effort"}},
	} {
		if o.val == "" {
			continue
		}
		if !slices.Contains(o.ok, o.val) {
			return nil, fmt.Errorf("%s %q: must be one of %s", o.name, o.val, strings.Join(o.ok, ", "))
		}
		*o.dst = o.val
	}
	allow := append(append([]string(nil), p.Network.Allow...), f.allowHost...)
	if len(f.allowHost) > 0 && sb.Network == "off" && f.network == "" {
		sb.Network = "allowlist"
	}
	allowlist, err := netproxy.ParseAllowlist(allow)
	if err != nil {
		return nil, err
	}
	sb.WritableRoots = append(sb.WritableRoots, f.allowWrite...)
	sb.ReadableRoots = append(sb.ReadableRoots, f.allowRead...)

	if sb.Filesystem == string(sandbox.FSWorkspaceWrite) || sb.Filesystem == "" {
		if err := checkWorkdir(workdir, sb.DenyRead); err != nil {
			if !f.dangerousWorkdir {
				return nil, err
			}
			slog.Warn("the workdir is writable although it is dangerous (--allow-dangerous-workdir)", "why", err.Error())
		}
	}
	cacheDir := projectBuildCache(&sb, workdir)
	host := degrade.Detect()
	if f.hostFile != "" {
		if host, err = readHost(f.hostFile); err != nil {
			return nil, err
		}
	}
	spec, report, err := degrade.Plan(host, sb, workdir, tmpdir)
	if err != nil {
		return nil, err
	}
	env, removed := exec.ScrubEnv(os.Environ(), exec.EnvRules{Keep: p.Env.Keep, Scrub: p.Env.Scrub, Set: p.Env.Set})
	if len(removed) > 0 {
		slog.Info("secrets removed from the environment of commands", "names", strings.Join(removed, ","))
	}
	env = pointAtBuildCache(env, cacheDir, p, append([]string{workdir}, spec.WritableRoots...))
	st := &setup{policy: p, workdir: workdir, spec: spec, report: report, env: env, network: sb.Network}
	pins, err := netproxy.ParsePins(f.resolve)
	if err != nil {
		return nil, err
	}
	if sb.Network == "off" || sb.Network == "allowlist" && !spec.NetNS {
		for k, v := range netproxy.OffEnv() {
			if !hasEnv(st.env, k) {
				st.env = exec.SetEnv(st.env, k, v)
			}
		}
	}
	if sb.Network == "allowlist" && spec.NetNS {
		st.egress = netproxy.New(allowlist)
		st.egress.Resolve = pins.Resolver(nil)
		for k, v := range netproxy.Env(exec.ProxyAddr) {
			st.env = exec.SetEnv(st.env, k, v)
		}
		for k, v := range netproxy.RetryEnv() {
			if !hasEnv(st.env, k) {
				st.env = exec.SetEnv(st.env, k, v)
			}
		}
	}
	return st, nil
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
