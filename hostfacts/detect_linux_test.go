//go:build linux

package hostfacts

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestDetectThisHost checks Detect against independent sources: go-landlock's own
// system call wrappers, /proc and the effective uid. On the development machine
// (Linux 6.18, root) that is ABI 7, seccomp and root; set
// STOCKADE_EXPECT_LANDLOCK_ABI to pin the ABI on a known machine.
func TestDetectThisHost(t *testing.T) {
	h := Detect()
	if h != detect() {
		t.Errorf("Detect() and a fresh detect() differ:\n%+v\n%+v", h, detect())
	}
	if h.OS != "linux" || h.Arch == "" {
		t.Errorf("os/arch = %q/%q", h.OS, h.Arch)
	}
	rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	if got, want := h.Kernel, strings.TrimSpace(string(rel)); got != want {
		t.Errorf("kernel = %q, /proc says %q", got, want)
	}

	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		abi = 0
	}
	if h.LandlockABI != abi {
		t.Errorf("landlock abi = %d, go-landlock says %d", h.LandlockABI, abi)
	}
	if (h.LandlockABI == 0) != (h.LandlockReason != "") {
		t.Errorf("abi %d with reason %q: want a reason exactly when there is no landlock", h.LandlockABI, h.LandlockReason)
	}
	if want := os.Getenv("STOCKADE_EXPECT_LANDLOCK_ABI"); want != "" && strconv.Itoa(h.LandlockABI) != want {
		t.Errorf("landlock abi = %d, STOCKADE_EXPECT_LANDLOCK_ABI = %s", h.LandlockABI, want)
	}
	if errata, err := llsys.LandlockGetErrata(); err == nil && h.LandlockABI > 0 {
		if !h.LandlockErrataKnown || h.LandlockErrata != uint64(errata) {
			t.Errorf("errata = %#x (known %v), go-landlock says %#x", h.LandlockErrata, h.LandlockErrataKnown, errata)
		}
	}
	if !kernelBefore(h.Kernel, 6, 15) && h.LandlockABI > 0 && h.LandlockABI < 7 {
		t.Errorf("kernel %s with landlock abi %d: want 7 or more", h.Kernel, h.LandlockABI)
	}

	status, _ := os.ReadFile("/proc/self/status")
	if strings.Contains(string(status), "\nSeccomp:") != (h.SeccompMode >= 0) {
		t.Errorf("seccomp mode %d, but /proc/self/status:\n%s", h.SeccompMode, status)
	}
	if h.SeccompMode == 0 && !h.Seccomp && !kernelBefore(h.Kernel, 4, 14) {
		t.Errorf("seccomp not available on %s without a filter: %s", h.Kernel, h.SeccompReason)
	}
	if h.Root != (os.Geteuid() == 0) {
		t.Errorf("root = %v, euid %d", h.Root, os.Geteuid())
	}
	if nnp := strings.Contains(string(status), "NoNewPrivs:\t1"); h.NoNewPrivs != nnp {
		t.Errorf("no_new_privs = %v, /proc says %v", h.NoNewPrivs, nnp)
	}
	if (h.PidsCgroup == "") == (h.PidsReason == "") {
		t.Errorf("pids cgroup %q with reason %q: want exactly one", h.PidsCgroup, h.PidsReason)
	}
	if h.PidsCgroup != "" && unix.Access(h.PidsCgroup, unix.W_OK) != nil {
		t.Errorf("pids cgroup %s is not writable", h.PidsCgroup)
	}
	t.Logf("%s; pids cgroup %q %s", h, h.PidsCgroup, h.PidsReason)
}

func BenchmarkDetect(b *testing.B) {
	for b.Loop() {
		detect()
	}
}

// TestDetectUnderSeccompFilter runs detection in a copy of the test binary whose
// landlock_create_ruleset calls a seccomp filter answers with an errno, as a
// container runtime's profile does, and checks the reason names the filter.
func TestDetectUnderSeccompFilter(t *testing.T) {
	if errno := os.Getenv("STOCKADE_HOSTFACTS_BLOCK_LANDLOCK"); errno != "" {
		n, _ := strconv.Atoi(errno)
		if err := blockLandlock(syscall.Errno(n)); err != nil {
			t.Fatal(err)
		}
		json.NewEncoder(os.Stdout).Encode(detect())
		return
	}
	if !Detect().Seccomp {
		t.Skip("no seccomp on this host")
	}
	// Before 5.13 (the 5.10 guest of the kernel matrix) there is no Landlock
	// to block: the reason is the kernel's age, whatever the filter answers.
	enosys := "a seccomp filter this process runs under"
	if kernelBefore(Detect().Kernel, 5, 13) {
		enosys = "predates landlock (5.13)"
	}
	for _, tt := range []struct {
		errno syscall.Errno
		want  string
	}{
		{unix.ENOSYS, enosys},
		{unix.EPERM, "refused (EPERM), likely by a seccomp filter"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDetectUnderSeccompFilter$")
		cmd.Env = append(os.Environ(), "STOCKADE_HOSTFACTS_BLOCK_LANDLOCK="+strconv.Itoa(int(tt.errno)))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		var h Host
		line, _, _ := strings.Cut(string(out), "\n")
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatalf("child output %q: %v", out, err)
		}
		if h.LandlockABI != 0 || h.SeccompMode != 2 || !strings.Contains(h.LandlockReason, tt.want) {
			t.Errorf("%v: abi %d, seccomp mode %d, reason %q; want 0, 2 and a reason containing %q",
				tt.errno, h.LandlockABI, h.SeccompMode, h.LandlockReason, tt.want)
		}
		if !h.Seccomp {
			t.Errorf("%v: seccomp reported unavailable under a filter that allows it: %s", tt.errno, h.SeccompReason)
		}
	}
}

// blockLandlock installs, on every thread, a seccomp filter that answers
// landlock_create_ruleset with errno.
func blockLandlock(errno syscall.Errno) error {
	prog, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_LANDLOCK_CREATE_RULESET, SkipFalse: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(errno)},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	})
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, ins := range prog {
		filter[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return e
	}
	return nil
}

func TestLandlockReason(t *testing.T) {
	tests := []struct {
		errno   syscall.Errno
		kernel  string
		seccomp int
		lsm     string
		want    string
	}{
		{unix.EOPNOTSUPP, "6.8.0", 0, "", "not enabled at boot: add landlock to the lsm= kernel parameter"},
		{unix.ENOSYS, "5.10.0-28-amd64", 0, "", "kernel 5.10.0-28-amd64 predates landlock (5.13)"},
		{unix.ENOSYS, "4.19.0", 2, "", "predates landlock"},
		{unix.ENOSYS, "6.8.0", 0, "", "built without landlock (CONFIG_SECURITY_LANDLOCK)"},
		{unix.ENOSYS, "6.8.0", 2, "", "built without landlock, or a seccomp filter"},
		{unix.ENOSYS, "6.8.0", 2, "lockdown,capability,landlock,yama,apparmor\n", "enabled in the kernel, but its system calls fail with ENOSYS: a seccomp filter"},
		{unix.EPERM, "6.8.0", 2, "", "refused (EPERM)"},
		{unix.EPERM, "6.8.0", 2, "", "system calls refused (EPERM), likely by a seccomp filter"},
		{unix.EPERM, "5.10.0-32-cloud-amd64", 2, "", "kernel 5.10.0-32-cloud-amd64 predates landlock (5.13); its system calls are also refused (EPERM), likely by a seccomp filter"},
		{unix.EINVAL, "6.8.0", 0, "", "landlock_create_ruleset: invalid argument"},
	}
	for _, tt := range tests {
		got := landlockReason(tt.errno, tt.kernel, tt.seccomp, tt.lsm)
		if !strings.Contains(got, tt.want) {
			t.Errorf("landlockReason(%v, %q, %d, %q) = %q, want it to contain %q", tt.errno, tt.kernel, tt.seccomp, tt.lsm, got, tt.want)
		}
	}
}

func TestKernelBefore(t *testing.T) {
	tests := []struct {
		release      string
		major, minor int
		want         bool
	}{
		{"5.10.0-28-amd64", 5, 13, true},
		{"5.13.0", 5, 13, false},
		{"6.1.0", 5, 13, false},
		{"4.19.300", 5, 13, true},
		{"6.18.44-fc-v445", 6, 15, false},
		{"6.14rc1", 6, 15, true},
		{"garbage", 5, 13, false},
		{"", 5, 13, false},
	}
	for _, tt := range tests {
		if got := kernelBefore(tt.release, tt.major, tt.minor); got != tt.want {
			t.Errorf("kernelBefore(%q, %d, %d) = %v, want %v", tt.release, tt.major, tt.minor, got, tt.want)
		}
	}
}
