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
name = "make-migrate"
decision = "ask"
reason = "migrates the shared database"
command = ["make"]
subcommand = ["migrate"]
examples = ["make migrate"]
not_examples = ["make test"]
`), "example.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, script := range []string{"git status && git push -uf origin main", "make migrate", "git push --force-with-lease origin feature/x"} {
		d := p.Check(script)
		fmt.Printf("%s: %s (%s)\n", script, d.Verdict, d.Rule)
	}
	fmt.Println("network:", p.Sandbox.Network, "filesystem:", p.Sandbox.Filesystem)
	// Output:
	// git status && git push -uf origin main: ask (git-push-force)
	// make migrate: ask (make-migrate)
	// git push --force-with-lease origin feature/x: allow (default)
	// network: on filesystem: workspace-write
}
