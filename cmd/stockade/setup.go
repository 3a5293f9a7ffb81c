package main

import (
	"flag"
	"strings"

	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/policy"
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
	// deny-read path be writable (see pipeline.Overrides).
	dangerousWorkdir bool
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (f *sandboxFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.policyPath, "policy", "", "policy `FILE` (default: the built-in policy, see 'stockade policy default')")
	fs.StringVar(&f.workdir, "workdir", "", "`DIR` commands start in (default: the current directory)")
	fs.StringVar(&f.fs, "fs", "", "override the policy's filesystem `MODE`: "+policy.SandboxChoice("filesystem").List())
	fs.StringVar(&f.network, "network", "", "override the policy's network `MODE`: "+policy.SandboxChoice("network").List()+
		" ("+policy.NetworkAllowlist+": only the hosts of [network] allow, through stockade's proxy)")
	fs.StringVar(&f.enforce, "enforce", "", "override the policy's enforcement `LEVEL`: "+policy.SandboxChoice("enforce").List())
	fs.Var(&f.allowWrite, "allow-write", "an extra writable `DIR` (repeatable)")
	fs.Var(&f.allowHost, "allow-host", "a `HOST` the command may reach through stockade's proxy, as in [network] allow (repeatable); turns network \"off\" into \"allowlist\"")
	fs.Var(&f.resolve, "resolve", "`NAME=ADDR`: the proxy takes NAME to be at ADDR instead of asking DNS, as curl --resolve does (repeatable); ADDR must still be allowed")
	fs.Var(&f.allowRead, "allow-read", "restrict reads to these `DIR`s, plus what a shell needs (repeatable)")
	fs.BoolVar(&f.dangerousWorkdir, "allow-dangerous-workdir", false, "let a workdir of /, $HOME or a directory holding a deny-read path be writable (refused otherwise in workspace-write mode)")
	fs.StringVar(&f.hostFile, "simulate-host", "", "for tests: plan as if on the host described in `FILE` (the \"host\" of 'stockade doctor --json'); what cannot be applied here still fails")
}

// prepare loads the policy, applies the flag overrides and plans the sandbox
// for this host (see pipeline.Prepare).
func (f *sandboxFlags) prepare(tmpdir string) (*pipeline.Setup, error) {
	o := pipeline.Overrides{PolicyPath: f.policyPath, Workdir: f.workdir, Filesystem: f.fs, Network: f.network,
		Enforce: f.enforce, AllowWrite: f.allowWrite, AllowRead: f.allowRead, AllowHost: f.allowHost, Resolve: f.resolve,
		DangerousWorkdir: f.dangerousWorkdir}
	if f.hostFile != "" {
		host, err := readHost(f.hostFile)
		if err != nil {
			return nil, err
		}
		o.Host = &host
	}
	return pipeline.Prepare(o, tmpdir)
}
