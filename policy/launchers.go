package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// A launcher runs a command it names in an environment it prepares (uv run,
// poetry run, bundle exec, conda run -n x, npx, mise exec --): the command
// is judged exactly as if the script ran it itself, inline code and shell
// -c included, so it is read again as shell code when its words are known.

// launcher describes one launcher: the subcommands after which the command
// comes (none: it comes first, npx CMD), the options that take a value (a
// word an option eats is not the command), how many operands come before
// the command (direnv exec DIR CMD), and options whose value is shell code.
type launcher struct {
	subs   []string
	values []string
	skip   int
	code   []string
	cmdAt  []string // options after which the command comes (nix develop -c CMD ARGS)
}

var pkgValues = []string{"-p", "--package", "--from", "--with", "--python", "--spec", "--pip-args", "--index-url", "--with-requirements", "--env-file", "--directory", "--project", "--group", "--extra", "--index", "--extra-index-url", "-w", "-n", "--name", "--prefix", "-e", "--environment", "--env", "--manifest-path", "--cwd", "-C", "-P", "--config", "--recipe", "--filter", "-F"}

// launcherFlags take no value: the word after them is the command.
var launcherFlags = []string{"-y", "--yes", "-q", "--quiet", "-s", "--silent", "--no-install", "--ignore-existing", "--frozen", "--locked", "--offline", "--no-sync", "--isolated", "--no-project", "--no-capture-output", "--live-stream", "-v", "--verbose", "--impure", "--all-extras", "--dev", "--no-dev", "--active", "--exact", "--no-env-file", "--pure", "--prefer-offline", "--shell-mode", "--workspace-root", "--recursive", "-r", "--parallel", "--stream", "--clean-env", "--no-lockfile"}

// launchers is the table. Options not listed as taking a value are read
// both ways when an operand follows them: the command is then either word.
var launchers = map[string]launcher{
	"npx": {values: pkgValues, code: []string{"-c", "--call"}}, "pnpx": {values: pkgValues, code: []string{"-c", "--call"}},
	"bunx": {values: pkgValues}, "uvx": {values: pkgValues},
	"pipx": {subs: []string{"run"}, values: pkgValues}, "npm": {subs: []string{"exec", "x"}, values: pkgValues, code: []string{"-c", "--call"}},
	"pnpm": {subs: []string{"dlx", "exec"}, values: pkgValues, code: []string{"-c", "--call"}}, "yarn": {subs: []string{"dlx", "exec", "=node"}, values: pkgValues},
	"bun": {subs: []string{"x", "exec"}, values: pkgValues},
	"uv":  {subs: []string{"run", "tool run"}, values: pkgValues}, "poetry": {subs: []string{"run"}, values: pkgValues},
	"pipenv": {subs: []string{"run"}, values: pkgValues}, "pdm": {subs: []string{"run"}, values: pkgValues},
	"hatch": {subs: []string{"run", "env run"}, values: pkgValues}, "rye": {subs: []string{"run"}, values: pkgValues},
	"bundle": {subs: []string{"exec"}, values: pkgValues}, "bundler": {subs: []string{"exec"}, values: pkgValues},
	"conda": {subs: []string{"run"}, values: pkgValues}, "mamba": {subs: []string{"run"}, values: pkgValues},
	"micromamba": {subs: []string{"run"}, values: pkgValues}, "pixi": {subs: []string{"run", "exec"}, values: pkgValues},
	"composer": {subs: []string{"exec", "global exec"}, values: []string{"-d", "--working-dir"}},
	"rbenv":    {subs: []string{"exec"}}, "pyenv": {subs: []string{"exec"}}, "nodenv": {subs: []string{"exec"}}, "goenv": {subs: []string{"exec"}},
	"asdf": {subs: []string{"exec"}}, "mise": {subs: []string{"exec", "x"}, values: pkgValues}, "rtx": {subs: []string{"exec", "x"}, values: pkgValues},
	"direnv": {subs: []string{"exec"}, skip: 1}, "dotenv": {values: []string{"-e", "-v", "-c"}},
	"devbox": {subs: []string{"run"}, values: pkgValues}, "stack": {subs: []string{"exec"}, values: pkgValues},
	"cabal": {subs: []string{"exec"}, values: pkgValues}, "opam": {subs: []string{"exec"}, values: pkgValues},
	"nix":       {subs: []string{"develop", "shell"}, values: []string{"--profile", "-f", "--file", "--expr", "-I", "--override-input", "--arg", "--argstr"}, cmdAt: []string{"-c", "--command"}},
	"nix-shell": {code: []string{"--run", "--command"}, values: []string{"-p", "--packages", "-A", "--attr", "-I", "--arg", "--argstr"}},
	// kubectl exec POD -- CMD runs CMD in the pod: judged as itself too
	// (it reads the pod's service-account token, deletes its data), on top
	// of the cluster-shell rule's ask.
	"kubectl": {subs: []string{"exec"}, values: kubeValues, skip: 1}, "oc": {subs: []string{"exec"}, values: kubeValues, skip: 1},
}

var kubeValues = []string{"-c", "--container", "-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-f", "--filename", "--pod-running-timeout", "--request-timeout", "-s", "--server", "--as"}

// launchedCode returns the command lines inv's launcher runs, as shell code
// (one per reading, when an option may or may not take a value), and the
// command it runs when some of its words are unknown.
func launchedCode(inv *parse.Invocation) (code []string, direct *parse.Invocation) {
	name := commandName(inv.Name)
	l, ok := launchers[name]
	if !ok {
		return nil, nil
	}
	args := inv.Args
	dyn := func(k int) bool { return inv.DynamicArgs != nil && inv.DynamicArgs[k] }
	k := 0
	if len(l.subs) > 0 {
		k = -1
		if l.cmdAt != nil {
			k = 0 // nix develop -c CMD: the option says where the command is
		}
		// the subcommand, after the launcher's global options (poetry -C sub run)
		for j := 0; j < len(args) && j < 6 && k < 0; j++ {
			if dyn(j) {
				return nil, nil
			}
			for _, s := range l.subs {
				if s[0] == '=' && args[j] == s[1:] {
					k = j // yarn node ARGS runs node
					break
				}
				w := strings.Fields(s)
				if j+len(w) <= len(args) && strings.Join(args[j:j+len(w)], " ") == s {
					k = j + len(w)
				}
			}
		}
		if k < 0 {
			return nil, nil
		}
	}
	// a "--" after the subcommand puts the command after it, when the
	// launcher takes a tool list first (mise x node@20 -- node)
	for j := k; j < len(args); j++ {
		if args[j] == "--" && !dyn(j) && (name == "mise" || name == "rtx" || name == "nix") {
			k = j
			break
		}
	}
	starts := []int{}
	skip := l.skip
	for ; k < len(args); k++ {
		a := args[k]
		switch {
		case dyn(k):
			if len(starts) == 0 {
				return code, nil
			}
		case a == "--":
			continue
		case contains(l.cmdAt, a):
			if k+1 < len(args) {
				starts = append(starts, k+1)
			}
			k = len(args)
			continue
		case contains(l.code, a):
			if k+1 < len(args) && !dyn(k+1) {
				code = append(code, args[k+1])
			}
			k++
			continue
		case strings.HasPrefix(a, "-"):
			if i := strings.IndexByte(a, '='); i > 0 && contains(l.code, a[:i]) {
				code = append(code, a[i+1:])
				continue
			}
			if contains(launcherFlags, a) {
				continue
			}
			if contains(l.values, a) {
				k++
				continue
			}
			if !strings.Contains(a, "=") && k+1 < len(args) && !strings.HasPrefix(args[k+1], "-") && skip == 0 {
				// the option may take the next word: the command is that word or the one after it
				starts = append(starts, k+1)
				k++
				if k+1 < len(args) && !strings.HasPrefix(args[k+1], "-") {
					starts = append(starts, k+1)
				}
				k = len(args)
			}
			continue
		case l.cmdAt != nil || skip > 0:
			skip--
			continue
		default:
			starts = append(starts, k)
			k = len(args)
			continue
		}
		break
	}
	for _, s := range starts {
		cmd := args[s]
		if i := strings.IndexByte(cmd, ':'); i > 0 && name == "hatch" {
			cmd = cmd[i+1:] // hatch run ENV:CMD
		}
		words := append([]string{packageCommand(cmd)}, args[s+1:]...)
		for j := s; j < len(args); j++ {
			if dyn(j) {
				d := &parse.Invocation{Name: words[0], Args: args[s+1:]}
				if inv.DynamicArgs != nil {
					d.DynamicArgs = inv.DynamicArgs[s+1:]
				}
				return code, d
			}
		}
		code = append(code, shellQuote(words)+redirectsCode(inv.Redirects))
	}
	return code, nil
}

// redirectsCode writes a launcher's known redirections back as code, for
// the command it launches, which inherits them (poetry run python <<<
// CODE): a here-document as the here-string of its body, a target known
// only at run time as its source text.
func redirectsCode(rs []parse.Redirect) string {
	var b strings.Builder
	for _, r := range rs {
		if strings.HasPrefix(r.FD, "{") {
			continue
		}
		op, target := r.Op, shellQuote([]string{r.Target})
		if op == "<<" || op == "<<-" {
			op = "<<<"
		} else if r.Dynamic {
			target = r.Target // source text: as unknown again
		}
		b.WriteString(" " + r.FD + op + " " + target)
	}
	return b.String()
}

// toolCodeTools run code their options give in another language, or a
// program their properties name.
var toolCodeTools = map[string]bool{"mix": true, "mvn": true, "mvnw": true}

// toolCode returns, as shell code, what mix run -e CODE and Maven's exec
// plugin (exec:exec -Dexec.executable=sh -Dexec.args="-c '...'") run:
// Elixir code as elixir -e would run it, the program with its arguments.
func toolCode(inv *parse.Invocation) (code []string) {
	args := inv.Args
	dyn := func(k int) bool { return inv.DynamicArgs != nil && inv.DynamicArgs[k] }
	switch commandName(inv.Name) {
	case "mix":
		for k, a := range args {
			if (a == "-e" || a == "--eval") && k+1 < len(args) && !dyn(k+1) {
				code = append(code, "elixir -e "+shellQuote([]string{args[k+1]}))
			}
		}
	default: // Maven
		exe, execArgs := "", ""
		for k, a := range args {
			if dyn(k) {
				continue
			}
			if v, ok := strings.CutPrefix(a, "-Dexec.executable="); ok {
				exe = v
			} else if v, ok := strings.CutPrefix(a, "-Dexec.args="); ok {
				execArgs = v
			}
		}
		if exe != "" {
			code = append(code, shellQuote([]string{exe})+" "+execArgs)
		}
	}
	return code
}
