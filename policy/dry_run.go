package policy

// dryRun reports whether the invocation asks its tool only to show what it
// would do, by an option of the tool's own: --dry-run (kubectl's
// --dry-run=client too), aws's and az's --dryrun, PowerShell-style
// --what-if, --noop, pulumi's --preview-only, ansible-playbook's --check,
// and the -n of rsync, gsutil rsync and make (alone, for make and the
// build tools like it). A dry run of a mirror with
// --delete or of a destroy changes nothing; the rules about those acts
// leave it out (dry_run = false), as they do help.
func dryRun(a *argv) bool {
	if a.hasFlagWord("--dry-run", "--dryrun", "--what-if", "--noop", "--preview-only") {
		return true
	}
	switch {
	case buildTools[a.name]:
		return a.hasFlagWord("-n", "--just-print", "--recon")
	case a.name == "rsync", a.name == "gsutil" && a.subcommand == "rsync":
		return a.hasShort('n') // rsync -avn
	case a.name == "ansible-playbook":
		return a.hasShort('C') || a.hasFlagWord("--check")
	case a.name == "aws", a.name == "gcloud":
		return helpWord(a)
	}
	return false
}

// helpWord reports whether aws or gcloud is asked for its help page by the
// word help rather than an option (Round 21): aws takes it in the place of
// the next command word (aws s3 rb help, aws help), gcloud as its first
// (gcloud help compute instances delete). The page is printed; nothing is
// done. A help anywhere else is an operand (aws s3 rb s3://b help fails,
// gh repo delete help deletes a repository called help).
func helpWord(a *argv) bool {
	p := a.positionals
	switch {
	case len(p) == 0:
		return false
	case a.name == "gcloud":
		return p[0] == "help"
	}
	return len(p) <= 3 && p[len(p)-1] == "help" && a.words[len(a.words)-1] == "help"
}
