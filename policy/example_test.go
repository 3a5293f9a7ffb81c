package policy_test

import (
	"fmt"

	"github.com/stockade/stockade/policy"
)

func Example() {
	p, err := policy.Parse([]byte(`
version = 1

[sandbox]
network = "on"

[[rule]]
name = "no-force-push"
decision = "ask"
reason = "force push overwrites the remote branch"
command = ["git"]
subcommand = ["push"]
flags = ["f|force"]
not_flags = ["force-with-lease"]
examples = ["git push -f", "git push --force origin main"]
not_examples = ["git push --force-with-lease"]
`), "example.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, script := range []string{"git status && git push -uf origin main", "git push --force-with-lease"} {
		d := p.Check(script)
		fmt.Printf("%s: %s (%s)\n", script, d.Verdict, d.Rule)
	}
	fmt.Println("network:", p.Sandbox.Network, "filesystem:", p.Sandbox.Filesystem)
	// Output:
	// git status && git push -uf origin main: ask (no-force-push)
	// git push --force-with-lease: allow (default)
	// network: on filesystem: workspace-write
}
