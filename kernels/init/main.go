//go:build linux

// Command init is PID 1 of the kernel-matrix guests (see kernels/README.md and
// `make test-kernels`). It is built static (CGO_ENABLED=0) and put in an
// initramfs with stockade, its test binaries, busybox and bash.
//
// It mounts /proc, /sys, /dev and /tmp, brings loopback up, reports the kernel and
// its Landlock ABI, runs the steps of /stockade/plan.json one after the other, and
// prints one sentinel line before it powers the machine off:
//
//	STOCKADE-KERNEL-RESULT pass|fail abi=N steps=N failed=N
//
// A guest that never prints that line (panic, hang, crash of init) has failed: the
// host decides from the serial log, never from qemu's exit status.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Plan is what the host asks the guest to run; kernels/runner writes it.
type Plan struct {
	Kernel string   `json:"kernel"` // matrix name, for the log
	Env    []string `json:"env"`    // the environment of every step
	Steps  []Step   `json:"steps"`
}

// Step is one command and what it must do.
type Step struct {
	Name   string   `json:"name"`
	Dir    string   `json:"dir,omitempty"`
	Argv   []string `json:"argv"`
	Env    []string `json:"env,omitempty"` // added to Plan.Env
	Exit   int      `json:"exit"`          // expected exit status
	Stdout []string `json:"stdout,omitempty"`
	Stderr []string `json:"stderr,omitempty"`
	// JSON: dotted paths into stdout decoded as JSON, and the JSON value each must have.
	JSON    map[string]json.RawMessage `json:"json,omitempty"`
	Timeout int                        `json:"timeout"` // seconds; 0 means 300
	GoTest  bool                       `json:"gotest,omitempty"`
}

const planPath = "/stockade/plan.json"

func main() {
	out := os.Stdout // the console the kernel opened for us
	abi := -1
	failed, steps := 0, 0
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(out, "init: panic: %v\n", r)
			failed++
		}
		verdict := "pass"
		if failed > 0 || steps == 0 {
			verdict = "fail"
		}
		fmt.Fprintf(out, "\nSTOCKADE-KERNEL-RESULT %s abi=%d steps=%d failed=%d\n", verdict, abi, steps, failed)
		powerOff()
	}()

	if err := setup(); err != nil {
		fmt.Fprintf(out, "init: setup: %v\n", err)
		failed++
		return
	}
	var why string
	abi, why = landlockABI()
	fmt.Fprintf(out, "STOCKADE-GUEST uname=%s landlock=%s abi=%d lsm=%s\n", release(), why, abi, lsms())

	plan, err := readPlan()
	if err != nil {
		fmt.Fprintf(out, "init: %v\n", err)
		failed++
		return
	}
	for _, s := range plan.Steps {
		steps++
		if !runStep(out, plan.Env, s) {
			failed++
		}
	}
}

// setup mounts what tests expect to find and brings loopback up.
func setup() error {
	mounts := []struct{ src, dst, fstype, data string }{
		{"proc", "/proc", "proc", ""},
		{"sysfs", "/sys", "sysfs", ""},
		{"devtmpfs", "/dev", "devtmpfs", "mode=0755"},
		{"tmpfs", "/tmp", "tmpfs", "mode=1777"},
		{"securityfs", "/sys/kernel/security", "securityfs", ""},
		{"devpts", "/dev/pts", "devpts", "newinstance,ptmxmode=0666"},
		{"cgroup2", "/sys/fs/cgroup", "cgroup2", ""},
	}
	for _, m := range mounts {
		if err := os.MkdirAll(m.dst, 0o755); err != nil {
			return err
		}
		if err := unix.Mount(m.src, m.dst, m.fstype, 0, m.data); err != nil {
			if m.fstype == "securityfs" || m.fstype == "devpts" || m.fstype == "cgroup2" {
				fmt.Printf("init: mount %s: %v\n", m.dst, err) // optional: what needs it says so
				continue
			}
			return fmt.Errorf("mount %s: %w", m.dst, err)
		}
	}
	if err := os.Symlink("/proc/self/fd", "/dev/fd"); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	return unix.Sethostname([]byte("stockade-guest"))
}

// loopbackUp is `ip link set lo up`: SIOCSIFFLAGS with IFF_UP on lo.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// landlockABI asks the kernel for its Landlock ABI version: the number, and a word
// for the log ("ok", "ENOSYS": not built in, "EOPNOTSUPP": built in but disabled).
func landlockABI() (int, string) {
	const createRulesetVersion = 1 << 0 // LANDLOCK_CREATE_RULESET_VERSION
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(nil)), 0, createRulesetVersion)
	switch {
	case errno == 0:
		return int(v), "ok"
	case errno == unix.ENOSYS:
		return 0, "ENOSYS"
	case errno == unix.EOPNOTSUPP:
		return 0, "EOPNOTSUPP"
	default:
		return 0, unix.ErrnoName(errno)
	}
}

func release() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "?"
	}
	return unix.ByteSliceToString(u.Release[:])
}

func lsms() string {
	b, err := os.ReadFile("/sys/kernel/security/lsm")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

func readPlan() (*Plan, error) {
	b, err := os.ReadFile(planPath)
	if err != nil {
		return nil, err
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", planPath, err)
	}
	for _, kv := range p.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			os.Setenv(k, v) // PATH, for exec.LookPath below
		}
	}
	return &p, nil
}

// runStep runs s with its output on the console, and says whether it did what
// the plan expects.
func runStep(console io.Writer, env []string, s Step) bool {
	timeout := time.Duration(s.Timeout) * time.Second
	if timeout == 0 {
		timeout = 300 * time.Second
	}
	fmt.Fprintf(console, "STOCKADE-STEP-BEGIN %s: %s\n", s.Name, strings.Join(s.Argv, " "))
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Argv[0], s.Argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = append(append([]string{}, env...), s.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = io.MultiWriter(console, &stdout)
	cmd.Stderr = io.MultiWriter(console, &stderr)
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		code = -1
	}
	var problems []string
	if ctx.Err() != nil {
		problems = append(problems, fmt.Sprintf("timed out after %s", timeout))
	} else if err != nil && code == -1 {
		problems = append(problems, err.Error())
	}
	if code != s.Exit {
		problems = append(problems, fmt.Sprintf("exit %d, want %d", code, s.Exit))
	}
	for _, want := range s.Stdout {
		if !strings.Contains(stdout.String(), want) {
			problems = append(problems, fmt.Sprintf("stdout lacks %q", want))
		}
	}
	for _, want := range s.Stderr {
		if !strings.Contains(stderr.String(), want) {
			problems = append(problems, fmt.Sprintf("stderr lacks %q", want))
		}
	}
	problems = append(problems, checkJSON(stdout.Bytes(), s.JSON)...)
	summary := ""
	if s.GoTest {
		summary = " " + goTestCounts(stdout.String())
	}
	verdict := "ok"
	if len(problems) > 0 {
		verdict = "FAIL: " + strings.Join(problems, "; ")
	}
	fmt.Fprintf(console, "STOCKADE-STEP-END %s exit=%d %.1fs%s %s\n", s.Name, code, time.Since(start).Seconds(), summary, verdict)
	return len(problems) == 0
}

// checkJSON compares the values at dotted paths of doc with the wanted ones;
// a wanted null also accepts a path that is absent.
func checkJSON(doc []byte, want map[string]json.RawMessage) []string {
	if len(want) == 0 {
		return nil
	}
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		return []string{fmt.Sprintf("stdout is not JSON: %v", err)}
	}
	var problems []string
	for path, w := range want {
		got, ok := lookup(root, path)
		if !ok && string(w) == "null" {
			continue // absent, as wanted
		}
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: missing", path))
			continue
		}
		var wv any
		if err := json.Unmarshal(w, &wv); err != nil {
			problems = append(problems, fmt.Sprintf("%s: bad expectation: %v", path, err))
			continue
		}
		g, _ := json.Marshal(got)
		e, _ := json.Marshal(wv)
		if !bytes.Equal(g, e) {
			problems = append(problems, fmt.Sprintf("%s = %s, want %s", path, g, e))
		}
	}
	return problems
}

// lookup follows a dotted path: "host.landlock_abi", "protections.0.status", or
// "protections.name=fs-write.status" (the element of an array of objects whose
// field name is "fs-write").
func lookup(v any, path string) (any, bool) {
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[key]; !ok {
				return nil, false
			}
		case []any:
			if field, want, ok := strings.Cut(key, "="); ok {
				v = nil
				for _, e := range x {
					if m, ok := e.(map[string]any); ok && fmt.Sprint(m[field]) == want {
						v = e
						break
					}
				}
				if v == nil {
					return nil, false
				}
				continue
			}
			var i int
			if _, err := fmt.Sscan(key, &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// goTestCounts counts the top-level results of a `-test.v` run.
func goTestCounts(out string) string {
	var pass, fail, skip int
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "--- PASS"):
			pass++
		case strings.HasPrefix(line, "--- FAIL"):
			fail++
		case strings.HasPrefix(line, "--- SKIP"):
			skip++
		}
	}
	return fmt.Sprintf("tests=%d/%d/%d(pass/fail/skip)", pass, fail, skip)
}

func powerOff() {
	unix.Sync()
	// Nothing should be running, but a test that leaked a process must not keep
	// the guest alive.
	unix.Kill(-1, unix.SIGKILL)
	time.Sleep(100 * time.Millisecond)
	unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	// If power-off failed, exiting PID 1 panics the kernel; with panic=-1 and
	// qemu -no-reboot that also ends the run.
	os.Exit(1)
}
