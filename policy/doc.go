// Package policy loads policy files and decides, for a script, allow, ask or
// deny, with the rule and a reason a person can read. It knows nothing of
// processes: the kernel sandbox (package sandbox) is the security boundary;
// this package is the guardrail in front of it and the explanation for
// reviewers. It also decides which of stockade's environment variables reach
// a command: [ScrubEnv] removes what looks like a credential, as the [env]
// table adjusts.
//
// # Policy files
//
// A policy file is TOML, decoded strictly: an unknown key, a value of the
// wrong type or outside its set, or a missing `version = 1` is an error with
// file, line and column (type [Errors]). [Load] reads a file, [Parse] decodes
// bytes, [Default] returns the built-in policy (default.toml, printed by
// `stockade policy default`).
//
//	version = 1
//	extends = "built-in"         # or "none"
//	default = "allow"            # verdict for commands no rule matches
//
//	[sandbox]                    # what the kernel enforces; omitted keys take
//	filesystem = "workspace-write" # the built-in values
//	network = "off"
//
//	[env]
//	scrub = ["MY_*_TOKEN"]
//
//	[[rule]]
//	name = "git-push-force"
//	decision = "ask"             # allow | ask | deny
//	reason = "force push overwrites the remote branch"
//	command = ["git"]
//	subcommand = ["push"]
//	flags = ["f|force"]          # -f, -uf, --force, --forc
//	not_flags = ["force-with-lease"]
//	examples = ["git push -f origin main"]
//	not_examples = ["git push --force-with-lease"]
//
// The schema, every table and key a file may hold, is the types of
// schema.go ([Policy], [Rule], [Matcher], [Sandbox], [Network], [Env]): the
// known keys are read from their toml tags, and the words and defaults of
// the [sandbox] keys that take one of a few are [SandboxChoices], which the
// loader, the planner (package degrade), the CLI flags and doctor share.
// How each matcher key is tried is its entry in matchKeys (rule.go).
//
// # Matching
//
// The script is parsed (package parse) into every command it would run,
// including those in pipelines, substitutions, `bash -c` strings, eval, and
// behind wrappers such as sudo, env and xargs. Each command is matched
// against every rule. Within a rule every key that is set must hold; within a
// list, one element is enough, except flags, where each entry must be
// present. The keys are documented on [Matcher]: command names and globs,
// subcommand, flags (short, combined, long, abbreviated, single-dash words),
// args and last_arg (globs; path patterns understand ~, $HOME, the home
// directory and ../), args_regex, writes and reads (redirection targets),
// code (inline interpreter code), env, dynamic, dynamic_args and
// dynamic_args_outside, piped_into,
// background, endless_loop, recursive, via, upstream (an earlier pipeline
// stage), inside (the command a substitution is handed to) and after (an
// earlier command of the script). A command pattern with a / matches a file
// run by its path.
//
// The strictest verdict over all commands wins (deny > ask > allow); among
// equals, the first command and, for it, the first rule in file order. A
// command no rule matches gets the policy's default (allow when unset): allow
// rules are useful with default = "ask" or "deny", as an allow-list, and do
// not beat a stricter rule unless they name it in override. A script that
// does not parse is denied, with the parser's position in the reason. An
// empty script is allowed.
//
// # Layers
//
// A file is merged over the built-in policy unless it says extends =
// "none"; [LoadLayers] merges the user's, the project's and the command
// line's files in that order (layers.go). A file inside the workdir may only
// add restrictions.
//
// # Effects
//
// writes, reads, deletes, executes, reads_denied, executes_created,
// executes_made_here and
// program_unseen match what a command does to files, derived from one table
// of command signatures (signatures.go) and resolved against the script's
// cd's and variables (effects.go, expand.go), so that a new spelling of a
// known effect needs no new rule. [Policy.ApprovalAdvice] is the rule that
// allows exactly a script the policy asks about.
//
// # Examples
//
// Every rule may carry examples, scripts that rule must match and that must
// get its decision, and not_examples, scripts it must not match. [Parse] and
// [Load] check them and fail otherwise, so a policy documents and tests
// itself. [Default] skips that check to stay cheap at start-up; the tests and
// `stockade policy lint` run it.
package policy
