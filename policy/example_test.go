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
name = "terraform-apply"
decision = "ask"
reason = "changes the infrastructure"
command = ["terraform"]
subcommand = ["apply"]
examples = ["terraform apply -auto-approve"]
not_examples = ["terraform plan"]
`), "example.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, script := range []string{"git status && git push -uf origin main", "terraform apply", "git push --force-with-lease"} {
		d := p.Check(script)
		fmt.Printf("%s: %s (%s)\n", script, d.Verdict, d.Rule)
	}
	fmt.Println("network:", p.Sandbox.Network, "filesystem:", p.Sandbox.Filesystem)
	// Output:
	// git status && git push -uf origin main: ask (git-push-force)
	// terraform apply: ask (terraform-apply)
	// git push --force-with-lease: allow (default)
	// network: on filesystem: workspace-write
}
