// Command runner boots each kernel of the matrix under qemu and runs stockade's
// kernel-dependent tests inside it. `make test-kernels` runs it after
// kernels/fetch.sh has put the kernels in the cache; see kernels/README.md.
//
// For every testdata/kernels/NAME.toml it builds an initramfs (the guest init,
// a static stockade, the static test binaries, busybox, bash, the testdata trees
// and a plan of steps), boots the kernel with it, and judges the guest from its
// serial log alone: the guest must print its Landlock ABI as the table expects
// and a "STOCKADE-KERNEL-RESULT pass" sentinel. qemu's exit status says nothing.
//
// Output: one line per kernel, then "N passed, N failed" alone on a line. The exit
// status is 1 when any kernel failed.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Kernel is one testdata/kernels/NAME.toml: which kernel to boot and what the
// guest must observe on it.
type Kernel struct {
	Name string `toml:"-"`
	// Suite is the Debian suite whose linux-image-cloud-amd64 gives the kernel.
	Suite string `toml:"suite"`
	// Series pins an older kernel series still in the suite's index ("6.16").
	Series string `toml:"series"`
	// Cmdline is added to the kernel command line ("lsm=lockdown,yama").
	Cmdline string `toml:"cmdline"`
	// Landlock is what landlock_create_ruleset(VERSION) says: "ok", "ENOSYS"
	// (not built in) or "EOPNOTSUPP" (built in, disabled at boot).
	Landlock string `toml:"landlock"`
	// ABI is the Landlock ABI version the guest must report (0 without Landlock).
	ABI *int `toml:"abi"`
	// Note says why the kernel is in the matrix.
	Note string `toml:"note"`
	// CPU replaces the qemu CPU model (-cpu) for this kernel, to work around
	// an emulation bug the kernel runs into; the table says which.
	CPU string `toml:"cpu"`
	// Doctor is what `stockade doctor --json` must say with the built-in policy.
	Doctor *Doctor `toml:"doctor"`
	// Check lists more commands run in the guest after the test binaries.
	Check []Check `toml:"check"`
}

// Doctor is the expected verdict of `stockade doctor --json` on one kernel.
type Doctor struct {
	// Verdict: "enforced" (exit 0), "best-effort" (1) or "refused" (2).
	Verdict string `toml:"verdict"`
	// Refuses: the protections strict enforcement refuses to run without
	// (required, and less than enforced). Every other protection less than
	// enforced must be one the policy does not require.
	Refuses []string `toml:"refuses"`
	// Protections: the status of each protection in the report.
	Protections map[string]string `toml:"protections"`
	// Full: per filesystem mode, whether the policy would be fully enforced.
	Full map[string]bool `toml:"full"`
	// Stdout: text the JSON must contain (a reason, a note).
	Stdout []string `toml:"stdout"`
}

// Check is one command run in the guest and what it must do.
type Check struct {
	Name    string         `toml:"name"`
	Argv    []string       `toml:"argv"`
	Exit    int            `toml:"exit"`
	Stdout  []string       `toml:"stdout"`
	Stderr  []string       `toml:"stderr"`
	JSON    map[string]any `toml:"json"` // dotted path in stdout's JSON -> value
	Timeout int            `toml:"timeout"`
}

// Plan and Step mirror kernels/init: the guest's instructions.
type Plan struct {
	Kernel string   `json:"kernel"`
	Env    []string `json:"env"`
	Steps  []Step   `json:"steps"`
}

type Step struct {
	Name    string                     `json:"name"`
	Dir     string                     `json:"dir,omitempty"`
	Argv    []string                   `json:"argv"`
	Env     []string                   `json:"env,omitempty"`
	Exit    int                        `json:"exit"`
	Stdout  []string                   `json:"stdout,omitempty"`
	Stderr  []string                   `json:"stderr,omitempty"`
	JSON    map[string]json.RawMessage `json:"json,omitempty"`
	Timeout int                        `json:"timeout"`
	GoTest  bool                       `json:"gotest,omitempty"`
}

type options struct {
	root, cache, qemu string
	only, pkgs, run   *regexp.Regexp
	timeout           time.Duration
	memory, cpu       string
	cpuSet            bool // -cpu given: it wins over a table's cpu
	verbose           bool
	jobs              int // guests booted at once
}

func main() {
	var o options
	var only, pkgs, run string
	flag.StringVar(&o.root, "root", ".", "the stockade module's root")
	flag.StringVar(&o.cache, "cache", "", "kernel cache (default ROOT/.cache/kernels)")
	flag.StringVar(&o.qemu, "qemu", "qemu-system-x86_64", "qemu binary")
	flag.StringVar(&only, "kernel", "", "boot only the kernels whose name matches this regexp")
	flag.StringVar(&pkgs, "pkgs", `/(hostfacts|sandbox|degrade|exec|escape[^/]*|cmd/stockade)$`,
		"run the tests of the packages whose import path matches this regexp")
	flag.StringVar(&run, "run", "", "passed to the test binaries as -test.run")
	flag.DurationVar(&o.timeout, "timeout", 8*time.Minute, "time limit of one guest")
	flag.StringVar(&o.memory, "m", "1024", "guest memory (qemu -m)")
	flag.StringVar(&o.cpu, "cpu", "qemu64", "guest CPU model (qemu -cpu); overrides a table's cpu")
	flag.BoolVar(&o.verbose, "v", false, "print each guest's serial log")
	// A guest under TCG keeps one host CPU busy, so one guest per CPU.
	flag.IntVar(&o.jobs, "j", runtime.NumCPU(), "guests booted at once")
	flag.Parse()
	flag.Visit(func(f *flag.Flag) { o.cpuSet = o.cpuSet || f.Name == "cpu" })
	o.only = regexp.MustCompile(only)
	o.pkgs = regexp.MustCompile(pkgs)
	if run != "" {
		o.run = regexp.MustCompile(run)
	}
	if o.cache == "" {
		o.cache = filepath.Join(o.root, ".cache", "kernels")
	}
	if err := mainErr(o); err != nil {
		fmt.Fprintf(os.Stderr, "test-kernels: error: %v\n", err)
		os.Exit(2)
	}
}

func mainErr(o options) error {
	kernels, err := loadKernels(filepath.Join(o.root, "testdata", "kernels"), o.only)
	if err != nil {
		return err
	}
	start := time.Now()
	base, tests, err := buildGuest(o)
	if err != nil {
		return err
	}
	fmt.Printf("built the guest in %.1fs: %d test binaries\n", time.Since(start).Seconds(), len(tests))
	passed, failed := 0, 0
	for _, r := range bootAll(o, kernels, base, tests) {
		os.Stdout.Write(r.out.Bytes())
		if r.ok {
			passed++
		} else {
			failed++
		}
	}
	fmt.Printf("matrix: %d kernels in %.1fs\n", len(kernels), time.Since(start).Seconds())
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
	return nil
}

func loadKernels(dir string, only *regexp.Regexp) ([]Kernel, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, err
	}
	var ks []Kernel
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".toml")
		if !only.MatchString(name) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		k := Kernel{Name: name}
		dec := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields()
		if err := dec.Decode(&k); err != nil {
			var de *toml.DecodeError
			if errors.As(err, &de) {
				row, col := de.Position()
				return nil, fmt.Errorf("%s:%d:%d: %v", f, row, col, err)
			}
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		switch {
		case k.Suite == "":
			return nil, fmt.Errorf("%s: suite is required", f)
		case k.ABI == nil:
			return nil, fmt.Errorf("%s: abi is required", f)
		case k.Landlock != "ok" && k.Landlock != "ENOSYS" && k.Landlock != "EOPNOTSUPP":
			return nil, fmt.Errorf("%s: landlock must be \"ok\", \"ENOSYS\" or \"EOPNOTSUPP\"", f)
		}
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("no kernel in %s matches %q", dir, only)
	}
	return ks, nil
}

// testBinary is one package's test binary and where it runs in the guest.
type testBinary struct {
	pkg  string // import path relative to the module ("sandbox", "cmd/stockade")
	host string // path of the binary on the host
}

// buildGuest builds the static binaries and the part of the initramfs every
// kernel shares.
func buildGuest(o options) (*archive, []testBinary, error) {
	bin := filepath.Join(o.cache, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, nil, err
	}
	gobuild := func(args ...string) error {
		cmd := exec.Command("go", args...)
		cmd.Dir = o.root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
		}
		return nil
	}
	if err := gobuild("build", "-trimpath", "-o", filepath.Join(bin, "init"), "./kernels/init"); err != nil {
		return nil, nil, err
	}
	if err := gobuild("build", "-trimpath", "-o", filepath.Join(bin, "stockade"), "./cmd/stockade"); err != nil {
		return nil, nil, err
	}
	list := exec.Command("go", "list", "-e", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}", "./...")
	list.Dir = o.root
	list.Stderr = os.Stderr
	out, err := list.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list: %w", err)
	}
	modList := exec.Command("go", "list", "-m")
	modList.Dir = o.root
	mod, err := modList.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list -m: %w", err)
	}
	module := strings.TrimSpace(string(mod))
	var tests []testBinary
	for _, p := range strings.Fields(string(out)) {
		if !o.pkgs.MatchString(p) {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		host := filepath.Join(bin, strings.ReplaceAll(rel, "/", "-")+".test")
		if err := gobuild("test", "-c", "-trimpath", "-o", host, "./"+rel); err != nil {
			return nil, nil, err
		}
		tests = append(tests, testBinary{pkg: rel, host: host})
	}

	a := newArchive()
	a.chardev("/dev/console", 0o600, 5, 1)
	a.chardev("/dev/null", 0o666, 1, 3)
	a.copy("/init", 0o755, filepath.Join(bin, "init"))
	a.copy("/bin/stockade", 0o755, filepath.Join(bin, "stockade"))
	static := filepath.Join(o.cache, "static")
	a.copy("/bin/busybox", 0o755, filepath.Join(static, "busybox"))
	a.copy("/bin/bash", 0o755, filepath.Join(static, "bash"))
	applets, err := exec.Command(filepath.Join(static, "busybox"), "--list").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("busybox --list (did kernels/fetch.sh run?): %w", err)
	}
	for _, ap := range strings.Fields(string(applets)) {
		if ap != "busybox" && ap != "bash" {
			a.symlink("/bin/"+ap, "busybox")
		}
	}
	// Debian's busybox-static has no nohup applet; tests start detached
	// processes with it as agents do. This is all nohup does when its
	// output is not a terminal.
	a.file("/bin/nohup", 0o755, []byte("#!/bin/sh\n# nohup for the kernel-matrix guests (busybox has none)\ntrap '' HUP\nexec \"$@\"\n"))
	a.symlink("/sbin", "bin")
	a.symlink("/usr/bin", "../bin")
	a.symlink("/usr/sbin", "../bin")
	a.file("/etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n"))
	a.file("/etc/group", 0o644, []byte("root:x:0:\nnogroup:x:65534:\n"))
	a.file("/etc/hosts", 0o644, []byte("127.0.0.1 localhost\n::1 localhost\n"))
	a.file("/etc/hostname", 0o644, []byte("stockade-guest\n"))
	a.dir("/root")
	a.dir("/tmp")
	a.dir("/proc")
	a.dir("/sys")
	// Tests run in /src/PKG and find their testdata as they do in the repo.
	for _, t := range tests {
		a.dir("/src/" + t.pkg)
		a.copy("/stockade/tests/"+filepath.Base(t.host), 0o755, t.host)
	}
	err = filepath.WalkDir(o.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(o.root, p)
		if d.IsDir() && (rel == ".git" || rel == ".cache" || rel == filepath.Join("testdata", "kernels")) {
			return filepath.SkipDir
		}
		if d.IsDir() && d.Name() == "testdata" {
			if err := a.copyTree("/src/"+filepath.ToSlash(rel), p); err != nil {
				return err
			}
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return a, tests, nil
}

// planFor turns the test binaries and the kernel's checks into the guest's plan.
func planFor(o options, k Kernel, tests []testBinary) (Plan, error) {
	p := Plan{
		Kernel: k.Name,
		Env: []string{
			"PATH=/bin:/usr/bin:/sbin:/usr/sbin", "HOME=/root", "USER=root", "LOGNAME=root",
			"TMPDIR=/tmp", "TERM=dumb", "LANG=C", "STOCKADE_KERNEL_GUEST=" + k.Name,
			// The guests have no Go toolchain: tests that would build
			// stockade (escape) take this one, built from the same tree.
			"STOCKADE_BINARY=/bin/stockade",
		},
	}
	p.Steps = append(p.Steps, Step{Name: "stockade version", Argv: []string{"stockade", "version"}, Timeout: 30})
	for _, t := range tests {
		argv := []string{"/stockade/tests/" + filepath.Base(t.host), "-test.v", "-test.count=1",
			fmt.Sprintf("-test.timeout=%s", o.timeout-30*time.Second)}
		if o.run != nil {
			argv = append(argv, "-test.run="+o.run.String())
		}
		p.Steps = append(p.Steps, Step{
			Name: "go test ./" + t.pkg, Dir: "/src/" + t.pkg, Argv: argv, GoTest: true,
			Timeout: int(o.timeout.Seconds()),
		})
	}
	if d := k.Doctor; d != nil {
		s, err := doctorStep(k, d)
		if err != nil {
			return p, err
		}
		p.Steps = append(p.Steps, s)
		p.Steps = append(p.Steps, runSteps(d)...)
	}
	for i, c := range k.Check {
		if len(c.Argv) == 0 {
			return p, fmt.Errorf("%s: check %d has no argv", k.Name, i+1)
		}
		s := Step{Name: c.Name, Dir: "/tmp", Argv: c.Argv, Exit: c.Exit, Stdout: c.Stdout, Stderr: c.Stderr, Timeout: c.Timeout}
		if s.Name == "" {
			s.Name = strings.Join(c.Argv, " ")
		}
		for path, v := range c.JSON {
			b, err := json.Marshal(v)
			if err != nil {
				return p, fmt.Errorf("%s: check %q: json %s: %w", k.Name, s.Name, path, err)
			}
			if s.JSON == nil {
				s.JSON = map[string]json.RawMessage{}
			}
			s.JSON[path] = b
		}
		p.Steps = append(p.Steps, s)
	}
	return p, nil
}

// doctorStep turns the [doctor] table into a `stockade doctor --json` step.
func doctorStep(k Kernel, d *Doctor) (Step, error) {
	exits := map[string]int{"enforced": 0, "best-effort": 1, "refused": 2}
	exit, ok := exits[d.Verdict]
	if !ok {
		return Step{}, fmt.Errorf("%s: doctor.verdict %q: want enforced, best-effort or refused", k.Name, d.Verdict)
	}
	if (d.Verdict == "refused") != (len(d.Refuses) > 0) {
		return Step{}, fmt.Errorf("%s: doctor.refuses must list what is refused exactly when the verdict is refused", k.Name)
	}
	want := map[string]any{"verdict": d.Verdict, "host.landlock_abi": *k.ABI}
	refused := map[string]bool{}
	for _, name := range d.Refuses {
		refused[name] = true
		st, ok := d.Protections[name]
		if !ok || st == "enforced" || st == "off" {
			return Step{}, fmt.Errorf("%s: doctor.refuses names %s, which doctor.protections does not say is partial or not enforced", k.Name, name)
		}
	}
	for name, st := range d.Protections {
		key := "report.protections.name=" + name
		want[key+".status"] = st
		switch {
		case refused[name]:
			want[key+".required"] = true
		case st == "partial" || st == "not enforced":
			want[key+".required"] = false
		}
	}
	for mode, full := range d.Full {
		want["modes."+mode+".full"] = full
	}
	s := Step{Name: "stockade doctor --json", Dir: "/tmp", Argv: []string{"stockade", "doctor", "--json"},
		Exit: exit, Stdout: d.Stdout, Timeout: 60, JSON: map[string]json.RawMessage{}}
	for path, v := range want {
		b, err := json.Marshal(v)
		if err != nil {
			return Step{}, err
		}
		s.JSON[path] = b
	}
	return s, nil
}

// runSteps checks `stockade run` against the same [doctor] table: strict runs or
// refuses (exit 125) as doctor says; best-effort runs and its report has the same
// statuses; and what a command then observes matches the report for fs-write and
// deny-read.
func runSteps(d *Doctor) []Step {
	strict := Step{Name: "strict stockade run", Dir: "/tmp", Argv: []string{"stockade", "run", "--", "true"}, Timeout: 60}
	if d.Verdict == "refused" {
		strict.Exit = 125
		strict.Stderr = d.Refuses
	}
	be := Step{Name: "best-effort stockade run --json", Dir: "/tmp", Timeout: 60,
		Argv: []string{"stockade", "run", "--enforce", "best-effort", "--json", "--", "true"},
		JSON: map[string]json.RawMessage{"exit_code": json.RawMessage("0")}}
	// The result carries the enforcement report only when something the
	// policy requires is missing.
	if d.Verdict == "enforced" {
		be.JSON["enforcement"] = json.RawMessage("null")
	} else {
		be.JSON["enforcement.full"] = json.RawMessage("false")
		for name, st := range d.Protections {
			b, _ := json.Marshal(st)
			be.JSON["enforcement.protections.name="+name+".status"] = b
		}
	}
	steps := []Step{strict, be}
	// What a best-effort command observes. bash exits 1 when a redirection or
	// cat is refused.
	if st, ok := d.Protections["fs-write"]; ok && st != "off" {
		s := Step{Name: "best-effort write outside the workdir (fs-write " + st + ")", Dir: "/tmp", Timeout: 60,
			Argv: []string{"stockade", "run", "--enforce", "best-effort", "--workdir", "/tmp", "-c", "echo x > /root/outside"}}
		if st != "not enforced" {
			s.Exit = 1
		}
		steps = append(steps, s)
	}
	if st, ok := d.Protections["deny-read"]; ok && st != "off" {
		s := Step{Name: "best-effort read of ~/.ssh (deny-read " + st + ")", Dir: "/tmp", Timeout: 60,
			Argv: []string{"sh", "-c", "mkdir -p /root/.ssh && echo secret-key > /root/.ssh/id_test && " +
				// The path is computed when the command runs, so that the kernel,
				// not the analysis (which denies reading a deny_read path), decides.
				"exec stockade run --enforce best-effort --workdir /tmp -c 'cat \"$(printf %s /root/.ssh/id_test)\"'"}}
		if st == "not enforced" {
			s.Stdout = []string{"secret-key"}
		} else {
			s.Exit = 1
		}
		steps = append(steps, s)
	}
	return steps
}

// result is what the serial log of one guest says.
type result struct {
	uname, landlock string
	abi             int
	sentinel        string // "pass", "fail", or "" when the guest never finished
	steps           []string
	failedTests     []string // "go test ./exec: TestX"
	panic           string
}

var (
	guestLine    = regexp.MustCompile(`STOCKADE-GUEST uname=(\S+) landlock=(\S+) abi=(-?\d+)`)
	sentinelLine = regexp.MustCompile(`STOCKADE-KERNEL-RESULT (pass|fail) abi=(-?\d+)`)
	stepBegin    = regexp.MustCompile(`STOCKADE-STEP-BEGIN ([^:]*):`)
	stepEnd      = regexp.MustCompile(`STOCKADE-STEP-END .*`)
	testFail     = regexp.MustCompile(`^--- FAIL: (\S+)`)
	panicLine    = regexp.MustCompile(`Kernel panic - .*`)
)

func parseLog(log []byte) result {
	r := result{abi: -1}
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	step := ""
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if m := stepBegin.FindStringSubmatch(line); m != nil {
			step = m[1]
		}
		if m := testFail.FindStringSubmatch(line); m != nil {
			r.failedTests = append(r.failedTests, step+": "+m[1])
		}
		if m := guestLine.FindStringSubmatch(line); m != nil {
			r.uname, r.landlock = m[1], m[2]
			fmt.Sscan(m[3], &r.abi)
		}
		if m := sentinelLine.FindStringSubmatch(line); m != nil {
			r.sentinel = m[1]
		}
		if m := stepEnd.FindString(line); m != "" {
			r.steps = append(r.steps, strings.TrimPrefix(m, "STOCKADE-STEP-END "))
		}
		if m := panicLine.FindString(line); m != "" && r.panic == "" {
			r.panic = m
		}
	}
	return r
}

// booted is one kernel's outcome: its report lines and whether it passed.
type booted struct {
	out bytes.Buffer
	ok  bool
}

// bootAll boots the kernels, o.jobs at a time, and returns their outcomes in
// the table's order, so that the output reads the same however many ran at once.
func bootAll(o options, kernels []Kernel, base *archive, tests []testBinary) []*booted {
	results := make([]*booted, len(kernels))
	slots := make(chan struct{}, max(o.jobs, 1))
	var wg sync.WaitGroup
	for i, k := range kernels {
		results[i] = new(booted)
		wg.Add(1)
		go func(r *booted) {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			r.ok = bootOne(o, k, base, tests, &r.out)
		}(results[i])
	}
	wg.Wait()
	return results
}

// bootOne boots kernel k, writes its line to out, and says whether it passed.
func bootOne(o options, k Kernel, base *archive, tests []testBinary, out io.Writer) bool {
	key := k.Suite
	if k.Series != "" {
		key += "-" + k.Series
	}
	kdir := filepath.Join(o.cache, key)
	var problems []string
	report := func(r result, elapsed time.Duration) bool {
		verdict := "pass"
		if len(problems) > 0 {
			verdict = "FAIL"
		}
		landlock := r.landlock
		if landlock == "" {
			landlock = "?"
		}
		fmt.Fprintf(out, "kernel %-16s %-28s landlock=%-10s abi=%-3d %s %5.1fs\n",
			k.Name, r.uname, landlock, r.abi, verdict, elapsed.Seconds())
		for _, p := range problems {
			fmt.Fprintf(out, "    %s\n", p)
		}
		return len(problems) == 0
	}
	if _, err := os.Stat(filepath.Join(kdir, "vmlinuz")); err != nil {
		problems = append(problems, fmt.Sprintf("no kernel: %v (kernels/fetch.sh fetches it)", err))
		return report(result{abi: -1}, 0)
	}

	plan, err := planFor(o, k, tests)
	if err != nil {
		problems = append(problems, err.Error())
		return report(result{abi: -1}, 0)
	}
	pj, _ := json.MarshalIndent(plan, "", "  ")
	a := newArchive()
	for n, e := range base.entries {
		a.entries[n] = e
	}
	a.file("/stockade/plan.json", 0o644, pj)
	initrd := filepath.Join(o.cache, "initrd-"+k.Name+".cpio")
	f, err := os.Create(initrd)
	if err == nil {
		err = a.writeTo(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		problems = append(problems, fmt.Sprintf("initramfs: %v", err))
		return report(result{abi: -1}, 0)
	}

	logDir := filepath.Join(o.cache, "logs")
	os.MkdirAll(logDir, 0o755)
	logPath := filepath.Join(logDir, k.Name+".log")
	cmdline := strings.TrimSpace("console=ttyS0 panic=-1 quiet " + k.Cmdline)
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	cpu := o.cpu
	if k.CPU != "" && !o.cpuSet {
		cpu = k.CPU
	}
	cmd := exec.CommandContext(ctx, o.qemu,
		"-accel", "tcg", "-cpu", cpu, "-m", o.memory, "-smp", "1",
		"-nodefaults", "-display", "none", "-serial", "stdio", "-monitor", "none", "-no-reboot",
		"-kernel", filepath.Join(kdir, "vmlinuz"), "-initrd", initrd, "-append", cmdline)
	var log bytes.Buffer
	cmd.Stdout = &log
	cmd.Stderr = &log
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start)
	os.WriteFile(logPath, log.Bytes(), 0o644)
	if o.verbose {
		out.Write(log.Bytes())
	}
	os.Remove(initrd)

	r := parseLog(log.Bytes())
	switch {
	case ctx.Err() != nil:
		problems = append(problems, fmt.Sprintf("timed out after %s", o.timeout))
	case runErr != nil && r.sentinel == "":
		problems = append(problems, fmt.Sprintf("qemu: %v", runErr))
	}
	if r.uname == "" {
		problems = append(problems, "the guest init never reported (no STOCKADE-GUEST line)")
	} else {
		if r.landlock != k.Landlock {
			problems = append(problems, fmt.Sprintf("landlock_create_ruleset says %s, the table says %s", r.landlock, k.Landlock))
		}
		if r.abi != *k.ABI {
			problems = append(problems, fmt.Sprintf("Landlock ABI %d, the table says %d", r.abi, *k.ABI))
		}
	}
	for _, s := range r.steps {
		if !strings.HasSuffix(s, " ok") {
			problems = append(problems, "step "+s)
		}
	}
	for _, t := range r.failedTests {
		problems = append(problems, "  --- FAIL "+t)
	}
	switch r.sentinel {
	case "":
		problems = append(problems, "no STOCKADE-KERNEL-RESULT line: the guest did not finish")
	case "fail":
		if len(problems) == 0 {
			problems = append(problems, "the guest says fail")
		}
	}
	if r.panic != "" {
		problems = append(problems, r.panic)
	}
	if len(problems) > 0 {
		problems = append(problems, "serial log: "+logPath)
	}
	return report(r, elapsed)
}
