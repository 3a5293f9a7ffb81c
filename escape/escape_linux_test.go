//go:build linux

package escape

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stockade/stockade/internal/leakcheck"
	"github.com/stockade/stockade/sandbox"
)

const (
	// canaryVar holds a random value in the test process's own environment,
	// and never in a command's: finding it proves a command read this process.
	canaryVar = "ESCAPE_CANARY"
	// runVar marks every process of one run in its environment.
	runVar = "ESCAPE_RUN"
)

var (
	stockade   string // the binary under test
	python     string // a python3 that works with any HOME (not a pyenv shim)
	skipReason string // why this host cannot run the suite
	usr1       atomic.Int64
	dataDir, _ = filepath.Abs("../testdata/escape")
)

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "escape-tool" {
		os.Exit(runTool(os.Args[1:]))
	}
	if runtime.GOOS == "linux" && os.Getenv(canaryVar) == "" {
		// Re-exec with the canary, so that it is in /proc/self/environ (which
		// shows the environment a process started with, not os.Setenv's).
		exe, err := os.Executable()
		if err == nil {
			env := append(os.Environ(), canaryVar+"="+randHex(16))
			err = syscall.Exec(exe, os.Args, env)
		}
		fmt.Fprintln(os.Stderr, "escape: re-exec with a canary:", err)
		os.Exit(1)
	}
	ch := make(chan os.Signal, 16)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for range ch {
			usr1.Add(1)
		}
	}()
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			python = p
			break
		}
	}
	if os.Geteuid() != 0 {
		skipReason = "the escape suite runs as root: it attacks what root without capabilities can still do"
	} else if _, err := exec.LookPath("bash"); err != nil {
		skipReason = "no bash"
	} else if dir, err := buildStockade(); err != nil {
		fmt.Fprintln(os.Stderr, "escape: building stockade:", err)
		os.Exit(1)
	} else {
		stockade = filepath.Join(dir, "stockade")
		if err := setupUser(); err != nil {
			fmt.Fprintln(os.Stderr, "escape: setting up the plain user:", err)
			os.Exit(1)
		}
		// Where strict enforcement of the built-in sandbox is refused (no
		// Landlock, or too old an ABI), every attack would only show exit
		// 125; the kernel matrix checks best-effort on such hosts instead.
		doctor := exec.Command(stockade, "doctor", "--policy", filepath.Join(dataDir, "allow-all.toml"))
		if doctor.Run() != nil && doctor.ProcessState.ExitCode() == 2 {
			skipReason = "strict stockade run refuses the built-in sandbox on this host ('stockade doctor' exits 2)"
		}
	}
	code := leakcheck.Run(m)
	if shared != "" {
		os.RemoveAll(shared)
	}
	os.Exit(code)
}

// buildStockade builds cmd/stockade next to the test binary (or uses the one
// $STOCKADE_BINARY names, whose file must be called stockade): `go test` removes
// that directory afterwards. A test binary run from elsewhere gets a temporary
// directory, which is left behind.
func buildStockade() (string, error) {
	if bin := os.Getenv("STOCKADE_BINARY"); bin != "" {
		return filepath.Dir(bin), nil // a prebuilt one: the kernel matrix's guests have no Go
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(exe)
	if !strings.Contains(dir, "go-build") {
		if dir, err = os.MkdirTemp("", "escape-stockade-"); err != nil {
			return "", err
		}
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "stockade"), "github.com/stockade/stockade/cmd/stockade")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	return dir, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// attack is one script of testdata/escape and what its success looks like.
type attack struct {
	name   string // NAME: testdata/escape/NAME.sh
	script string // the script, when several attacks share one
	// expect: what the unsandboxed run must show for the attack to count as
	// working (a substring of one of its findings).
	expect string
	// vars adds to the command's environment; it may start what the attack
	// needs. It runs once per run, on a fresh env.
	vars func(t *testing.T, e *env) map[string]string
	// check adds findings of its own after the command (attack-specific
	// effects the generic checks do not see).
	check func(t *testing.T, e *env, r *result) []string
	// during runs while the command runs, until stop closes.
	during func(e *env, stop <-chan struct{})
	// policy is the policy file (default allow-all.toml); timeout is --timeout.
	policy  string
	timeout time.Duration
	// ns runs both runs under `unshare` with these namespaces, and after the
	// command the shell text in after, outside the sandbox.
	ns    []string
	after string
	// controlUID runs the unsandboxed run as this uid (with its victim).
	controlUID int
	// limit is how long a run may take before the test stops it (default: a
	// minute); a run that needs stopping is a finding.
	limit time.Duration
	// noControl is why there is no unsandboxed run.
	noControl string
	// before runs before the sandboxed run; it may stop the test.
	before func(t *testing.T)
	// as runs the pair of runs as each of these (see identity_linux_test.go);
	// nil: as root only.
	as []identity
}

// env is the world of one run: a fresh workdir, an outside directory, a fake
// HOME with secrets, listeners, a victim process.
type env struct {
	uid             int // who runs the command (0: root)
	work, out, home string
	run, mark       string
	secrets         map[string]string // name -> contents
	vars            map[string]string
	ln              *listeners
	victim          *exec.Cmd
	before          map[string]fileState
	mu              sync.Mutex
	notes           []string // findings of during
}

func (e *env) note(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}

// homeFiles are made in every fake HOME; those under a deny_read path of the
// built-in policy are secrets.
var homeFiles = []struct {
	path   string
	secret bool
}{
	{".ssh/id_rsa", true},
	{".ssh/authorized_keys", true},
	{".aws/credentials", true},
	{".gnupg/x", true},
	{".config/gh/hosts.yml", true},
	{".netrc", true},
	{".docker/config.json", true},
	{".kube/config", true},
	{".bashrc", false},
}

func newEnv(t *testing.T, a attack, uid int) *env {
	e := &env{uid: uid, work: t.TempDir(), out: t.TempDir(), home: t.TempDir(), run: randHex(8), mark: "escape-" + randHex(6),
		secrets: map[string]string{}, vars: map[string]string{}}
	if uid != 0 {
		// The workdir, outside directory and HOME of another uid are its own,
		// in a directory it may enter.
		base := ownedDir(t, uid)
		e.work, e.out, e.home = filepath.Join(base, "work"), filepath.Join(base, "out"), filepath.Join(base, "home")
		for _, d := range []string{e.work, e.out, e.home} {
			must(t, os.Mkdir(d, 0o755))
		}
	}
	t.Cleanup(func() {
		// A mount that got through must not outlive the test.
		for _, m := range slices.Backward(mountsUnder(e.work)) {
			syscall.Unmount(m, syscall.MNT_DETACH)
		}
	})
	must(t, os.WriteFile(filepath.Join(e.out, "file"), []byte("outside, must not change\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(e.out, "dir"), 0o755))
	must(t, os.WriteFile(filepath.Join(e.out, "dir", "f"), []byte("inside an outside directory\n"), 0o644))
	// A file of another user that nobody may read: root reads it only with
	// CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH.
	e.secrets["$OUT/locked"] = "locked-" + randHex(12)
	locked := filepath.Join(e.out, "locked")
	must(t, os.WriteFile(locked, []byte(e.secrets["$OUT/locked"]), 0o000))
	must(t, os.Chown(locked, 54321, 54321))
	must(t, os.Chmod(locked, 0o000))
	// A root-owned file of mode 000: root reads it only with CAP_DAC_OVERRIDE.
	e.secrets["$OUT/root-locked"] = "root-locked-" + randHex(12)
	must(t, os.WriteFile(filepath.Join(e.out, "root-locked"), []byte(e.secrets["$OUT/root-locked"]), 0o000))
	must(t, os.Chmod(filepath.Join(e.out, "root-locked"), 0o000))
	// A setuid-root copy of cat.
	cat, err := os.ReadFile("/bin/cat")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(e.out, "suid-cat"), cat, 0o755))
	must(t, os.Chmod(filepath.Join(e.out, "suid-cat"), 0o4755))

	for _, f := range homeFiles {
		p := filepath.Join(e.home, f.path)
		must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		content := "ordinary " + f.path + "\n"
		if f.secret {
			content = "SECRET-" + f.path + "-" + randHex(12) + "\n"
			e.secrets["~/"+f.path] = strings.TrimSpace(content)
		}
		must(t, os.WriteFile(p, []byte(content), 0o600))
	}
	e.secrets["the canary in the test's environment"] = os.Getenv(canaryVar)
	if uid != 0 {
		// Everything but the two locked files and the setuid copy belongs to uid.
		filepath.WalkDir(filepath.Dir(e.work), func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != locked && p != filepath.Join(e.out, "root-locked") && p != filepath.Join(e.out, "suid-cat") {
				err = os.Lchown(p, uid, uid)
			}
			return err
		})
	}

	sockDir := t.TempDir()
	e.ln = startListeners(t, sockDir)

	victim := exec.Command("sleep", "1000")
	victim.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: credential(uid)}
	must(t, victim.Start())
	e.victim = victim
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })

	// stockade keeps the project's build cache (a writable root) under
	// XDG_CACHE_HOME: here a directory of its own, which the snapshots do not
	// cover; attacks_buildcache checks what is in it.
	cache := ownedDir(t, uid)
	e.vars = map[string]string{
		"XDG_CACHE_HOME": cache,
		"W":              e.work, "OUT": e.out, "HOME": e.home, "PY": python, "MARK": e.mark,
		"TESTPID": strconv.Itoa(os.Getpid()), "TOOL": tool, "VICTIM": strconv.Itoa(victim.Process.Pid),
		"TCP4": e.ln.port("tcp4"), "TCP6": e.ln.port("tcp6"), "UDP4": e.ln.port("udp4"), "UDP6": e.ln.port("udp6"),
		"DNS": e.ln.port("dns"), "SOCK": e.ln.addr["unix"], "ASOCK": e.ln.addr["abstract"],
	}
	if a.vars != nil {
		for k, v := range a.vars(t, e) {
			e.vars[k] = v
		}
	}
	e.before = snapshot(e.out, e.home)
	return e
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// environ is the command's environment: the test's, without the canary, with
// the env's variables and the run marker.
func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == canaryVar || k == runVar || k == "PWD" || k == "OLDPWD" {
			continue
		}
		if _, ours := e.vars[k]; ours {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range e.vars {
		out = append(out, k+"="+v)
	}
	return append(out, runVar+"="+e.run)
}

// result is how a run ended.
type result struct {
	sandboxed      bool
	state          *os.ProcessState
	stdout, stderr string
	json           *runJSON
	took           time.Duration
	overdue        string // set when the test had to stop the run
}

// runJSON is the part of `stockade run --json` the suite reads.
type runJSON struct {
	Status      string           `json:"status"`
	ExitCode    int              `json:"exit_code"`
	Signal      string           `json:"signal"`
	TimedOut    bool             `json:"timed_out"`
	Leftovers   int              `json:"leftovers_stopped"`
	Error       string           `json:"error"`
	Applied     *sandbox.Applied `json:"applied"`
	Notes       []string         `json:"notes"`
	Enforcement *struct {
		Full bool `json:"full"`
	} `json:"enforcement"`
}

func (r *result) output() string {
	var b strings.Builder
	if r.sandboxed {
		fmt.Fprintf(&b, "stockade: %s after %s\n", waitStatus(r.state), r.took.Round(time.Millisecond))
		if r.json != nil {
			fmt.Fprintf(&b, "command: exit %d, signal %q, timed out %v, leftovers stopped %d, error %q\n",
				r.json.ExitCode, r.json.Signal, r.json.TimedOut, r.json.Leftovers, r.json.Error)
		} else {
			fmt.Fprintf(&b, "stdout (no JSON result):\n%s\n", r.stdout)
		}
		fmt.Fprintf(&b, "output of the command (and of stockade):\n%s", r.stderr)
	} else {
		fmt.Fprintf(&b, "bash: %s after %s\nstdout:\n%sstderr:\n%s", waitStatus(r.state), r.took.Round(time.Millisecond), r.stdout, r.stderr)
	}
	return b.String()
}

// execute runs the attack once, unsandboxed or through stockade.
func execute(t *testing.T, a attack, e *env, script string, sandboxed bool, uid int) *result {
	after := a.after
	if after == "" {
		after = ":"
	}
	var argv []string
	if sandboxed {
		pol := a.policy
		if pol == "" {
			pol = "allow-all.toml"
		}
		argv = []string{stockade, "run", "--json", "--policy", filepath.Join(dataDir, pol)}
		if a.timeout > 0 {
			argv = append(argv, "--timeout", a.timeout.String())
		}
		argv = append(argv, "-c", script)
		if a.ns != nil {
			argv = append([]string{"bash", "-c", `"$@"; s=$?; ` + after + `; exit $s`, "wrapper"}, argv...)
		}
	} else {
		// A stand-in supervisor, so that $PPID is not the test.
		argv = []string{"bash", "-c", `bash -c "$1"; s=$?; ` + after + `; exit $s`, "supervisor", script}
	}
	if a.ns != nil {
		argv = append(append([]string{"unshare"}, a.ns...), argv...)
	}

	limit := a.limit
	if limit == 0 {
		limit = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = e.work
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: credential(uid)}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Files, not pipes: a process left behind holding the output must not keep
	// Wait waiting.
	outF, errF := tempFile(t), tempFile(t)
	cmd.Stdout, cmd.Stderr = outF, errF

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { watchTracer(e, stop) })
	if a.during != nil {
		wg.Go(func() { a.during(e, stop) })
	}
	r := &result{sandboxed: sandboxed}
	start := time.Now()
	err := cmd.Run()
	r.took = time.Since(start)
	close(stop)
	wg.Wait()
	r.state = cmd.ProcessState
	if ctx.Err() != nil {
		r.overdue = fmt.Sprintf("the run did not end within %s and the test had to stop it (%v)", limit, err)
	}
	r.stdout, r.stderr = readAll(outF), readAll(errF)
	if sandboxed {
		var j runJSON
		if json.Unmarshal([]byte(r.stdout), &j) == nil && j.Status != "" {
			r.json = &j
		}
	}
	return r
}

func tempFile(t *testing.T) *os.File {
	f, err := os.CreateTemp(t.TempDir(), "out-")
	must(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func readAll(f *os.File) string {
	f.Seek(0, io.SeekStart)
	b, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	return string(b)
}

// watchTracer notes any tracer of the test process while the command runs.
func watchTracer(e *env, stop <-chan struct{}) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if p := tracer(); p != 0 {
			e.note("the test process was traced by pid %d (%s)", p, cmdline(p))
			return
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// findings is everything that shows the attack got out, seen from outside.
// The pids of processes of the run still alive are returned for clean-up.
func findings(t *testing.T, a attack, e *env, r *result, signalsBefore int64) ([]string, []int) {
	var f []string
	for _, c := range changes(e.before, snapshot(e.out, e.home)) {
		f = append(f, "outside the writable roots: "+c)
	}
	for _, l := range leaked(e.work, e.secrets) {
		f = append(f, "secret leaked: "+l)
	}
	f = append(f, e.ln.hits()...)
	if n := usr1.Load() - signalsBefore; n > 0 {
		f = append(f, fmt.Sprintf("the test process received %d SIGUSR1", n))
	}
	if !alive(e.victim.Process.Pid) {
		f = append(f, fmt.Sprintf("the victim process %d outside the command was killed", e.victim.Process.Pid))
	}
	if ws, ok := r.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() && r.overdue == "" {
		who := "the stand-in supervisor (bash)"
		if r.sandboxed {
			who = "stockade (the supervisor)"
		}
		f = append(f, fmt.Sprintf("%s was %s", who, waitStatus(r.state)))
	}
	if r.overdue != "" {
		f = append(f, r.overdue)
	}
	for _, m := range mountsUnder(e.work) {
		f = append(f, "a file system was mounted on "+m)
	}
	e.mu.Lock()
	f = append(f, e.notes...)
	e.mu.Unlock()
	if a.check != nil {
		f = append(f, a.check(t, e, r)...)
	}

	// Processes of the command still alive once it returned. stockade kills
	// them before it returns; give the kernel a moment to finish them.
	var left []int
	deadline := time.Now().Add(time.Second)
	if !r.sandboxed {
		deadline = time.Now()
	}
	for {
		left = marked(e.run)
		if b, err := os.ReadFile(filepath.Join(e.work, "pid")); err == nil {
			// In root's run the pid is one of the command's PID namespace:
			// here it may name a process older than the run (pid 4 is a
			// kernel thread), which is not one of the run's.
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && alive(pid) && !slices.Contains(left, pid) &&
				startTime(pid) >= startTime(e.victim.Process.Pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i, pid := range left {
		if i == 5 {
			f = append(f, fmt.Sprintf("... %d more processes outlived the command", len(left)-i))
			break
		}
		f = append(f, fmt.Sprintf("process %d (%s) outlived the command", pid, cmdline(pid)))
	}
	return f, left
}

// runAttack runs a without the sandbox (it must work) and with it (it must
// not), as each identity of a.as.
func runAttack(t *testing.T, a attack) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if a.as == nil {
		runPair(t, a, asRoot)
		return
	}
	for _, id := range a.as {
		t.Run(id.name, func(t *testing.T) {
			requireStrict(t, id.uid())
			runPair(t, a, id)
		})
	}
}

// runPair is one identity's pair of runs of a.
func runPair(t *testing.T, a attack, id identity) {
	script := a.script
	if script == "" {
		b, err := os.ReadFile(filepath.Join(dataDir, a.name+".sh"))
		must(t, err)
		script = string(b)
	}
	if python == "" && strings.Contains(script, "$PY") {
		t.Skip("no python3 in /usr/bin, /usr/local/bin or /bin")
	}
	for _, ns := range a.ns {
		if ns == "--net" || ns == "--uts" {
			if _, err := exec.LookPath("unshare"); err != nil {
				t.Skip("no unshare")
			}
		}
	}

	if a.noControl != "" {
		t.Logf("no unsandboxed run: %s", a.noControl)
	} else {
		t.Run("unsandboxed", func(t *testing.T) {
			uid := id.uid()
			if a.controlUID != 0 {
				uid = a.controlUID
			}
			e := newEnv(t, a, uid)
			before := usr1.Load()
			r := execute(t, a, e, script, false, uid)
			time.Sleep(50 * time.Millisecond) // let a signal arrive
			f, left := findings(t, a, e, r, before)
			cleanupRun(e, left)
			if !slices.ContainsFunc(f, func(s string) bool { return strings.Contains(s, a.expect) }) {
				t.Errorf("the attack is broken: without the sandbox it should succeed (%q), but it did not\nfindings: %q\n%s", a.expect, f, r.output())
				return
			}
			t.Logf("without the sandbox, the attack works: %s", strings.Join(f, "; "))
		})
	}

	t.Run("sandboxed", func(t *testing.T) {
		if a.before != nil {
			a.before(t)
		}
		e := newEnv(t, a, id.uid())
		before := usr1.Load()
		r := execute(t, a, e, script, true, id.uid())
		time.Sleep(50 * time.Millisecond)
		f, left := findings(t, a, e, r, before)
		cleanupRun(e, left)
		if len(f) > 0 {
			t.Errorf("ESCAPE: the attack got out of the sandbox:\n  - %s\n%s", strings.Join(f, "\n  - "), r.output())
			return
		}
		// Nothing got out; make sure it is because the sandbox stopped it, not
		// because the command never ran.
		switch {
		case r.json == nil:
			t.Fatalf("inconclusive: no JSON result from stockade run\n%s", r.output())
		case r.json.Error != "":
			t.Fatalf("inconclusive: stockade did not run the command: %s\n%s", r.json.Error, r.output())
		case r.json.Applied == nil || r.json.Applied.LandlockABI == 0 || !r.json.Applied.Seccomp || !r.json.Applied.NoNewPrivs || (id.uid() == 0 && !r.json.Applied.CapsDropped):
			t.Fatalf("inconclusive: the sandbox was not fully applied: %+v\n%s", r.json.Applied, r.output())
		case r.json.Enforcement != nil && !r.json.Enforcement.Full: // present only when something is missing
			t.Fatalf("inconclusive: best-effort enforcement\n%s", r.output())
		}
		t.Logf("stopped (%s, command exit %d)", r.took.Round(time.Millisecond), r.json.ExitCode)
		if testing.Verbose() {
			t.Logf("%s", lastLines(r.stderr, 12))
		}
	})
}

// cleanupRun stops what a run left behind.
func cleanupRun(e *env, left []int) {
	for _, pid := range left {
		kill(pid)
	}
	for _, pid := range named(e.mark) {
		kill(pid)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// fileHas returns the trimmed contents of the workdir file name.
func fileHas(e *env, name string) string {
	b, _ := os.ReadFile(filepath.Join(e.work, name))
	return string(bytes.TrimSpace(b))
}

// startTime is when pid started, in clock ticks after boot (0: unknown).
func startTime(pid int) uint64 {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64) // field 22: starttime
	return n
}
