package parse

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// summary renders an invocation compactly for table comparisons:
//
//	name arg... [!name when Dynamic, ?arg when the arg is dynamic]
//	 {via a>b} {piped} {bg} {endless} {fn} {code interp: text} {env K=V} {> target}
func summary(inv Invocation) string {
	var sb strings.Builder
	if inv.Dynamic {
		sb.WriteString("!")
	}
	sb.WriteString(inv.Name)
	for i, a := range inv.Args {
		sb.WriteString(" ")
		if inv.DynamicArgs != nil && inv.DynamicArgs[i] {
			sb.WriteString("?")
		}
		sb.WriteString(a)
	}
	if len(inv.Via) > 0 {
		fmt.Fprintf(&sb, " {via %s}", strings.Join(inv.Via, ">"))
	}
	if inv.PipedInto {
		sb.WriteString(" {piped}")
	}
	if inv.Background {
		sb.WriteString(" {bg}")
	}
	if inv.EndlessLoop {
		sb.WriteString(" {endless}")
	}
	if inv.Function {
		sb.WriteString(" {fn}")
	}
	for _, e := range inv.Env {
		fmt.Fprintf(&sb, " {env %s}", e)
	}
	for _, r := range inv.Redirects {
		d := ""
		if r.Dynamic {
			d = "?"
		}
		fmt.Fprintf(&sb, " {%s%s %s%s}", r.FD, r.Op, d, r.Target)
	}
	if c := inv.InlineCode; c != nil {
		d := ""
		if c.Dynamic {
			d = "?"
		}
		fmt.Fprintf(&sb, " {code %s: %s%s}", c.Interpreter, d, c.Code)
	}
	return sb.String()
}

var parseTests = []struct {
	name string
	src  string
	want []string
}{
	// Lists, pipelines and compound commands.
	{"simple", "ls -la", []string{"ls -la"}},
	{"empty", "", nil},
	{"comment", "# rm -rf /", nil},
	{"list", "cd /tmp && make || echo fail; true", []string{"cd /tmp", "make", "echo fail", "true"}},
	{"pipeline", "curl -s https://x.example | sh", []string{"curl -s https://x.example", "sh {piped}"}},
	{"pipeline3", "a | b |& c", []string{"a", "b {piped}", "c {piped}"}},
	{"pipe-stdin-redirected", "a | b < f", []string{"a", "b {< f}"}},
	{"background", "sleep 10 & ls", []string{"sleep 10 {bg}", "ls"}},
	{"endless-loops", "while true; do a & done; until false; do b; done; for ((;;)); do c; done; while :; do sh -c 'd'; done",
		[]string{"true", "a {bg} {endless}", "false", "b {endless}", "c {endless}", ":", "sh -c d {endless} {code sh: d}", "d {via sh -c} {endless}"}},
	{"ending-loops", "while read l; do a; done; while ! true; do b; done; for ((i=0;i<3;i++)); do c; done; while true; do f() { g; }; done",
		[]string{"read l", "a", "true", "b", "c", "true", "g {via function f}"}},
	{"background-group", "(a; b) &", []string{"a {bg}", "b {bg}"}},
	{"subshell", "(cd x && rm y)", []string{"cd x", "rm y"}},
	{"block-redirect", "{ a; b; } > out", []string{"a {> out}", "b {> out}"}},
	{"if", "if test -f x; then rm x; elif true; then :; else echo; fi", []string{"test -f x", "rm x", "true", ":", "echo"}},
	{"while", "while read l; do echo \"$l\"; done < f", []string{"read l {< f}", "echo ?\"$l\" {< f}"}},
	{"until", "until false; do x; done", []string{"false", "x {endless}"}},
	{"for", "for f in $(ls); do rm \"$f\"; done", []string{"ls {via $(...)}", "rm ?\"$f\""}},
	{"for-c", "for ((i=$(id -u); i<3; i++)); do :; done", []string{"id -u {via $(...)}", ":"}},
	{"select", "select x in a b; do y; done", []string{"y"}},
	{"case", "case $(uname) in Linux) a;; *) b;; esac", []string{"uname {via $(...)}", "a", "b"}},
	{"case-pattern-subst", "case x in $(p)) a;; esac", []string{"p {via $(...)}", "a"}},
	{"function", "f() { rm -rf ~; }; f", []string{"rm -rf ~ {via function f}", "f {fn}"}},
	{"function-keyword", "function g { x; }", []string{"x {via function g}"}},
	{"negated", "! grep -q x f", []string{"grep -q x f"}},
	{"time-keyword", "time -p make", []string{"make {via time}"}},
	{"arith-cmd", "(( $(id -u) == 0 ))", []string{"id -u {via $(...)}"}},
	{"test-clause", `[[ -f $(which x) && "$(y)" == z ]]`, []string{"which x {via $(...)}", "y {via $(...)}"}},
	{"let", "let x=$(a)+1", []string{"a {via $(...)}", "let x=$(a)+1"}},
	{"redirect-only", "> /etc/passwd", []string{" {> /etc/passwd}"}},

	// Substitutions everywhere.
	{"cmdsubst-dq", `echo "user: $(whoami)"`, []string{"whoami {via $(...)}", `echo ?"user: $(whoami)"`}},
	{"backquote", "echo `id`", []string{"id {via `...`}", "echo ?`id`"}},
	{"nested-subst", "echo $(a $(b))", []string{"b {via $(...)>$(...)}", "a ?$(b) {via $(...)}", "echo ?$(a $(b))"}},
	{"procsubst", "diff <(a) >(b)", []string{"a {via <(...)}", "b {via >(...)}", "diff ?<(a) ?>(b)"}},
	{"assign-only", "x=$(rm -rf /)", []string{"rm -rf / {via $(...)}"}},
	{"assign-env", "FOO=bar BAZ=$(q) cmd", []string{"q {via $(...)}", "cmd {env FOO=bar} {env BAZ=$(q)}"}},
	{"redirect-subst", "echo > $(mktemp)", []string{"mktemp {via $(...)}", "echo {> ?$(mktemp)}"}},
	{"arith-subst", "echo $(( $(a) + 1 ))", []string{"a {via $(...)}", "echo ?$(( $(a) + 1 ))"}},
	{"index-subst", "echo ${arr[$(a)]}", []string{"a {via $(...)}", "echo ?${arr[$(a)]}"}},
	{"param-default-subst", "echo ${x:-$(a)}", []string{"a {via $(...)}", "echo ?${x:-$(a)}"}},
	{"heredoc-subst", "cat <<EOF\n$(id)\nEOF", []string{"id {via $(...)}", "cat {<< ?$(id)\n}"}},
	{"heredoc-quoted", "cat <<'EOF'\n$(id)\nEOF", []string{"cat {<< $(id)\n}"}},
	{"declare", "export PATH=/x:$PATH; local -r y=$(a)", []string{"export ?PATH=/x:$PATH", "a {via $(...)}", "local -r ?y=$(a)"}},
	{"indirect", "echo ${!x}", []string{"!${!x} {via ${!...}}", "echo ?${!x}"}},
	{"prompt-expansion", `echo "${x@P}"`, []string{"!${x@P} {via ${...@P}}", `echo ?"${x@P}"`}},

	// Word resolution.
	{"quotes", `r''m "-r"f \/ 'a b'`, []string{"rm -rf / a b"}},
	{"backslash", `\r\m x\ y`, []string{"rm x y"}},
	{"ansi-c", `$'\x72\155' $'a\tb' $'\u0041'`, []string{"rm a\tb A"}},
	{"brace-command", "{rm,-rf,/}", []string{"rm -rf /"}},
	{"brace-args", "rm -rf /{bin,etc}", []string{"rm -rf /bin /etc"}},
	{"brace-seq", "echo {1..3} {a..c}", []string{"echo 1 2 3 a b c"}},
	{"brace-empty", "echo {,} x{,}", []string{"echo x x"}},
	// Words that expand to nothing, with a redirection (found by FuzzParse; once an internal error).
	{"brace-empty-redirect", "{,} >0", []string{" {> 0}"}},
	// A dynamic word whose first brace element is empty: its text is the
	// whole word (found by FuzzParse; once an internal error).
	{"brace-empty-first-dynamic", "{,$0}; echo {,$x} > {,a,b}", []string{"!$0", "echo ?$x {> ?{,a,b}}"}},
	{"brace-not", "echo {a} {a,b \\{x,y} '{p,q}'", []string{"echo {a} {a,b {x,y} {p,q}"}},
	{"tilde", "cd ~; ls ~/x \"~\"", []string{"cd ~", "ls ~/x ~"}},
	{"glob-command", "/bin/r? x", []string{"!/bin/r? x"}},
	{"glob-args", "rm *.o [ab].c x[", []string{"rm ?*.o ?[ab].c x["}},
	{"test-bracket", "[ -f x ]", []string{"[ -f x ]"}},
	{"dynamic-command", "$cmd -rf /", []string{"!$cmd -rf /"}},
	{"dynamic-braced", "${c}m x", []string{"!${c}m x"}},
	{"dynamic-ifs", "rm${IFS}-rf${IFS}/", []string{"!rm${IFS}-rf${IFS}/"}},
	{"dynamic-locale", `$"ls" x`, []string{`!$"ls" x`}},
	{"dynamic-arith", "$((1)) x", []string{"!$((1)) x"}},
	{"empty-dynamic-then-cmd", `$e rm -rf /`, []string{"!$e rm -rf /"}},

	// Wrappers.
	{"sudo", "sudo -u root -E rm -rf /x", []string{"sudo -u root -E rm -rf /x", "rm -rf /x {via sudo}"}},
	{"sudo-env", "sudo FOO=1 make install", []string{"sudo FOO=1 make install", "make install {via sudo} {env FOO=1}"}},
	{"sudo-list", "sudo -l", []string{"sudo -l"}},
	{"sudo-chain", "sudo -u root env -i FOO=1 nice -n 5 rm -rf /tmp/x", []string{
		"sudo -u root env -i FOO=1 nice -n 5 rm -rf /tmp/x",
		"env -i FOO=1 nice -n 5 rm -rf /tmp/x {via sudo}",
		"nice -n 5 rm -rf /tmp/x {via sudo>env} {env FOO=1}",
		"rm -rf /tmp/x {via sudo>env>nice}"}},
	{"sudo-unknown-option", "sudo --frobnicate rm x", []string{"sudo --frobnicate rm x", "!--frobnicate rm x {via sudo}"}},
	{"sudo-dynamic", "sudo $x", []string{"sudo ?$x", "!$x {via sudo}"}},
	{"wrapper-path", "/usr/bin/sudo rm x", []string{"/usr/bin/sudo rm x", "rm x {via sudo}"}},
	{"doas", "doas -u bob rm x", []string{"doas -u bob rm x", "rm x {via doas}"}},
	{"env-options", "env -u HOME -C /tmp -- sh -c 'rm x'", []string{
		"env -u HOME -C /tmp -- sh -c rm x",
		"sh -c rm x {via env} {code sh: rm x}",
		"rm x {via env>sh -c}"}},
	{"env-quoted-dynamic-value", `env -i HOME="$HOME" go test`, []string{`env -i ?HOME="$HOME" go test`, `go test {via env} {env HOME="$HOME"}`}},
	{"env-unquoted-dynamic-value", `env FOO=$x go test`, []string{`env ?FOO=$x go test`, `!FOO=$x go test {via env}`}},
	{"env-split", `env -S 'rm -rf "/tmp/a b"'`, []string{`env -S rm -rf "/tmp/a b"`, "rm -rf /tmp/a b {via env}"}},
	{"env-split-attached", `env -iS"bash -c x"`, []string{`env -iSbash -c x`, "bash -c x {via env} {code bash: x}", "x {via env>bash -c}"}},
	{"env-split-dynamic", `env -S 'a ${X}'`, []string{`env -S a ${X}`, "!a ${X} {via env -S}"}},
	{"command", "command rm x; command -v rm", []string{"command rm x", "rm x {via command}", "command -v rm"}},
	{"builtin-exec", "builtin eval ls; exec -a n rm x", []string{"builtin eval ls", "eval ls {via builtin}", "ls {via builtin>eval}", "exec -a n rm x", "rm x {via exec}"}},
	{"nice-old", "nice -10 rm x", []string{"nice -10 rm x", "rm x {via nice}"}},
	{"nohup-timeout", "nohup timeout -s KILL 5 rm x &", []string{"nohup timeout -s KILL 5 rm x {bg}", "timeout -s KILL 5 rm x {via nohup} {bg}", "rm x {via nohup>timeout} {bg}"}},
	{"time-stdbuf-setsid", "time -p stdbuf -oL setsid -f rm x", []string{"stdbuf -oL setsid -f rm x {via time}", "setsid -f rm x {via time>stdbuf}", "rm x {via time>stdbuf>setsid}"}},
	{"chroot", "chroot --userspec=a:b /mnt rm x", []string{"chroot --userspec=a:b /mnt rm x", "rm x {via chroot}"}},
	{"ionice-chrt-taskset", "ionice -c3 chrt -f 10 taskset -c 0 rm x", []string{
		"ionice -c3 chrt -f 10 taskset -c 0 rm x", "chrt -f 10 taskset -c 0 rm x {via ionice}",
		"taskset -c 0 rm x {via ionice>chrt}", "rm x {via ionice>chrt>taskset}"}},
	{"taskset-pid", "taskset -p 1 2", []string{"taskset -p 1 2"}},
	{"unshare", "unshare -rn --fork sh", []string{"unshare -rn --fork sh", "sh {via unshare}"}},
	{"firejail", "firejail --net=none --private rm x", []string{"firejail --net=none --private rm x", "rm x {via firejail}"}},
	{"xargs", "find . | xargs rm -f", []string{"find .", "xargs rm -f {piped}", "rm -f {via xargs} {piped}"}},
	{"xargs-replace", "xargs -I{} cp {} /tmp", []string{"xargs -I{} cp {} /tmp", "cp ?{} /tmp {via xargs}"}},
	{"xargs-sh", "xargs sh -c", []string{"xargs sh -c", "sh -c {via xargs}", "!-c {via xargs>sh -c}"}},
	{"find-exec", `find / -name x -exec rm -rf {} + -o -execdir sh -c 'a' \;`, []string{
		"find / -name x -exec rm -rf {} + -o -execdir sh -c a ;",
		"rm -rf ?{} {via find -exec}",
		"sh -c a {via find -execdir} {code sh: a}",
		"a {via find -execdir>sh -c}"}},
	{"find-exec-static-root", `find src -name '*.o' -exec rm -f {} +`, []string{"find src -name *.o -exec rm -f {} +", "rm -f src/{} {via find -exec}"}},
	{"find-exec-root-outside", `find ../x -exec rm {} + ; find -L . -exec rm {} + ; find a b -exec rm {} +`, []string{
		"find ../x -exec rm {} +", "rm ?{} {via find -exec}", "find -L . -exec rm {} +", "rm ?{} {via find -exec}", "find a b -exec rm {} +", "rm ?{} {via find -exec}"}},
	{"find-exec-dynamic-command", `find . -exec {} \;`, []string{"find . -exec {} ;", "!{} {via find -exec}"}},
	{"watch", "watch -n 1 'ls; rm x'", []string{"watch -n 1 ls; rm x {code sh: ls; rm x}", "ls {via watch}", "rm x {via watch}"}},
	{"flock", "flock /tmp/l rm x; flock -c 'rm y' /tmp/l", []string{"flock /tmp/l rm x", "rm x {via flock}", "flock -c rm y /tmp/l {code sh: rm y}", "rm y {via flock -c}"}},
	{"ed-stdin", "ed -s README.md <<< '!id'; ed f < cmds", []string{"ed -s README.md {<<< !id} {code ed: !id\n}", "ed f {< cmds} {code ed: ?}"}},
	{"script", "script -qc 'rm x' /dev/null", []string{"script -qc rm x /dev/null {code sh: rm x}", "rm x {via script -c}"}},
	{"script-attached", "script -qfc'rm x'", []string{"script -qfcrm x {code sh: rm x}", "rm x {via script -c}"}},
	{"script-values", "script -T t.log --log-out o.log -ec 'rm x' f; script -Bc f", []string{"script -T t.log --log-out o.log -ec rm x f {code sh: rm x}", "rm x {via script -c}", "script -Bc f"}},
	{"script-c", "script -q -c 'rm x' /dev/null", []string{"script -q -c rm x /dev/null {code sh: rm x}", "rm x {via script -c}"}},
	{"su", "su - root -c 'rm x'", []string{"su - root -c rm x {code sh: rm x}", "rm x {via su -c}"}},
	{"busybox", "busybox rm -rf x", []string{"busybox rm -rf x", "rm -rf x {via busybox}"}},
	{"parallel", "parallel rm {} ::: a b", []string{"parallel rm {} ::: a b {code sh: rm \"${PARALLEL_ARG}\"}", "rm ?\"${PARALLEL_ARG}\" {via parallel}"}},
	{"parallel", "parallel '{}' ::: a b", []string{"parallel {} ::: a b {code sh: \"${PARALLEL_ARG}\"}", "!\"${PARALLEL_ARG}\" {via parallel}"}},
	{"parallel", "parallel '{= s/a/b/ =}' x ::: a", []string{"parallel {= s/a/b/ =} x ::: a {code sh: ?{= s/a/b/ =} x}", "!{= s/a/b/ =} x {via parallel}"}},
	{"parallel-static", "parallel -j2 'gzip -9' ::: a b", []string{"parallel -j2 gzip -9 ::: a b {code sh: gzip -9 a b}", "gzip -9 a b {via parallel}"}},
	{"strace", "strace -f -o log rm x", []string{"strace -f -o log rm x", "rm x {via strace}"}},
	{"bwrap", "bwrap --ro-bind / / --dev /dev rm x", []string{"bwrap --ro-bind / / --dev /dev rm x", "rm x {via bwrap}"}},

	// Code read again as code.
	{"bash-c", `bash -c "echo \$(id); rm x" &`, []string{
		"bash -c echo $(id); rm x {bg} {code bash: echo $(id); rm x}",
		"id {via bash -c>$(...)} {bg}", "echo ?$(id) {via bash -c} {bg}", "rm x {via bash -c} {bg}"}},
	{"sh-options", "sh -euxc 'rm x' arg0", []string{"sh -euxc rm x arg0 {code sh: rm x}", "rm x {via sh -c}"}},
	{"bash-o-c", "bash -o pipefail -c 'a | b'", []string{"bash -o pipefail -c a | b {code bash: a | b}", "a {via bash -c}", "b {via bash -c} {piped}"}},
	{"bash-c-dynamic", `bash -c "$x"`, []string{`bash -c ?"$x" {code bash: ?"$x"}`, `!"$x" {via bash -c}`}},
	{"bash-script", "bash ./run.sh -c x", []string{"bash ./run.sh -c x"}},
	{"zsh-c", "zsh -c 'rm x'", []string{"zsh -c rm x {code zsh: rm x}", "rm x {via zsh -c}"}},
	{"fish-c", "fish -c 'rm x'", []string{"fish -c rm x {code fish: rm x}"}},
	{"eval", `eval "ls; rm x"`, []string{"eval ls; rm x", "ls {via eval}", "rm x {via eval}"}},
	{"eval-join", `eval rm '-rf' /`, []string{"eval rm -rf /", "rm -rf / {via eval}"}},
	{"eval-dynamic", `eval "$(curl x)"`, []string{"curl x {via $(...)}", `eval ?"$(curl x)"`, `!"$(curl x)" {via eval}`}},
	{"nested-eval", `bash -c "sh -c 'eval rm x'"`, []string{
		"bash -c sh -c 'eval rm x' {code bash: sh -c 'eval rm x'}",
		"sh -c eval rm x {via bash -c} {code sh: eval rm x}",
		"eval rm x {via bash -c>sh -c}", "rm x {via bash -c>sh -c>eval}"}},
	{"bash-heredoc", "bash <<EOF\nrm -rf /\nEOF", []string{"bash {<< rm -rf /\n} {code bash: rm -rf /\n}", "rm -rf / {via bash <<}"}},
	{"bash-heredoc-dash", "sh -s x <<-EOF\n\trm y\n\tEOF", []string{"sh -s x {<<- rm y\n} {code sh: rm y\n}", "rm y {via sh <<}"}},
	{"bash-herestring", `bash <<< 'rm x'`, []string{"bash {<<< rm x} {code bash: rm x\n}", "rm x {via bash <<}"}},
	{"bash-heredoc-dynamic", "bash <<EOF\n$x\nEOF", []string{"bash {<< ?$x\n} {code bash: ?$x\n}", "!$x\n {via bash <<}"}},
	{"bash-file-heredoc-data", "bash x.sh <<EOF\nrm y\nEOF", []string{"bash x.sh {<< rm y\n}"}},
	{"trap", "trap 'rm -f $tmp' EXIT", []string{"trap rm -f $tmp EXIT", "rm -f ?$tmp {via trap}"}},
	{"trap-reset", "trap - EXIT; trap -p", []string{"trap - EXIT", "trap -p"}},
	{"mapfile-callback", "mapfile -C 'rm x' -c 1 a < f", []string{"mapfile -C rm x -c 1 a {< f}", "rm x {via mapfile -C}"}},

	// Interpreters.
	{"python-c", "python3 -c 'import os; os.remove(\"x\")'", []string{"python3 -c import os; os.remove(\"x\") {code python3: import os; os.remove(\"x\")}"}},
	{"python-cluster", "python -uc 'print(1)'", []string{"python -uc print(1) {code python: print(1)}"}},
	{"python-script-c", "python x.py -c y", []string{"python x.py -c y"}},
	{"python-m", "python3.12 -m http.server", []string{"python3.12 -m http.server"}},
	{"python-heredoc", "python3 - <<'EOF'\nprint(1)\nEOF", []string{"python3 - {<< print(1)\n} {code python3: print(1)\n}"}},
	{"node-e", "node -e 'process.exit(1)'; node --eval=x", []string{"node -e process.exit(1) {code node: process.exit(1)}", "node --eval=x {code node: x}"}},
	{"perl-e", "perl -ne 'print' f; perl -pi -e 's/a/b/' f", []string{"perl -ne print f {code perl: print}", "perl -pi -e s/a/b/ f {code perl: s/a/b/}"}},
	{"perl-pie", "perl -pie 's/a/b/' f", []string{"perl -pie s/a/b/ f"}},
	{"ruby-php-lua", "ruby -e a; php -r b; lua -e c", []string{"ruby -e a {code ruby: a}", "php -r b {code php: b}", "lua -e c {code lua: c}"}},
	{"awk", `awk -F: '{print $1}' /etc/passwd`, []string{"awk -F: {print $1} /etc/passwd {code awk: {print $1}}"}},
	{"awk-f", `gawk -f prog.awk data`, []string{"gawk -f prog.awk data"}},
	{"sed", "sed -n '1p' f; sed -e 's/a/b/' -e 'e id' f", []string{"sed -n 1p f {code sed: 1p}", "sed -e s/a/b/ -e e id f {code sed: s/a/b/\ne id}"}},
	{"osascript", `osascript -e 'do shell script "id"'`, []string{`osascript -e do shell script "id" {code osascript: do shell script "id"}`}},
	{"pwsh", "pwsh -NoProfile -Command Remove-Item x", []string{"pwsh -NoProfile -Command Remove-Item x {code pwsh: Remove-Item x}"}},
	{"pwsh-encoded", "pwsh -enc ZABpAHIA", []string{"pwsh -enc ZABpAHIA {code pwsh: dir}"}},
	{"python-dynamic", `python -c "$code"`, []string{`python -c ?"$code" {code python: ?"$code"}`}},
	{"vim", "vim -c '!rm x' +q f", []string{"vim -c !rm x +q f {code vim: !rm x\nq}"}},

	// Positions and nesting.
	{"multiline", "a\n  b |\n  c", []string{"a", "b", "c {piped}"}},
	// zsh's =name is the command name found on PATH, so =bash and =env are
	// read as bash and env: their code and the command they wrap are seen.
	{"zsh equals bash", "=bash -c 'rm -rf x'", []string{"=bash -c rm -rf x {code bash: rm -rf x}", "rm -rf x {via bash -c}"}},
	{"zsh equals env", "=env rm -rf x", []string{"=env rm -rf x", "rm -rf x {via env}"}},
	{"an equals sign in an argument", "echo =x", []string{"echo =x"}},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.src, err)
			}
			var got []string
			for _, inv := range s.Invocations {
				got = append(got, summary(inv))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Parse(%q):\n got: %q\nwant: %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestPositions(t *testing.T) {
	tests := []struct {
		src  string
		want []Pos
	}{
		{"ls", []Pos{{1, 1}}},
		{"a; b\n  c | d", []Pos{{1, 1}, {1, 4}, {2, 3}, {2, 7}}},
		{"x=1 y", []Pos{{1, 5}}},
		{"echo $(id)", []Pos{{1, 8}, {1, 1}}},
		{"sudo  rm x", []Pos{{1, 1}, {1, 7}}},
		// Code in strings reports the position of the string.
		{"true\nbash -c 'a; b'", []Pos{{1, 1}, {2, 1}, {2, 9}, {2, 9}}},
		// Columns count bytes, beyond mvdan's 14-bit column limit too.
		{strings.Repeat(" ", 20000) + "ls", []Pos{{1, 20001}}},
	}
	for _, tt := range tests {
		s, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.src, err)
		}
		var got []Pos
		for _, inv := range s.Invocations {
			got = append(got, inv.Pos)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Parse(%.40q) positions = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestAssignments(t *testing.T) {
	s, err := Parse("PATH=/evil:$PATH; export LD_PRELOAD=/x.so; A=1 cmd; declare -a arr=(1 2)")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range s.Assignments {
		got = append(got, fmt.Sprintf("%s=%s dyn=%v %v", a.Name, a.Value, a.Dynamic, a.Pos))
	}
	want := []string{"PATH=/evil:$PATH dyn=true 1:1", "LD_PRELOAD=/x.so dyn=false 1:26", "arr=(1 2) dyn=true 1:64"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("assignments:\n got %q\nwant %q", got, want)
	}
}

var errorTests = []struct {
	name string
	src  string
	pos  Pos
	msg  string // substring of the message
}{
	{"nul", "ls\x00 -la", Pos{1, 3}, "NUL"},
	{"cr", "ls\r\nrm x", Pos{1, 3}, "carriage return"},
	{"control", "ls \x1b[31m", Pos{1, 4}, "control character"},
	{"del", "ls\x7f", Pos{1, 3}, "control character"},
	{"c1", "ls \u0085", Pos{1, 4}, "control character"},
	{"invalid-utf8", "echo \xff", Pos{1, 6}, "invalid UTF-8"},
	{"nbsp", "rm\u00a0-rf /", Pos{1, 3}, "Unicode space"},
	{"nbsp-quoted", "echo 'a\u00a0b'", Pos{1, 8}, "Unicode space"},
	{"ideographic-space", "rm\u3000x", Pos{1, 3}, "Unicode space"},
	{"zero-width", "r\u200bm x", Pos{1, 2}, "invisible"},
	{"bom", "\ufeffls", Pos{1, 1}, "invisible"},
	{"bidi", "echo \u202eabc", Pos{1, 6}, "bidirectional"},
	{"second-line", "ls\necho \u2066x", Pos{2, 6}, "bidirectional"},
	{"extglob", "rm !(keep)", Pos{1, 4}, "extended glob"},
	{"extglob-command", "@(rm) x", Pos{1, 1}, "extended glob"},
	{"extglob-nested", "echo $(ls +(a))", Pos{1, 11}, "extended glob"},
	{"coproc-assignment", "coproc X=1 rm x", Pos{1, 8}, "coproc"},
	{"alias", "alias ls='rm -rf ~'", Pos{1, 7}, "alias"},
	{"alias-wrapped", "builtin alias x='y;z'", Pos{1, 15}, "alias"},
	{"alias-reserved-word", "shopt -s expand_aliases\nalias fi=ls", Pos{2, 7}, "alias"},
	{"shopt-extglob", "shopt -s extglob", Pos{1, 10}, "extglob"},
	{"ansi-c-nul", `$'rm\0' x`, Pos{1, 1}, "NUL"},
	{"ansi-c-hex-nul", `echo $'\x00'`, Pos{1, 6}, "NUL"},
	{"ansi-c-locale", `echo $'\u00e9'`, Pos{1, 6}, "locale"},
	{"ansi-c-control", `echo $'\cA'`, Pos{1, 6}, `\c`},
	{"syntax", "if true; then", Pos{1, 10}, "must be followed by"},
	{"syntax-unclosed", "echo 'abc", Pos{1, 6}, "without closing quote"},
	{"nested-syntax", "ls\nbash -c 'if'", Pos{2, 9}, "in bash -c code"},
	{"nested-control", `bash -c $'ls\r'`, Pos{1, 9}, "carriage return"},
	{"nested-extglob", `sh -c 'rm @(x)'`, Pos{1, 7}, "extended glob"},
	{"nested-alias", `eval 'alias a=~/b'`, Pos{1, 6}, "alias"},
	{"depth", strings.Repeat("eval ", 20) + "ls", Pos{1, 6}, "nested more than 8"},
	{"depth-quoted", "bash -c \"bash -c \\\"bash -c 'eval eval eval eval eval eval ls'\\\"\"", Pos{1, 9}, "nested more than 8"},
	{"brace-bomb", "echo {1..100}{1..100}{1..100}", Pos{1, 6}, "brace expansion"},
	{"brace-letters-backslash", "echo {a..C}", Pos{1, 6}, "brace sequence"},
	{"tempfile-subst", "echo ${ ls; }", Pos{1, 6}, ""},
	{"too-big", strings.Repeat("#", MaxScriptSize+1), Pos{1, 1}, "larger than"},
}

func TestErrors(t *testing.T) {
	for _, tt := range errorTests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.src)
			if err == nil {
				t.Fatalf("Parse(%.60q) = %v, want an error", tt.src, s.Invocations)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%.60q) error is %T, want *Error", tt.src, err)
			}
			if pe.Pos != tt.pos || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("Parse(%.60q) = %v, want %v: ...%s...", tt.src, err, tt.pos, tt.msg)
			}
			if want := fmt.Sprintf("%d:%d: %s", pe.Pos.Line, pe.Pos.Col, pe.Msg); err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

// Unusual characters are fine where they are only data to bash and readers.
func TestAllowedText(t *testing.T) {
	for _, src := range []string{
		"echo 'héllo wörld – ✓'",
		"echo \"tab\there\"",
		"git commit -m 'fix: 日本語'",
		"echo $'\\t\\n\\x41\\101'",
		"echo \\\nfoo",
	} {
		if _, err := Parse(src); err != nil {
			t.Errorf("Parse(%q): %v", src, err)
		}
	}
}
