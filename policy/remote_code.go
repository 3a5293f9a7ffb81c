package policy

import (
	"encoding/json"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 20: a command a remote shell tool runs on another machine (ssh HOST
// CMD, gcloud compute ssh --command CMD, az vm run-command --scripts CMD,
// ansible HOSTS -m shell -a CMD, pssh, fly ssh console -C CMD, heroku run
// CMD, docker exec CONTAINER CMD) is read as shell code too, its commands
// carried with a via of "remote:" and the tool's name. What it does there is
// not this machine's: a deploy's sudo systemctl restart or its rm -rf of old
// releases is the remote host's business, which the rules about the world
// outside ask about. So only rules whose via names remote code judge it
// (remoteRule): those say what is as bad there as here, a secret read and
// brought back into the agent's output (/etc/shadow, ~/.aws/credentials, the
// environment of a process), a key or startup file planted, a system's data
// or logs wiped.

// remoteVia is the prefix of the via of a command run on another machine.
const remoteVia = "remote:"

// remoteTools are the commands remoteCode reads.
var remoteTools = map[string]bool{
	"ssh": true, "gcloud": true, "az": true, "aws": true, "pssh": true, "parallel-ssh": true, "pdsh": true, "clush": true,
	"fly": true, "flyctl": true, "heroku": true, "docker": true, "podman": true, "nerdctl": true, "vagrant": true,
	"multipass": true, "lxc": true, "incus": true, "ansible": true, "salt": true, "salt-ssh": true, "knife": true, "fab": true, "doctl": true,
}

// isRemote reports whether an invocation with this via runs on another
// machine.
func isRemote(via []string) bool {
	for _, v := range via {
		if strings.HasPrefix(v, remoteVia) {
			return true
		}
	}
	return false
}

// remoteRule reports whether r judges commands run on another machine: a
// pattern of its via key names remote code.
func remoteRule(r *Rule) bool { return isRemote(r.Via) }

// judges reports whether r may judge invocation i: a command run on another
// machine only by a rule about remote code (judge applies the same test).
func (r *Rule) judges(ctx *scriptCtx, i int) bool {
	return !isRemote(ctx.invs[i].Via) || remoteRule(r)
}

// remoteCode returns, as shell code, the commands inv runs on another
// machine. A word known only at run time is read from its source text
// (ssh host "echo '$(cat k.pub)' >> ~/.ssh/authorized_keys": the
// redirection is there all the same).
func remoteCode(inv *parse.Invocation) (code []string) {
	args := inv.Args
	word := func(k int) string {
		w := args[k]
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] && len(w) > 1 && w[0] == '"' && w[len(w)-1] == '"' {
			return w[1 : len(w)-1]
		}
		return w
	}
	// the operands after the options; values lists the options that take
	// a value (a long one may also have it after =)
	operands := func(from int, values string, long ...string) []int {
		var ops []int
		for k := from; k < len(args); k++ {
			a := args[k]
			switch {
			case len(ops) > 0:
				ops = append(ops, k)
			case a == "--":
				for k++; k < len(args); k++ {
					ops = append(ops, k)
				}
			case strings.HasPrefix(a, "--"):
				if !strings.Contains(a, "=") && contains(long, a) {
					k++
				}
			case len(a) > 1 && a[0] == '-':
				// -tt, -p22, -ip 22: a value letter takes the rest or the next word
				for j := 1; j < len(a); j++ {
					if strings.IndexByte(values, a[j]) >= 0 {
						if j == len(a)-1 {
							k++
						}
						break
					}
				}
			default:
				ops = append(ops, k)
			}
		}
		return ops
	}
	joined := func(ks []int, sep string) string {
		ws := make([]string, len(ks))
		for n, k := range ks {
			ws[n] = word(k)
		}
		return strings.Join(ws, sep)
	}
	argv := func(ks []int) string {
		ws := make([]string, len(ks))
		for n, k := range ks {
			if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
				return ""
			}
			ws[n] = args[k]
		}
		return shellQuote(ws)
	}
	optionValue := func(names ...string) {
		for k := 0; k < len(args); k++ {
			for _, n := range names {
				if args[k] == n && k+1 < len(args) {
					code = append(code, word(k+1))
				} else if v, ok := strings.CutPrefix(args[k], n+"="); ok && strings.HasPrefix(n, "--") {
					code = append(code, v)
				}
			}
		}
	}
	sub := func(words ...string) int { // the index after the subcommand words, or -1
		j := 0
		for k := 0; k < len(args) && j < len(words) && k < 8; k++ {
			if args[k] == words[j] {
				j++
				if j == len(words) {
					return k + 1
				}
			}
		}
		return -1
	}
	switch name := commandName(inv.Name); name {
	case "ssh":
		ops := operands(0, signatureOf("ssh").valueShort)
		if len(ops) > 1 {
			code = append(code, joined(ops[1:], " "))
		} else if len(ops) == 1 {
			for _, r := range inv.Redirects {
				if (r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<") && !r.Dynamic {
					code = append(code, r.Target) // ssh host <<'EOF' ... EOF
				}
			}
		}
		for k, a := range args {
			if v, ok := strings.CutPrefix(a, "RemoteCommand="); ok && k > 0 && args[k-1] == "-o" {
				code = append(code, v)
			}
		}
	case "gcloud":
		if k := sub("ssh"); k > 0 {
			optionValue("--command")
			for j := k; j < len(args); j++ {
				if args[j] == "--" { // gcloud compute ssh VM -- [ssh options] CMD
					if ops := operands(j+1, signatureOf("ssh").valueShort); len(ops) > 0 {
						code = append(code, joined(ops, " "))
					}
					break
				}
			}
		}
	case "doctl":
		if sub("ssh") > 0 {
			optionValue("--ssh-command")
		}
	case "salt", "salt-ssh":
		// salt TARGET cmd.run CMD (cmd.shell, cmd.exec_code_all ...)
		for k := 0; k+1 < len(args); k++ {
			if strings.HasPrefix(args[k], "cmd.run") || args[k] == "cmd.shell" || args[k] == "cmd.script" {
				code = append(code, word(k+1))
				break
			}
		}
	case "knife":
		if k := sub("ssh"); k > 0 {
			if ops := operands(k, "xiCaApGm", "--ssh-user", "--ssh-password", "--ssh-port", "--ssh-gateway", "--attribute", "--identity-file", "--concurrency"); len(ops) > 1 {
				code = append(code, joined(ops[1:], " ")) // knife ssh QUERY CMD
			}
		}
	case "fab":
		for k, a := range args {
			if a == "--" && k+1 < len(args) { // fab -H HOST -- CMD
				code = append(code, joined(operands(k, ""), " "))
				break
			}
		}
	case "az":
		if sub("run-command") > 0 {
			for k := 0; k < len(args); k++ {
				if args[k] != "--scripts" && args[k] != "--script" {
					continue
				}
				var ks []int
				for k++; k < len(args) && !strings.HasPrefix(args[k], "--"); k++ {
					ks = append(ks, k)
				}
				code = append(code, joined(ks, "\n")) // a line each
				k--
			}
		}
	case "aws":
		if sub("ecs", "execute-command") > 0 {
			optionValue("--command")
		}
		if sub("ssm", "send-command") > 0 {
			for k := 0; k+1 < len(args); k++ {
				if args[k] == "--parameters" {
					code = append(code, ssmCommands(word(k+1))...)
				}
			}
		}
	case "pssh", "parallel-ssh", "pdsh", "clush":
		ops := operands(0, "hHlpoetxXOwgRf", "--hosts", "--host", "--user", "--par", "--outdir", "--errdir", "--timeout", "--extra-args", "--extra-arg", "--option")
		if len(ops) > 0 {
			code = append(code, joined(ops, " "))
		}
	case "fly", "flyctl":
		if sub("ssh", "console") > 0 {
			optionValue("-C", "--command")
		}
	case "heroku":
		for k, a := range args {
			if a == "run" || a == "run:detached" || a == "run:inside" {
				ops := operands(k+1, "arset", "--app", "--remote", "--size", "--env", "--type")
				if len(ops) > 0 {
					code = append(code, joined(ops, " "))
				}
				break
			}
			if !strings.HasPrefix(a, "-") {
				break
			}
		}
	case "vagrant":
		if sub("ssh") > 0 {
			optionValue("-c", "--command")
		}
	case "docker", "podman", "nerdctl", "multipass", "lxc", "incus":
		k := sub("exec")
		if k < 0 {
			return nil
		}
		ops := operands(k, "euw", "--env", "--env-file", "--user", "--workdir", "--detach-keys", "--index", "--project")
		if k > 1 && args[k-2] == "compose" {
			ops = operands(k, "euw", "--env", "--user", "--workdir", "--index")
		}
		if len(ops) > 1 {
			if c := argv(ops[1:]); c != "" {
				code = append(code, c) // a command's words, not a shell's text
			}
		}
	case "ansible":
		module, modArgs, local := ansibleAdhoc(inv)
		switch module {
		case "command", "shell", "raw":
			if !local && strings.TrimSpace(modArgs) != "" {
				code = append(code, modArgs)
			}
		}
	}
	return code
}

// ssmCommands returns the commands of aws ssm send-command --parameters:
// commands=a,b, commands=["a","b"] or {"commands":["a"]}.
func ssmCommands(p string) []string {
	if strings.HasPrefix(strings.TrimSpace(p), "{") {
		var m map[string][]string
		if json.Unmarshal([]byte(p), &m) == nil {
			return m["commands"]
		}
		return nil
	}
	v, ok := strings.CutPrefix(p, "commands=")
	if !ok {
		return nil
	}
	if strings.HasPrefix(v, "[") {
		var l []string
		if json.Unmarshal([]byte(v), &l) == nil {
			return l
		}
		v = strings.Trim(v, "[]")
	}
	return []string{v}
}

// remoteInvocations returns the commands inv runs on another machine, as
// invocations at inv's place with the via remote:NAME; code that does not
// parse is one dynamic command there.
func remoteInvocations(inv *parse.Invocation, name string) []parse.Invocation {
	via := remoteVia + name
	return codesRunBy(inv, remoteCode(inv), via, append(append([]string(nil), inv.Via...), via))
}

// remoteStageMatches reports whether a command that pipeline stage j runs on
// another machine matches m: what it prints is the stage's output (docker
// exec db env | grep PASSWORD searches the container's environment).
func (ctx *scriptCtx) remoteStageMatches(j int, m *Matcher) bool {
	stage := &ctx.invs[j]
	if stage.Dynamic || !remoteTools[commandName(stage.Name)] {
		return false
	}
	for k := j + 1; k < len(ctx.invs); k++ {
		x := &ctx.invs[k]
		if x.Pos == stage.Pos && len(x.Via) > len(stage.Via) && strings.HasPrefix(x.Via[len(stage.Via)], remoteVia) &&
			sameVia(x.Via[:len(stage.Via)], stage.Via) && m.match(ctx, k, ctx.arg(k)) {
			return true
		}
	}
	return false
}
