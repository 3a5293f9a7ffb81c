package policy

import "testing"

// classTests9Deny: the deny classes of round 9, as in classTests: new
// spellings of each effect and the verdict the built-in policy must give
// them, with the everyday uses right next to them that stay allowed.
var classTests9Deny = []struct {
	class, script string
	want          Verdict
}{
	// Secrets read by any tool that reads its operands, by the file's name
	// wherever a tool keeps it, through a symlink, inside a query or code.
	{"secret-read", `deno eval 'console.log(Deno.readTextFileSync(Deno.env.get("HOME")+"/.npmrc"))'`, Deny},
	{"secret-read", `ruby -e 'puts File.read(Dir.home + "/.git-credentials")'`, Deny},
	{"secret-read", `python3 -c 'import os; print(open(os.path.join(os.environ["HOME"], ".netrc")).read())'`, Deny},
	{"secret-read", `perl -e 'print while <>' "$HOME/.config/gh/hosts.yml"`, Deny},
	{"secret-read", `duckdb -c "select * from read_text('~/.aws/credentials')"`, Deny},
	{"secret-read", `git hash-object -w ~/.ssh/id_ed25519`, Deny},
	{"secret-read", `ln -sf "$HOME/.docker/config.json" build/d.json`, Deny},
	{"secret-read", `cd ~/.config/netlify && cat config.json`, Deny},
	{"secret-read", `xxd ~/.config/heroku/credentials | head`, Deny},
	{"secret-read", `jq -r .token ~/.local/share/pnpm/auth.json`, Deny},
	{"secret-read", `security dump-keychain ~/Library/Keychains/login.keychain-db`, Deny},
	{"secret-read", `tail -n 100 ~/.local/share/psql/psql_history`, Deny},
	{"secret-read", `sudo cat /etc/NetworkManager/system-connections/home.nmconnection`, Deny},
	{"secret-read", `ps auxeww | grep node`, Deny},
	{"secret-read", `node -e 'console.log(require("os").homedir())'`, Allow},
	{"secret-read", `python3 -c 'import json; print(json.load(open("package.json"))["name"])'`, Allow},
	{"secret-read", `sqlite3 app.db "select count(*) from users"`, Allow},
	{"secret-read", `git diff --no-index expected.txt actual.txt`, Allow},
	{"secret-read", `ln -s ../shared/auth.json config/auth.json`, Allow},
	{"secret-read", `cat src/auth/credentials.ts`, Allow},
	{"secret-read", `ls ~/.config/gcloud-tools; cat ~/.config/app/settings.json`, Allow},
	{"secret-read", `ps aux | grep node; ps -ef; ps -C node -o pid=`, Allow},
	{"secret-read", `git clone https://x.example/r.git ~/src/r`, Allow},
	{"secret-read", `emacs --batch -l ert -l test/x-test.el -f ert-run-tests-batch-and-exit`, Allow},
}

func TestClasses9Deny(t *testing.T) {
	p := Default()
	for _, tc := range classTests9Deny {
		if d := p.Check(tc.script); d.Verdict != tc.want {
			t.Errorf("%s: %q: %s by %s, want %s", tc.class, tc.script, d.Verdict, d.Rule, tc.want)
		}
	}
}
