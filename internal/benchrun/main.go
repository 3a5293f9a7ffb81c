// Command benchrun measures how long `stockade run` takes to run `true`, round
// by round against `bash -c true` and a few other commands: each round runs
// every command once, in a rotating order, so a busy machine slows all of them
// alike. It prints p50 and p99 of each, and the p50 ratio to the baseline.
// `make bench` runs it.
package main

import (
	"flag"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"time"

	"github.com/stockade/stockade/internal/rounds"
)

func main() {
	bin := flag.String("stockade", "bin/stockade", "the stockade binary")
	nrounds := flag.Int("rounds", 300, "rounds")
	flag.Parse()

	work, err := os.MkdirTemp("", "stockade-benchrun-")
	check(err)
	defer os.RemoveAll(work)

	commands := [][]string{
		{"bash", "-c", "true"},
		{*bin, "version"},
		{*bin, "run", "--", "true"},
		{*bin, "run", "--network=on", "--", "true"},
		{*bin, "run", "--fs=off", "--network=on", "--", "true"},
	}
	names := []string{"bash -c true", "stockade version", "stockade run -- true", "stockade run --network on -- true", "stockade run (no sandbox) -- true"}
	// The workdir and HOME apart: stockade refuses HOME as a writable workdir.
	home, proj := filepath.Join(work, "home"), filepath.Join(work, "proj")
	check(os.Mkdir(home, 0o700))
	check(os.Mkdir(proj, 0o700))
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8"}
	once := func(argv []string) {
		cmd := osexec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = proj, env
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "benchrun: %v: %v\n%s", argv, err, out)
			os.Exit(1)
		}
	}
	fns := make([]func(), len(commands))
	for k, argv := range commands {
		fns[k] = func() { once(argv) }
	}
	series := rounds.Run(*nrounds, 10, fns)
	fmt.Printf("stockade run, %d interleaved rounds (full default sandbox and analysis)\n", *nrounds)
	fmt.Printf("  %-36s %10s %10s %8s\n", "", "p50", "p99", "p50 ×")
	for k, name := range names {
		fmt.Printf("  %-36s %10s %10s %8.2f\n", name, rounds.Pct(series[k], 50).Round(time.Microsecond),
			rounds.Pct(series[k], 99).Round(time.Microsecond), rounds.Ratio(series[k], series[0]))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}
