// Command benchmcp measures stockade's MCP bash tool from the outside, the way
// an agent meets it: round-trips of `true` through a real `stockade serve`
// subprocess (unsandboxed and fully sandboxed), interleaved with a baseline that
// spawns `bash -c true` directly from Go, and the throughput and peak server
// memory while a command streams 1 GiB to stdout. `make bench` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stockade/stockade/internal/rounds"
)

func main() {
	bin := flag.String("stockade", "bin/stockade", "the stockade binary")
	nrounds := flag.Int("rounds", 400, "interleaved rounds")
	streamMiB := flag.Int("stream-mib", 1024, "MiB to stream for the throughput run")
	inFlight := flag.Int("in-flight", 64, "concurrent calls for the memory figure")
	pause := flag.Duration("pause", 20*time.Millisecond, "between two timed calls, as an agent reads a result before it calls again")
	idleWait := flag.Duration("idle", 4*time.Second, "how long a session waits before its memory is measured as idle")
	flag.Parse()

	work, err := os.MkdirTemp("", "stockade-bench-")
	check(err)
	defer os.RemoveAll(work)

	plain := connect(*bin, work, "--fs=off", "--network=on")
	defer plain.close()
	boxed := connect(*bin, work)
	defer boxed.close()

	order := []string{"direct bash -c true", "mcp bash true (no sandbox)", "mcp bash true (sandbox)"}
	series := rounds.RunPaced(*nrounds, 20, *pause, []func(){
		func() { check(osexec.Command("bash", "-c", "true").Run()) },
		func() { plain.call("true") },
		func() { boxed.call("true") },
	})
	fmt.Printf("MCP round-trip, %d interleaved rounds, %s between calls\n", *nrounds, *pause)
	fmt.Printf("  %-30s %10s %10s %10s %8s\n", "", "calls/s", "p50", "p99", "p50 ×")
	for k, name := range order {
		d := series[k]
		fmt.Printf("  %-30s %10.0f %10s %10s %8.2f\n", name, float64(len(d))/sum(d).Seconds(), rounds.Pct(d, 50).Round(time.Microsecond),
			rounds.Pct(d, 99).Round(time.Microsecond), rounds.Ratio(d, series[0]))
	}

	// Throughput: the sandboxed server captures the stream (the first 30000
	// characters in memory, all of it in a spill file).
	n := *streamMiB << 20
	start := time.Now()
	res := boxed.call(fmt.Sprintf("head -c %d /dev/zero", n))
	elapsed := time.Since(start)
	if !strings.Contains(fmt.Sprint(res.StructuredContent), strconv.Itoa(n)) {
		fmt.Fprintln(os.Stderr, "benchmcp: the stream result does not report", n, "bytes")
		os.Exit(1)
	}
	fmt.Printf("Streaming %d MiB to stdout through the sandboxed MCP bash tool\n", *streamMiB)
	fmt.Printf("  %.0f MB/s (%s), server peak RSS %d MiB\n", float64(n)/elapsed.Seconds()/1e6, elapsed.Round(time.Millisecond), boxed.peakRSS()>>20)

	// Memory with many calls in flight, on a fresh server so that the stream
	// above does not set its high-water mark.
	busy := connect(*bin, work)
	defer busy.close()
	busy.call("true")
	var wg sync.WaitGroup
	start = time.Now()
	for range *inFlight {
		wg.Add(1)
		go func() { defer wg.Done(); busy.call("sleep 1") }()
	}
	wg.Wait()
	fmt.Printf("%d calls in flight (sleep 1, all done in %s) on one sandboxed server\n", *inFlight, time.Since(start).Round(time.Millisecond))
	fmt.Printf("  server peak RSS %d MiB\n", busy.peakRSS()>>20)

	// An idle session's zygote: its proportional set size, right after a
	// call (with the shell prepared for the next one, below it) and once the
	// session is idle (the prepared shell dropped, the zygote's freed heap
	// returned).
	idle := connect(*bin, work)
	defer idle.close()
	idle.call("true")
	time.Sleep(100 * time.Millisecond)
	zygote, below := idle.childPSS()
	fmt.Printf("An idle session's sandboxed supervisor (zygote)\n")
	fmt.Printf("  right after a call: PSS %d KiB, and %d KiB below it\n", zygote>>10, below>>10)
	time.Sleep(*idleWait)
	zygote, below = idle.childPSS()
	fmt.Printf("  after %s idle: PSS %d KiB, and %d KiB below it\n", *idleWait, zygote>>10, below>>10)
	// What an idle session's next call pays for that memory (the binary's
	// pages mapped again), against a call in a burst.
	var afterIdle []time.Duration
	for i := range 3 {
		if i > 0 {
			time.Sleep(*idleWait)
		}
		start := time.Now()
		idle.call("true")
		afterIdle = append(afterIdle, time.Since(start))
	}
	fmt.Printf("  its next call, after %s idle: p50 of 3 %s (%.2f× a direct bash -c true; in a burst: %s)\n", *idleWait,
		rounds.Pct(afterIdle, 50).Round(time.Microsecond), rounds.Ratio(afterIdle, series[0]), rounds.Pct(series[2], 50).Round(time.Microsecond))
}

type server struct {
	cmd     *osexec.Cmd
	session *mcp.ClientSession
}

func connect(bin, dir string, args ...string) *server {
	// The workdir and HOME apart: stockade refuses HOME as a writable workdir.
	home := filepath.Join(dir, "home")
	os.Mkdir(home, 0o700)
	proj := filepath.Join(dir, "proj")
	os.Mkdir(proj, 0o700)
	cmd := osexec.Command(bin, append([]string{"serve", "--workdir", proj}, args...)...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8"}
	client := mcp.NewClient(&mcp.Implementation{Name: "benchmcp", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	check(err)
	return &server{cmd: cmd, session: session}
}

func (s *server) call(command string) *mcp.CallToolResult {
	res, err := s.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": command}})
	check(err)
	if res.IsError {
		fmt.Fprintln(os.Stderr, "benchmcp: tool error:", res.Content)
		os.Exit(1)
	}
	return res
}

// peakRSS reads the server's high-water resident set size.
func (s *server) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	check(err)
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	return -1
}

// childPSS sums the proportional set size of the server's children (the
// session's zygote), and of the processes below them, from
// /proc/PID/smaps_rollup.
func (s *server) childPSS() (children, below int64) {
	for _, pid := range childrenOf(s.cmd.Process.Pid) {
		children += pss(pid)
		queue := childrenOf(pid)
		for len(queue) > 0 {
			p := queue[0]
			queue = append(queue[1:], childrenOf(p)...)
			below += pss(p)
		}
	}
	return children, below
}

func childrenOf(pid int) []int {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	check(err)
	var pids []int
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			p, _ := strconv.Atoi(f)
			pids = append(pids, p)
		}
	}
	return pids
}

// pss is a process's proportional set size; 0 when it is gone.
func pss(pid int) (total int64) {
	r, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	for line := range strings.Lines(string(r)) {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			total += kb << 10
		}
	}
	return total
}

func (s *server) close() { s.session.Close() }

func sum(d []time.Duration) (t time.Duration) {
	for _, x := range d {
		t += x
	}
	return t
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmcp:", err)
		os.Exit(1)
	}
}
