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
	}
	return false
}
