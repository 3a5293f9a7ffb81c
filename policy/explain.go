package policy

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Explain writes, in plain words for a reviewer, what p lets a command do:
// the sandbox, the environment, the default verdict and every rule.
func (p *Policy) Explain(w io.Writer) {
	s := p.Sandbox.WithDefaults()
	fmt.Fprintf(w, "Policy %s (version %d)\n\n", p.Source, p.Version)
	if len(p.Layers) > 0 {
		fmt.Fprintln(w, "Layers (each later one merged over the ones before):")
		for i, l := range p.Layers {
			fmt.Fprintf(w, "  %d. %s\n", i+1, l)
		}
		if p.Extends == "none" {
			fmt.Fprintln(w, "  (the built-in rules are left out: a file says extends = \"none\")")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Sandbox (enforced by the kernel):")
	switch s.Filesystem {
	case FilesystemReadOnly:
		fmt.Fprintln(w, "  - Files: nothing is writable except a private TMPDIR.")
	case FilesystemWorkspaceWrite:
		fmt.Fprintln(w, "  - Files: the working directory, a private TMPDIR and the project's own build cache (~/.cache/stockade/build/NAME-HASH) are writable; the rest is read-only.")
	case FilesystemOff:
		fmt.Fprintln(w, "  - Files: NOT confined; the command may write anywhere the user can.")
	}
	if len(s.WritableRoots) > 0 {
		fmt.Fprintf(w, "  - Also writable: %s.\n", strings.Join(s.WritableRoots, ", "))
	}
	if len(s.ReadableRoots) > 0 {
		fmt.Fprintf(w, "  - Readable only: %s (plus the workdir and TMPDIR).\n", strings.Join(s.ReadableRoots, ", "))
	} else {
		fmt.Fprintln(w, "  - Reads: the whole file system, except the list below.")
	}
	if len(s.DenyRead) > 0 {
		fmt.Fprintf(w, "  - Never readable: %s.\n", strings.Join(s.DenyRead, ", "))
	} else {
		fmt.Fprintln(w, "  - Never readable: nothing; secret stores such as ~/.ssh are readable.")
	}
	fmt.Fprintf(w, "  - Protected (read-only where the host can mount them so, else every change is reported): .git/hooks, .git/config, .git/info/attributes, the policy file%s.\n",
		strings.Join(append([]string{""}, s.Protected...), ", "))
	switch s.Network {
	case NetworkOn:
		fmt.Fprintln(w, "  - Network: ON; the command may connect anywhere.")
	case NetworkAllowlist:
		hosts := "none listed, so nothing is reachable"
		if len(p.Network.Allow) > 0 {
			hosts = strings.Join(p.Network.Allow, ", ")
		}
		fmt.Fprintf(w, "  - Network: allowlist; only these hosts, by name, through stockade's proxy: %s.\n", hosts)
	default:
		fmt.Fprintln(w, "  - Network: off (no TCP, UDP, DNS or raw sockets).")
	}
	if s.UnixSockets == UnixSocketsAllow {
		fmt.Fprintln(w, "  - Unix sockets: allowed (docker.sock, ssh-agent and the like are reachable).")
	} else {
		fmt.Fprintln(w, "  - Unix sockets: new ones refused.")
	}
	if s.MaxProcesses > 0 {
		fmt.Fprintf(w, "  - At most %d processes.\n", s.MaxProcesses)
	} else {
		fmt.Fprintf(w, "  - At most %d processes where the host can enforce it (the default).\n", DefaultMaxProcesses)
	}
	if s.Enforce == EnforceBestEffort {
		fmt.Fprintln(w, "  - Enforcement: best-effort; on hosts that lack a feature the command runs anyway, with a report.")
	} else {
		fmt.Fprintln(w, "  - Enforcement: strict; where the host cannot enforce all of this, nothing runs.")
	}
	fmt.Fprintln(w, "\nEnvironment:")
	fmt.Fprintln(w, "  - Secret-looking variables are removed.")
	if len(p.Env.Keep) > 0 {
		fmt.Fprintf(w, "  - Kept anyway: %s.\n", strings.Join(p.Env.Keep, ", "))
	}
	if len(p.Env.Scrub) > 0 {
		fmt.Fprintf(w, "  - Also removed: %s.\n", strings.Join(p.Env.Scrub, ", "))
	}
	for _, k := range slices.Sorted(maps.Keys(p.Env.Set)) {
		fmt.Fprintf(w, "  - Set: %s=%s\n", k, p.Env.Set[k])
	}
	fmt.Fprintf(w, "\nRules (checked before running; the strictest decision wins; a command no rule matches gets %s):\n", p.defaultVerdict())
	for _, v := range []Verdict{Deny, Ask, Allow} {
		var lines []string
		for _, r := range p.Rules {
			if r.Decision != v {
				continue
			}
			line := fmt.Sprintf("  - %s: %s", r.Name, r.describe())
			if r.Override != "" {
				line += "\n      overrides: " + r.Override
			}
			if r.Origin != "" && r.Origin != LayerBuiltin {
				line += "\n      from: " + r.Origin
			}
			if r.Reason != "" {
				line += "\n      why: " + r.Reason
			}
			if len(r.Examples) > 0 {
				line += "\n      e.g. " + r.Examples[0]
			}
			lines = append(lines, line)
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n %s:\n%s\n", strings.ToUpper(string(v)), strings.Join(lines, "\n"))
	}
}

// describe says in words what the matcher matches.
func (m *Matcher) describe() string {
	var parts []string
	if len(m.Command) > 0 {
		parts = append(parts, "command "+strings.Join(m.Command, ", "))
	} else {
		parts = append(parts, "any command")
	}
	add := func(cond bool, s string) {
		if cond {
			parts = append(parts, s)
		}
	}
	add(len(m.Subcommand) > 0, "subcommand "+strings.Join(m.Subcommand, ", "))
	for _, f := range m.Flags {
		parts = append(parts, "with flag "+describeFlag(f))
	}
	for _, f := range m.NotFlags {
		parts = append(parts, "without flag "+describeFlag(f))
	}
	add(len(m.Args) > 0, "an argument like "+strings.Join(m.Args, ", "))
	add(len(m.LastArg) > 0, "a last operand like "+strings.Join(m.LastArg, ", "))
	add(len(m.NotArgs) > 0, "no argument like "+strings.Join(m.NotArgs, ", "))
	add(len(m.ArgsRegex) > 0, "an argument matching /"+strings.Join(m.ArgsRegex, "/ or /")+"/")
	add(len(m.Writes) > 0, "writing "+strings.Join(m.Writes, ", "))
	add(len(m.Reads) > 0, "reading "+strings.Join(m.Reads, ", "))
	add(len(m.Deletes) > 0, "deleting "+strings.Join(m.Deletes, ", "))
	add(len(m.Executes) > 0, "running "+strings.Join(m.Executes, ", "))
	add(m.ReadsDenied != nil && *m.ReadsDenied, "reading a path on the deny_read list")
	add(m.ExecutesCreated != nil && *m.ExecutesCreated, "running a file the script wrote or downloaded")
	add(m.ExecutesMadeHere != nil && *m.ExecutesMadeHere, "running a file the script built or wrote with text it shows")
	add(m.ProgramUnseen != nil && *m.ProgramUnseen, "running a program the analysis cannot read")
	add(m.CredentialOwnService != nil && *m.CredentialOwnService, "sending its secret variables only to the service they are named for")
	add(m.CredentialOwnService != nil && !*m.CredentialOwnService, "not sending its secret variables only to the service they are named for")
	add(m.SecretIndirect != nil && *m.SecretIndirect, "reading a secret-named variable through ${!n} or a nameref")
	add(m.SecretVariable != nil && *m.SecretVariable, "expanding a secret-named variable")
	add(m.SecretVariable != nil && !*m.SecretVariable, "expanding no secret-named variable")
	add(m.IntoCredentialStore != nil && *m.IntoCredentialStore, "piped into a login or a credential store")
	add(m.IntoCredentialStore != nil && !*m.IntoCredentialStore, "not piped into a login or a credential store")
	add(m.SecretName != nil && *m.SecretName, "given the name of a secret-named variable")
	add(m.PrintsSecretEnv != nil && *m.PrintsSecretEnv, "with code that prints a secret-named environment variable")
	add(m.SecretTerms != nil && *m.SecretTerms, "naming secrets by a word of their names")
	add(m.UnsetVarRoot != nil && *m.UnsetVarRoot, "on a path that is the root's if a variable the script never sets is empty")
	add(m.DryRun != nil && *m.DryRun, "asked only to show what it would do (a dry run)")
	add(m.DryRun != nil && !*m.DryRun, "not a dry run")
	add(m.TargetLocal != nil && *m.TargetLocal, "acting on a server on this machine")
	add(m.TargetLocal != nil && !*m.TargetLocal, "acting on a server not known to be on this machine")
	add(m.KnownPackage != nil && *m.KnownPackage, "running or installing only widely used packages")
	add(m.KnownPackage != nil && !*m.KnownPackage, "running or installing a package not known to be widely used")
	add(m.DevDatabase != nil && *m.DevDatabase, "acting on a development or test database on this machine")
	add(m.DevDatabase != nil && !*m.DevDatabase, "acting on a database not known to be for development or test")
	add(m.NamesListedInWorkdir != nil && *m.NamesListedInWorkdir, "given names a listing of the workdir prints")
	add(m.NamesListedInWorkdir != nil && !*m.NamesListedInWorkdir, "given names that are not only a listing of the workdir")
	add(m.WritesStyleSettings != nil && *m.WritesStyleSettings, "writing only editor style settings")
	add(m.WritesStyleSettings != nil && !*m.WritesStyleSettings, "writing settings other than editor style ones")
	add(m.PidFromPort != nil && *m.PidFromPort, "given the pid of a port's process")
	add(m.PidFromPort != nil && !*m.PidFromPort, "given pids other than a port's process")
	add(m.PidFromCommandLine != nil && *m.PidFromCommandLine, "given the pids of one command line of the work's own")
	add(m.PidFromCommandLine != nil && !*m.PidFromCommandLine, "given pids other than one command line's of the work's own")
	add(m.WorkStashed != nil && *m.WorkStashed, "right after a git stash of every change")
	add(m.WorkStashed != nil && !*m.WorkStashed, "not right after a git stash of every change")
	add(m.EnvironmentShown != nil && *m.EnvironmentShown, "printing the whole environment, not narrowed to some names")
	add(m.EnvironmentShown != nil && !*m.EnvironmentShown, "not printing the whole environment")
	add(m.SearchesText != nil && *m.SearchesText, "searching text for a pattern")
	add(m.SearchesText != nil && !*m.SearchesText, "not only searching text for a pattern")
	add(m.CommandAssembled != nil && *m.CommandAssembled, "whose name is put together from pieces at run time")
	add(m.CommandAssembled != nil && !*m.CommandAssembled, "whose name is not put together from pieces")
	add(m.GrowsItself != nil && *m.GrowsItself, "doubling a file and putting it back in its place")
	add(m.GrowsItself != nil && !*m.GrowsItself, "not doubling a file in its place")
	add(m.FillsDisk != nil && *m.FillsDisk, "copying an endless device, 100 GB or more or without bound")
	add(m.FillsDisk != nil && !*m.FillsDisk, "not copying an endless device without a small bound")
	add(m.SpinsOnly != nil && *m.SpinsOnly, "in endless loops that do nothing else")
	add(m.SpinsOnly != nil && !*m.SpinsOnly, "not only in endless loops that do nothing else")
	add(m.CleanPathsInWorkdir != nil && *m.CleanPathsInWorkdir, "limited to named directories of the workdir")
	add(m.CleanPathsInWorkdir != nil && !*m.CleanPathsInWorkdir, "not limited to named directories of the workdir")
	add(m.AddressForProgram != nil && *m.AddressForProgram, "given addresses only as arguments of the program it runs")
	add(m.AddressForProgram != nil && !*m.AddressForProgram, "given an address as a package to fetch")
	add(m.CopiesWorkdirFile != nil && *m.CopiesWorkdirFile, "putting in place only the workdir's own files")
	add(m.CopiesWorkdirFile != nil && !*m.CopiesWorkdirFile, "putting in place a file not the workdir's own")
	add(m.InCloneMadeHere != nil && *m.InCloneMadeHere, "in a clone the script made")
	add(m.InCloneMadeHere != nil && !*m.InCloneMadeHere, "in a repository the script did not clone")
	add(m.ForeignPackageSource != nil && *m.ForeignPackageSource, "setting a package source other than the default registry")
	add(m.ForeignPackageSource != nil && !*m.ForeignPackageSource, "not setting a package source other than the default registry")
	add(m.TypoPackage != nil && *m.TypoPackage, "installing a package named one letter off a widely used one")
	add(m.TypoPackage != nil && !*m.TypoPackage, "not installing a package named one letter off a widely used one")
	add(len(m.Script) > 0, "in a script that is exactly "+strings.Join(m.Script, " or "))
	add(len(m.Code) > 0, "inline code matching /"+strings.Join(m.Code, "/ or /")+"/")
	add(len(m.Env) > 0, "an environment assignment matching /"+strings.Join(m.Env, "/ or /")+"/")
	add(m.Dynamic != nil && *m.Dynamic, "whose name is computed at run time")
	add(m.DynamicArgs != nil && *m.DynamicArgs, "with an argument computed at run time")
	add(m.PipedInto != nil && *m.PipedInto, "reading from a pipe")
	add(m.Background != nil && *m.Background, "run in the background")
	add(m.EndlessLoop != nil && *m.EndlessLoop, "in a loop that never ends")
	add(m.Recursive != nil && *m.Recursive, "calling the function it is in")
	add(len(m.Via) > 0, "found inside "+strings.Join(m.Via, ", "))
	if m.Upstream != nil {
		parts = append(parts, "fed by a pipeline stage of ("+m.Upstream.describe()+")")
	}
	if m.Inside != nil {
		parts = append(parts, "substituted into ("+m.Inside.describe()+")")
	}
	if m.After != nil {
		parts = append(parts, "after an earlier command of ("+m.After.describe()+")")
	}
	return strings.Join(parts, "; ")
}

func describeFlag(f string) string {
	var out []string
	for _, a := range strings.Split(f, "|") {
		switch {
		case strings.HasPrefix(a, "-"):
			out = append(out, a)
		case len(a) == 1:
			out = append(out, "-"+a)
		default:
			out = append(out, "--"+a)
		}
	}
	return strings.Join(out, " or ")
}
