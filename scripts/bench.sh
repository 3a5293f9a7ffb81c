#!/usr/bin/env bash
# make bench: every figure the issues ask for, from one run on this machine.
# Ratios are computed within the run (interleaved where it matters), so a busy
# machine slows both sides alike.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/stockade
[ -x "$bin" ] || make build >/dev/null

echo "== stockade run -- true against bash -c true (interleaved rounds)"
go run ./internal/benchrun -stockade "$PWD/$bin" -rounds 300
echo "  target: stockade run -- true <= 2.0× bash -c true (p50)"

echo
echo "== MCP bash round-trips and a 1 GiB stream (real stockade serve, go-sdk client)"
go run ./internal/benchmcp -stockade "$bin" -rounds 300
echo "  targets: sandbox p50 <= 1.0× the direct spawn; >= 500 MB/s with peak RSS < 64 MiB; 64 calls in flight <= 32 MiB; idle zygote PSS <= 2 MiB"

echo
echo "== Go benchmarks"
go test -run '^$' -benchmem -count 1 \
	-bench 'BenchmarkParse|BenchmarkCheck|BenchmarkDefault' ./parse/ ./policy/ | grep -E '^(Benchmark|ok)' || true
echo "  targets: analysis p99 <= 100 µs per everyday command (BenchmarkCheck p99-µs/cmd; floor-p99-µs is the machine's own tail, a fixed 12 µs of arithmetic timed between the commands; cost-p99-µs is the p99 of each command's fastest pass, the analysis's own tail); <= 5 ms for a 10 KB script"

echo
echo "== The built-in policy on the corpora (testdata/corpus)"
go test -count 1 -run 'TestCorpus' -v ./policy/ | grep -E 'dangerous: |everyday: |heldout-[0-9]+\.txtar: ' | sed 's/^ *corpus_test.go:[0-9]*: /  /' || true
echo "  targets: every script of the own dangerous corpus caught, <= 2% everyday blocked; held-out >= 97% dangerous denied or asked, >= 90% deny rows denied, <= 2% allow rows blocked"
echo
echo "== The analysis budget: the costliest accepted commands (128 KiB each), judged or refused"
go test -run '^$' -benchmem -count 1 -benchtime 5x -bench 'BenchmarkAnalysisBudget' ./policy/ | grep -E '^Benchmark' || true
echo "  target: every one within 100 ms and 64 MiB (TestAnalysisBudget asserts the memory)"
go test -run '^$' -benchmem -count 1 -bench 'BenchmarkDetect' ./hostfacts/ | grep -E '^Benchmark' || true
go test -run '^$' -benchmem -count 1 -bench 'BenchmarkApply|BenchmarkDenyRead' ./sandbox/ | grep -E '^Benchmark' || true
go test -run '^$' -benchmem -count 1 -benchtime 300x -bench 'BenchmarkRunTrue|BenchmarkDirectBash' ./supervise/ | grep -E '^Benchmark' || true
go test -run '^$' -benchmem -count 1 -bench 'BenchmarkSnapshotProtected|BenchmarkOpenInstance' ./supervise/ | grep -E '^Benchmark' || true
echo "  measured: per command, watching a fresh repository's protected files; per stockade process, its state directory"

echo
echo "== network: the egress proxy on loopback, and what a session's network namespace costs"
go test -run '^$' -count 1 -benchtime 8x -bench 'BenchmarkThroughput' ./netproxy/ 2>/dev/null | grep -E '^Benchmark' || true
go test -run '^$' -count 1 -benchtime 500x -bench 'BenchmarkAddedLatency' ./netproxy/ 2>/dev/null | grep -E '^Benchmark' || true
echo "  targets: one stream through the proxy >= 1 GB/s; added latency (connect + one round trip) p50 <= 1 ms"
go test -run '^$' -count 1 -benchtime 200x -bench 'BenchmarkNewNetNS' ./sandbox/ | grep -E '^Benchmark' || true
echo "  the namespace's cost on stockade run -- true: compare 'stockade run -- true' with 'stockade run --network on -- true' in the first table;"
echo "  an MCP call pays nothing per call: the namespace is made once, when the session's sandbox starts"
echo "== network: the connect supervisor (allowlist without a network namespace)"
go test -run '^$' -count 1 -benchtime 20x -bench 'BenchmarkSupervisedConnect' ./sandbox/ | grep -E '^Benchmark' || true
echo "  what one connect of the command costs: made straight, and made by stockade on its behalf"
go test -run '^$' -count 1 -benchtime 100x -bench 'BenchmarkStartTrue' ./sandbox/ | grep -E '^Benchmark' || true
echo "  what the supervisor adds to starting a command (stockade run's Start of /bin/true): network off; System V IPC supervised (every run without an IPC namespace); connects supervised too"
echo "== System V IPC through the supervisor (no IPC namespace)"
go test -run '^$' -count 1 -benchtime 10x -bench 'BenchmarkSupervisedSemop' ./sandbox/ | grep -E '^Benchmark' || true
echo "  what one System V call costs: in an IPC namespace of the command's own, and through the supervisor"
