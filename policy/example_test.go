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

# The file is merged over the built-in policy, whose rules still apply.
[[rule]]
name = "make-deploy"
decision = "ask"
reason = "deploys"
command = ["make"]
subcommand = ["deploy"]
examples = ["make deploy"]
not_examples = ["make test"]
`), "example.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, script := range []string{"git status && git push -uf origin main", "make deploy", "git push --force-with-lease"} {
		d := p.Check(script)
		fmt.Printf("%s: %s (%s)\n", script, d.Verdict, d.Rule)
	}
	fmt.Println("network:", p.Sandbox.Network, "filesystem:", p.Sandbox.Filesystem)
	// Output:
	// git status && git push -uf origin main: ask (git-push-force)
	// make deploy: ask (make-deploy)
	// git push --force-with-lease: allow (default)
	// network: on filesystem: workspace-write
}
