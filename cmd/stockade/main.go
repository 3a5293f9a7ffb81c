// Command stockade runs shell commands for AI agents and CI under a policy and a
// kernel sandbox. See README.md.
//
// Output rules for every subcommand, stated once: errors go to stderr as
// "stockade: error: <lowercase message, no trailing period>", followed by
// "hint: ..." lines where a hint helps; stdout carries only results (and, for
// `serve`, only MCP messages).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/stockade/stockade/sandbox"
)

// init keeps the main goroutine on the process's main thread: stockade run
// restricts another thread and forks the command from it, and a signal to
// stockade is checked against the main thread's sandbox (none).
func init() { sandbox.MainThreadLocked() }

// main is never reached by the sandboxed child (this same binary re-executed
// with sandbox.ChildArg): package sandbox's init runs it, before the packages
// it does not use are initialised.
func main() {
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

// stdio is what a subcommand reads and writes.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// subcommands maps each name to its handler; a handler returns the exit status.
var subcommands = map[string]func(args []string, io stdio) int{
	"serve":  cmdServe,
	"run":    cmdRun,
	"check":  cmdCheck,
	"policy": cmdPolicy,
	"doctor": cmdDoctor,
	// version is the entry SECURITY.md asks reporters for.
	"version": cmdVersion,
}

const usage = `usage: stockade <command> [flags]

commands:
  serve                 MCP server (stdio by default; --http ADDR for streamable HTTP)
  run -- CMD [ARGS...]  run one command under the policy, exit with its status (CI)
  run -c 'SCRIPT'       the same, for a shell script
  check 'SCRIPT'        safety analysis only: the decision, the rule, the reason
  policy default|lint|explain|test
  doctor                what this host can enforce
  version               print the version

Run 'stockade help <command>' (or 'stockade <command> --help') for its flags.
`

func run(args []string, io stdio) int {
	if len(args) == 0 {
		fmt.Fprint(io.err, usage)
		return 2
	}
	switch args[0] {
	case "-h", "--help":
		fmt.Fprint(io.out, usage)
		return 0
	case "help":
		// help CMD [SUB] is CMD [SUB] --help.
		if len(args) == 1 {
			fmt.Fprint(io.out, usage)
			return 0
		}
		args = append(args[1:len(args):len(args)], "--help")
	case "--version":
		args = []string{"version"}
	}
	handler, ok := subcommands[args[0]]
	if !ok {
		return fail(io.err, fmt.Errorf("unknown command %q", args[0]), "run 'stockade help' for the list of commands")
	}
	return handler(args[1:], io)
}

// fail prints err and hints in the CLI error format and returns exit status 2
// (a usage or input mistake). Subcommands with exit codes of their own print with
// printError and choose the status.
func fail(w io.Writer, err error, hints ...string) int {
	printError(w, err, hints...)
	return 2
}

func printError(w io.Writer, err error, hints ...string) {
	fmt.Fprintf(w, "stockade: error: %v\n", err)
	var h interface{ Hints() []string }
	if errors.As(err, &h) {
		hints = append(h.Hints(), hints...)
	}
	for _, hint := range hints {
		fmt.Fprintf(w, "hint: %s\n", hint)
	}
}
