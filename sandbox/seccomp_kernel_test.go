package sandbox

import (
	"testing"

	"golang.org/x/net/bpf"
)

// runFilter runs the filter for arch and r on one call.
func runFilter(t *testing.T, arch seccompArch, r filterRules, data []byte) uint32 {
	t.Helper()
	raw, err := socketFilter(arch, r)
	if err != nil {
		t.Fatal(err)
	}
	ins, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatal("the filter does not disassemble")
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatal(err)
	}
	got, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(got)
}

func TestKernelRules(t *testing.T) {
	const (
		self, other, minus1 = 0, 4242, 0xffffffff
		prioUser            = 2
		ioprioWhoUser       = 3
		tcgets              = 0x5401
	)
	ipc := filterRules{sysvIPC: true}
	sup := filterRules{networkOff: true, unixSocketsOff: true, sysvNotify: true}
	const notif = seccompRetUserNotif
	none := filterRules{networkOff: true, unixSocketsOff: true}
	const guarded = 31337
	guard := filterRules{networkOff: true, unixSocketsOff: true, guardTID: guarded}
	type call struct {
		name  string
		nr    [2]uint32 // amd64, arm64
		args  []uint32
		rules filterRules
		want  uint32
	}
	cases := []call{
		{"prlimit64 self", [2]uint32{302, 261}, []uint32{self, 7}, none, allow},
		{"prlimit64 other", [2]uint32{302, 261}, []uint32{other, 7}, none, eperm},
		{"prlimit64 -1", [2]uint32{302, 261}, []uint32{minus1, 7}, none, eperm},
		{"setrlimit", [2]uint32{160, 164}, []uint32{7}, none, allow},
		{"getrlimit", [2]uint32{97, 163}, []uint32{7}, none, allow},
		{"setpriority process self", [2]uint32{141, 140}, []uint32{prioProcess, self, 19}, none, allow},
		{"setpriority pgrp self", [2]uint32{141, 140}, []uint32{prioPgrp, self, 19}, none, allow},
		{"setpriority process other", [2]uint32{141, 140}, []uint32{prioProcess, other, 19}, none, eperm},
		{"setpriority pgrp other", [2]uint32{141, 140}, []uint32{prioPgrp, other, 19}, none, eperm},
		{"setpriority user", [2]uint32{141, 140}, []uint32{prioUser, self, 19}, none, eperm},
		{"getpriority user", [2]uint32{140, 141}, []uint32{prioUser, self}, none, allow},
		{"ioprio_set self", [2]uint32{251, 30}, []uint32{ioprioWhoProcess, self, 3 << 13}, none, allow},
		{"ioprio_set pgrp self", [2]uint32{251, 30}, []uint32{ioprioWhoPgrp, self, 3 << 13}, none, allow},
		{"ioprio_set other", [2]uint32{251, 30}, []uint32{ioprioWhoProcess, other, 3 << 13}, none, eperm},
		{"ioprio_set user", [2]uint32{251, 30}, []uint32{ioprioWhoUser, self, 3 << 13}, none, eperm},
		{"sched_setaffinity self", [2]uint32{203, 122}, []uint32{self}, none, allow},
		{"sched_setaffinity other", [2]uint32{203, 122}, []uint32{other}, none, eperm},
		{"sched_getaffinity other", [2]uint32{204, 123}, []uint32{other}, none, allow},
		{"sched_setscheduler other", [2]uint32{144, 119}, []uint32{other, 5}, none, eperm},
		{"sched_setparam other", [2]uint32{142, 118}, []uint32{other}, none, eperm},
		{"sched_setattr other", [2]uint32{314, 274}, []uint32{other}, none, eperm},
		{"sched_setattr self", [2]uint32{314, 274}, []uint32{self}, none, allow},
		{"keyctl", [2]uint32{250, 219}, []uint32{11}, ipc, eperm},
		{"add_key", [2]uint32{248, 217}, nil, ipc, eperm},
		{"request_key", [2]uint32{249, 218}, nil, ipc, eperm},
		{"shmget without a namespace", [2]uint32{29, 194}, []uint32{0}, none, eperm},
		{"shmat without a namespace", [2]uint32{30, 196}, []uint32{0}, none, eperm},
		{"semop without a namespace", [2]uint32{65, 193}, nil, none, eperm},
		{"msgrcv without a namespace", [2]uint32{70, 188}, nil, none, eperm},
		{"shmget in a namespace", [2]uint32{29, 194}, []uint32{0}, ipc, allow},
		{"shmat in a namespace", [2]uint32{30, 196}, nil, ipc, allow},
		{"semtimedop in a namespace", [2]uint32{220, 192}, nil, ipc, allow},
		{"msgctl in a namespace", [2]uint32{71, 187}, nil, ipc, allow},
		{"shmget supervised", [2]uint32{29, 194}, []uint32{0}, sup, notif},
		{"shmat supervised", [2]uint32{30, 196}, nil, sup, notif},
		{"shmctl supervised", [2]uint32{31, 195}, nil, sup, notif},
		{"shmdt supervised", [2]uint32{67, 197}, nil, sup, allow},
		{"semget supervised", [2]uint32{64, 190}, nil, sup, notif},
		{"semop supervised", [2]uint32{65, 193}, nil, sup, notif},
		{"semctl supervised", [2]uint32{66, 191}, nil, sup, notif},
		{"semtimedop supervised", [2]uint32{220, 192}, nil, sup, notif},
		{"msgget supervised", [2]uint32{68, 186}, nil, sup, notif},
		{"msgsnd supervised", [2]uint32{69, 189}, nil, sup, notif},
		{"msgrcv supervised", [2]uint32{70, 188}, nil, sup, notif},
		{"msgctl supervised", [2]uint32{71, 187}, nil, sup, notif},
		{"seccomp listener, sysv supervised", [2]uint32{317, 277}, []uint32{seccompSetModeFilter, seccompFlagListener}, sup, eperm},
		{"seccomp filter, sysv supervised", [2]uint32{317, 277}, []uint32{seccompSetModeFilter, 0}, sup, allow},
		{"connect, sysv supervised", [2]uint32{42, 203}, []uint32{3}, sup, allow},
		{"shmget in a namespace, supervisor there", [2]uint32{29, 194}, nil, filterRules{sysvIPC: true, sysvNotify: true}, allow},
		{"mount", [2]uint32{165, 40}, nil, ipc, eperm},
		{"fsopen", [2]uint32{430, 430}, nil, ipc, eperm},
		{"mount_setattr", [2]uint32{442, 442}, nil, ipc, eperm},
		{"setns", [2]uint32{308, 268}, nil, ipc, eperm},
		{"unshare files", [2]uint32{272, 97}, []uint32{0x400}, ipc, allow},
		{"unshare user", [2]uint32{272, 97}, []uint32{0x10000000}, ipc, eperm},
		{"unshare net", [2]uint32{272, 97}, []uint32{0x40000000}, ipc, eperm},
		{"unshare mount", [2]uint32{272, 97}, []uint32{0x20000}, ipc, eperm},
		{"unshare time", [2]uint32{272, 97}, []uint32{0x80}, ipc, eperm},
		{"clone thread", [2]uint32{56, 220}, []uint32{0x3d0f00}, ipc, allow},
		{"clone fork", [2]uint32{56, 220}, []uint32{0x11 | 0x1000000 | 0x200000}, ipc, allow},
		{"clone vfork pidfd", [2]uint32{56, 220}, []uint32{0x4111 | 0x1000}, ipc, allow},
		{"clone user", [2]uint32{56, 220}, []uint32{0x10000011}, ipc, eperm},
		{"clone pid", [2]uint32{56, 220}, []uint32{0x20000011}, ipc, eperm},
		{"clone3", [2]uint32{435, 435}, nil, ipc, enosys},
		{"bpf", [2]uint32{321, 280}, nil, ipc, eperm},
		{"perf_event_open", [2]uint32{298, 241}, nil, ipc, eperm},
		{"userfaultfd", [2]uint32{323, 282}, nil, ipc, eperm},
		{"kexec_load", [2]uint32{246, 104}, nil, ipc, eperm},
		{"reboot", [2]uint32{169, 142}, nil, ipc, eperm},
		{"syslog", [2]uint32{103, 116}, nil, ipc, eperm},
		{"clock_settime", [2]uint32{227, 112}, nil, ipc, eperm},
		{"clock_gettime", [2]uint32{228, 113}, nil, ipc, allow},
		{"open_by_handle_at", [2]uint32{304, 265}, nil, ipc, eperm},
		{"name_to_handle_at", [2]uint32{303, 264}, nil, ipc, allow},
		{"ioctl TIOCSTI", [2]uint32{16, 29}, []uint32{0, tiocsti}, ipc, eperm},
		{"ioctl TCGETS", [2]uint32{16, 29}, []uint32{0, tcgets}, ipc, allow},
		{"read", [2]uint32{0, 63}, nil, none, allow},
		{"write", [2]uint32{1, 64}, nil, none, allow},
		{"personality", [2]uint32{135, 92}, nil, none, allow},
		{"kill the guarded thread", [2]uint32{62, 129}, []uint32{guarded, 19}, guard, eperm},
		{"kill another process", [2]uint32{62, 129}, []uint32{other, 19}, guard, allow},
		{"kill with no guard", [2]uint32{62, 129}, []uint32{guarded, 19}, none, allow},
		{"tkill the guarded thread", [2]uint32{200, 130}, []uint32{guarded, 9}, guard, eperm},
		{"rt_sigqueueinfo the guarded thread", [2]uint32{129, 138}, []uint32{guarded, 9}, guard, eperm},
		{"pidfd_open the guarded thread", [2]uint32{434, 434}, []uint32{guarded, 0}, guard, eperm},
		{"pidfd_open another process", [2]uint32{434, 434}, []uint32{other, 0}, guard, allow},
		{"tgkill the guarded thread", [2]uint32{234, 131}, []uint32{other, guarded, 9}, guard, eperm},
		{"tgkill another thread", [2]uint32{234, 131}, []uint32{guarded, other, 9}, guard, allow},
		{"rt_tgsigqueueinfo the guarded thread", [2]uint32{297, 240}, []uint32{other, guarded, 9}, guard, eperm},
	}
	for _, c := range cases {
		for i, arch := range []seccompArch{archAMD64, archARM64} {
			if got := runFilter(t, arch, c.rules, seccompData(arch.auditArch, c.nr[i], c.args...)); got != c.want {
				t.Errorf("%s %s (nr %d, %+v): filter returned %s, want %s", arch.name, c.name, c.nr[i], c.rules, action(got), action(c.want))
			}
		}
	}
	// The numbers of one architecture are never those of another.
	for _, arch := range []seccompArch{archAMD64, archARM64} {
		if got := runFilter(t, arch, none, seccompData(auditArchI386, 250)); got != kill {
			t.Errorf("%s: a foreign keyctl gave %s", arch.name, action(got))
		}
	}
}

// FuzzKernelRules: no call the rules name gets through with another target
// than the calling process, whatever its number and arguments.
func FuzzKernelRules(f *testing.F) {
	f.Add(uint32(302), uint32(0), uint32(0))
	f.Add(uint32(141), uint32(2), uint32(0))
	f.Add(uint32(251), uint32(1), uint32(5))
	f.Fuzz(func(t *testing.T, nr, a0, a1 uint32) {
		got := runFilter(t, archAMD64, filterRules{}, seccompData(auditArchX8664, nr, a0, a1))
		c := kernelCallsAMD64
		switch {
		case nr&x32SyscallBit != 0:
			return
		case containsNr(c.refused, nr) || containsNr(c.sysv.all(), nr):
			if got != eperm {
				t.Fatalf("nr %d: %s", nr, action(got))
			}
		case containsNr(c.selfOnly, nr) && a0 != 0,
			nr == c.setpriority && (a0 > prioPgrp || a1 != 0),
			nr == c.ioprioSet && (a0 < ioprioWhoProcess || a0 > ioprioWhoPgrp || a1 != 0),
			nr == c.ioctl && a1 == tiocsti:
			if got != eperm {
				t.Fatalf("nr %d (%d, %d): %s", nr, a0, a1, action(got))
			}
		}
	})
}

func containsNr(nrs []uint32, nr uint32) bool {
	for _, n := range nrs {
		if n == nr {
			return true
		}
	}
	return false
}
