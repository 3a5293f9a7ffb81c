package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/stockade/stockade/policy"
)

const policyUsage = `usage: stockade policy <command>

commands:
  default              print the built-in policy (a commented policy file)
  lint FILE            load FILE strictly over the built-in policy and check every
                       rule's examples (a FILE inside this directory may only restrict)
  explain [FILE]       say in plain words what the merged policy allows (built-in,
                       user and project files, and FILE) and where each rule comes from
  test FILE CASES      run the [[case]] table CASES against FILE

Exit status: 0 fine, 1 problems found (lint errors, failing cases), 2 usage error.
`

// cmdPolicy implements `stockade policy`.
func cmdPolicy(args []string, io stdio) int {
	if len(args) == 0 {
		fmt.Fprint(io.err, policyUsage)
		return 2
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "--help", "help":
		fmt.Fprint(io.out, policyUsage)
		return 0
	case "default":
		if len(rest) != 0 {
			return fail(io.err, errors.New("policy default takes no arguments"))
		}
		io.out.Write(policy.DefaultTOML)
		return 0
	case "lint":
		if len(rest) != 1 {
			return fail(io.err, errors.New("policy lint takes one file"), "stockade policy lint stockade.toml")
		}
		return policyLint(rest[0], io)
	case "explain":
		if len(rest) > 1 {
			return fail(io.err, errors.New("policy explain takes at most one file"))
		}
		file := ""
		if len(rest) == 1 {
			file = rest[0]
		}
		p, code := loadPolicy(file, io)
		if p == nil {
			return code
		}
		p.Explain(io.out)
		return 0
	case "test":
		if len(rest) != 2 {
			return fail(io.err, errors.New("policy test takes a policy file and a cases file"), "stockade policy test stockade.toml cases.toml")
		}
		return policyTest(rest[0], rest[1], io)
	}
	return fail(io.err, fmt.Errorf("unknown policy command %q", sub), "commands: default, lint, explain, test")
}

func policyLint(file string, io stdio) int {
	wd, _ := os.Getwd()
	p, err := policy.LoadIn(file, wd)
	var errs policy.Errors
	if errors.As(err, &errs) {
		for _, e := range errs {
			printError(io.err, e)
		}
		fmt.Fprintf(io.err, "%s: %d problem(s)\n", file, len(errs))
		return 1
	}
	if err != nil {
		return fail(io.err, err)
	}
	n, own := 0, 0
	for _, r := range p.Rules {
		if r.Origin != policy.LayerBuiltin {
			own++
			n += len(r.Examples) + len(r.NotExamples)
		}
	}
	fmt.Fprintf(io.out, "%s: ok: %d rules, %d examples hold\n", file, own, n)
	if p.Extends == "none" {
		fmt.Fprintf(io.err, "stockade: warning: %s says extends = \"none\": the %d built-in rules do not apply, only the %d of this file\n", file, len(policy.Default().Rules), own)
		fmt.Fprintln(io.err, "hint: remove the extends line to keep the built-in rules and add yours to them; override a built-in rule by name with override = \"NAME\"")
	}
	return 0
}

func policyTest(file, casesFile string, io stdio) int {
	p, code := loadPolicy(file, io)
	if p == nil {
		return code
	}
	cases, err := policy.LoadCases(casesFile)
	if err != nil {
		return fail(io.err, err)
	}
	failed := 0
	for _, r := range p.Test(cases) {
		status := "ok  "
		if !r.OK {
			status = "FAIL"
			failed++
		}
		fmt.Fprintf(io.out, "%s %s:%d: %s -> %s (%s)", status, casesFile, r.Case.Line, shellQuote(r.Case.Script), r.Decision.Verdict, r.Decision.Rule)
		if !r.OK {
			want := string(r.Case.Expect)
			if r.Case.Rule != "" {
				want += " (" + r.Case.Rule + ")"
			}
			fmt.Fprintf(io.out, ", want %s", want)
		}
		fmt.Fprintln(io.out)
	}
	fmt.Fprintf(io.out, "%d cases, %d failed\n", len(cases), failed)
	if failed > 0 {
		return 1
	}
	return 0
}
