package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 13: the whole environment printed where the agent reads it (env,
// printenv | sort, export -p, declare -x, set). The scrubber removes the
// variables it recognises as secrets, but not a secret it does not (a
// database URL with a password, a variable env.keep lets through), and
// every independent corpus labels a whole dump a secret read. Narrowed
// by name on its way out (env | grep PATH, env | wc -l) it shows only
// what was asked for; the secret-vars rules judge a narrowing by secret
// names.

// environmentShown reports whether invocation i prints the whole
// environment (or all the shell's variables) to its standard output, and
// no later stage of its pipeline narrows that output to some names.
// Written to a file, rule environment-dumped judges it.
func (ctx *scriptCtx) environmentShown(i int, a *argv) bool {
	inv := &ctx.invs[i]
	if inv.Dynamic || !dumpsEnvironment(inv) {
		return false
	}
	for _, r := range inv.Redirects {
		if (r.Op == ">" || r.Op == ">>" || r.Op == ">|" || r.Op == "&>" || r.Op == "&>>") && (r.FD == "" || r.FD == "1") {
			return false
		}
	}
	level := pipelineLevel(inv.Via)
	// A wrapped command (kubectl exec pod -- printenv) is reported after
	// its wrapper's later stages: they start after the wrapper.
	start := i
	for k := i - 1; k >= 0; k-- {
		if ctx.invs[k].Pos == inv.Pos {
			start = k
		}
	}
	for j := start + 1; j < len(ctx.invs); j++ {
		next := &ctx.invs[j]
		if next.Pos == inv.Pos && (j <= i || len(next.Via) < len(inv.Via)) {
			continue // the wrapper's own words (not a later stage of a code string's pipeline)
		}
		nl := pipelineLevel(next.Via)
		if len(nl) > len(level) && sameVia(nl[:len(level)], level) {
			continue // inside a substitution of a later stage
		}
		// A later stage of its pipeline, or of the pipeline of the
		// command it runs in (kubectl exec pod -- printenv | grep DB).
		if len(nl) > len(level) || !sameVia(level[:len(nl)], nl) || !next.PipedInto {
			break
		}
		if narrowsByName(next) {
			return false
		}
	}
	return true
}

// dumpsEnvironment reports whether inv prints every variable: env and
// printenv without names or a command, set without arguments, export
// alone or with -p, declare or typeset with only listing options, jq
// whose program is env or $ENV.
func dumpsEnvironment(inv *parse.Invocation) bool {
	switch inv.Name {
	case "env":
		for k := 0; k < len(inv.Args); k++ {
			w := inv.Args[k]
			switch {
			case w == "-0" || w == "--null" || w == "-v" || w == "--debug":
			case w == "-u" || w == "--unset":
				k++
			case strings.HasPrefix(w, "--unset=") || strings.HasPrefix(w, "-u") && len(w) > 2:
			default:
				return false // -i, a command, NAME=VALUE ...
			}
		}
		return true
	case "printenv":
		for _, w := range inv.Args {
			if w != "-0" && w != "--null" {
				return false
			}
		}
		return true
	case "set":
		return len(inv.Args) == 0
	case "export":
		return len(inv.Args) == 0 || len(inv.Args) == 1 && inv.Args[0] == "-p"
	case "jq", "gojq", "jaq":
		return jqProgramIsEnvironment(inv.Args)
	case "declare", "typeset":
		for _, w := range inv.Args {
			if len(w) < 2 || w[0] != '-' && w[0] != '+' || strings.ContainsAny(w, "fFaAinlu") {
				return false
			}
		}
		return true
	}
	return false
}

// jqProgramIsEnvironment reports whether jq's program (its first operand)
// is the whole environment, env or $ENV (jq -n env).
func jqProgramIsEnvironment(args []string) bool {
	for k := 0; k < len(args); k++ {
		switch w := args[k]; {
		case w == "--arg" || w == "--argjson" || w == "--slurpfile" || w == "--rawfile":
			k += 2
		case w == "--indent":
			k++
		case w == "-f" || w == "--from-file":
			return false // the program is in a file
		case len(w) > 1 && w[0] == '-':
		default:
			p := strings.TrimSpace(w)
			return p == "env" || p == "$ENV"
		}
	}
	return false
}

// narrowsByName reports whether a pipeline stage keeps only some lines of
// what it reads, or only counts them: grep and its kin without -v and with
// a pattern that is not everything, wc, cut of the names alone.
func narrowsByName(inv *parse.Invocation) bool {
	switch inv.Name {
	case "wc":
		return true
	case "cut":
		for k, w := range inv.Args {
			if w == "-f1" || w == "--fields=1" || w == "-f" && k+1 < len(inv.Args) && inv.Args[k+1] == "1" {
				return true
			}
		}
		return false
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep":
		if invertsMatch(inv) {
			return false
		}
		for _, w := range inv.Args {
			switch w {
			case "", ".", "=", "^", "$", ".*", "^.*", "-f", "--file":
				return false
			}
		}
		return len(inv.Args) > 0
	}
	return false
}
