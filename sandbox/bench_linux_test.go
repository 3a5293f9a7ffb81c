//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkDenyRead measures building the Landlock ruleset (opening every path
// and adding its rule; enforcing it is a single system call) for the default
// read-only sandbox with one denied directory among n siblings.
func BenchmarkDenyRead(b *testing.B) {
	requireABI(b, 1)
	for _, n := range []int{0, 10, 1000, 10000} {
		b.Run(fmt.Sprintf("siblings=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			for i := range n {
				if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			os.Mkdir(filepath.Join(dir, "secret"), 0o700)
			spec := strictSpec(b.TempDir(), b.TempDir())
			if n > 0 {
				spec.DenyRead = []string{filepath.Join(dir, "secret")}
			}
			p, err := landlockPlan(spec)
			if err != nil {
				b.Fatal(err)
			}
			rules := 0
			b.ResetTimer()
			for b.Loop() {
				rs, err := newRuleset(spec, p)
				if err != nil {
					b.Fatal(err)
				}
				rules = rs.rules
				rs.close()
			}
			b.ReportMetric(float64(rules), "rules")
		})
	}
}

// TestApplyTime applies the default sandbox in a fresh process and reports how
// long Apply took there; BenchmarkApply runs it many times.
func TestApplyTime(t *testing.T) {
	requireABI(t, 1)
	if inChild() {
		start := time.Now()
		applyFromEnv(t)
		fmt.Printf("APPLY_NS=%d\n", time.Since(start).Nanoseconds())
		return
	}
	home := denyVars(t)
	spec := denySpec("proj")(home)
	out, err := runChild(t, "sandboxed", spec, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("Apply took %v", applyTime(out))
}

func applyTime(out string) time.Duration {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "APPLY_NS="); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return time.Duration(n)
		}
	}
	return 0
}

// BenchmarkApply measures Apply of the default sandbox (workspace-write,
// network and unix sockets off, seccomp, scopes, capability drop as root, five
// deny-read paths) inside fresh processes: apply-ns is Apply alone, ns/op
// includes starting the process.
func BenchmarkApply(b *testing.B) {
	requireABI(b, 1)
	home := b.TempDir()
	for _, d := range []string{".ssh", ".aws", "proj"} {
		os.Mkdir(filepath.Join(home, d), 0o700)
	}
	spec := denySpec("proj")(map[string]string{"home": home, "tmp": b.TempDir()})
	var total time.Duration
	for b.Loop() {
		out, err := runChildNamed(b, "TestApplyTime", "sandboxed", spec, nil)
		if err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		total += applyTime(out)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "apply-ns")
}

// BenchmarkReadOnlyMounts measures the read-only mounts step of Apply alone
// (as root): each iteration, on a fresh thread that exits afterwards (taking
// its mount namespace with it), unshare, make private, clone the workdir and
// tmpdir, make read-only, move the clones back.
func BenchmarkReadOnlyMounts(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	roots, _, err := readOnlyMountsRoots(strictSpec(b.TempDir(), b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		done := make(chan error)
		go func() {
			// Never unlocked: the thread ends with the goroutine.
			runtime.LockOSThread()
			done <- readOnlyMounts(roots)
		}()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}
