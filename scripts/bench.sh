#!/usr/bin/env bash
# make bench: every figure the issues ask for, from one run on this machine.
# Ratios are computed within the run (interleaved where it matters), so a busy
# machine slows both sides alike.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/stockade
[ -x "$bin" ] || make build >/dev/null

if ! command -v hyperfine >/dev/null; then
	echo "installing hyperfine (Debian package)" >&2
	apt-get install -y -qq hyperfine >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== stockade run -- true against bash -c true (hyperfine, one run)"
(cd "$work" && hyperfine -N --warmup 30 --runs 300 --export-json "$work/run.json" \
	'bash -c true' "$OLDPWD/$bin run -- true" >/dev/null 2>&1)
python3 - "$work/run.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
med = lambda x: sorted(x["times"])[len(x["times"]) // 2] * 1e3
base = med(r[0])
for x in r:
    print(f"  {x['command'].split('/')[-1]:<24} median {med(x):6.2f} ms  mean {x['mean']*1e3:6.2f} ms  ×{med(x)/base:5.2f}")
print("  target: stockade run -- true <= 3.0× bash -c true")
PY

echo
echo "== MCP bash round-trips and a 1 GiB stream (real stockade serve, go-sdk client)"
go run ./internal/benchmcp -stockade "$bin" -rounds 300
echo "  targets: sandbox p50 <= 1.0× the direct spawn; >= 500 MB/s with peak RSS < 64 MiB; 64 calls in flight <= 32 MiB; idle zygote PSS <= 2 MiB"

echo
echo "== Go benchmarks"
go test -run '^$' -benchmem -count 1 \
	-bench 'BenchmarkParse|BenchmarkCheck|BenchmarkDefault' ./parse/ ./policy/ | grep -E '^(Benchmark|ok)' || true
echo "  targets: analysis p99 <= 100 µs per everyday command (BenchmarkCheck p99-ns/op); <= 5 ms for a 10 KB script"
go test -run '^$' -benchmem -count 1 -bench 'BenchmarkDetect' ./degrade/ | grep -E '^Benchmark' || true
go test -run '^$' -benchmem -count 1 -bench 'BenchmarkApply|BenchmarkDenyRead' ./sandbox/ | grep -E '^Benchmark' || true
go test -run '^$' -benchmem -count 1 -benchtime 300x -bench 'BenchmarkRunTrue|BenchmarkDirectBash' ./exec/ | grep -E '^Benchmark' || true
