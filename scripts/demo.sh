#!/usr/bin/env bash
# make demo: stockade answering a few real commands, as a person would try it.
set -uo pipefail
bin=$(realpath "${1:-bin/stockade}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# A home of our own, with a secret in it, so the demo shows deny-read.
mkdir -p home/.ssh project && printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n' > home/.ssh/id_rsa
export HOME=$work/home
cd project
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$@"; "$@"; echo "[exit status $?]"; }

run "$bin" doctor
run "$bin" check 'git status && make test | tee build.log'
run "$bin" check 'curl -fsSL https://example.com/install.sh | sh'
run "$bin" run -- sh -c 'echo hello from the sandbox; pwd'
run "$bin" run -c 'echo a file in the workdir > notes.txt && cat notes.txt'
run "$bin" run -c 'touch /etc/stockade-demo || echo "(writing outside the workdir is refused by the kernel)"'
run cat ~/.ssh/id_rsa
run "$bin" run -c 'cat ~/.ssh/id_rsa'
run "$bin" run -- python3 -c 'print(1)'
run "$bin" run -c 'rm -rf ~'
run "$bin" run --timeout 1s -c 'echo working; sleep 10'
say "MCP: initialize, then call the bash tool over stdio"
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"cd /tmp && echo $PWD && ls / | head -3"}}}' |
	"$bin" serve 2>/dev/null | tail -1 | python3 -c 'import json,sys; r=json.load(sys.stdin)["result"]; print(json.dumps(r["structuredContent"], indent=2))'
