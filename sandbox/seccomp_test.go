package sandbox

import (
	"encoding/binary"
	"fmt"
	"testing"

	"golang.org/x/net/bpf"
)

// seccompData lays out struct seccomp_data for x/net/bpf's VM. The kernel loads
// 32-bit words in the machine's byte order, the VM in network byte order, so
// each word the filter loads is stored big-endian at the offset the kernel
// uses: nr at 0, arch at 4, and the low half of each argument at 16+8*i (the
// little-endian machines stockade filters on keep it first).
func seccompData(arch uint32, nr uint32, args ...uint32) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], a)
	}
	return b
}

const (
	allow  = seccompRetAllow
	eperm  = seccompRetErrno | errnoEPERM
	enosys = seccompRetErrno | errnoENOSYS
	kill   = seccompRetKillProcess
)

// Socket domains and numbers the filter must tell apart.
const (
	afInet, afInet6, afPacket, afNetlinkT, afVsock, afAlg, afBluetooth, afXDP = 2, 10, 17, 16, 40, 38, 31, 44
	sockStream, sockDgram, sockRaw                                            = 1, 2, 3
	netlinkSockDiag, netlinkAudit                                             = 4, 9
	amd64Socketpair, amd64Getpid, amd64Connect                                = 53, 39, 42
	i386Socketcall, i386Socket                                                = 102, 359
	auditArchI386, auditArchARM                                               = 0x40000003, 0x40000028
)

func TestSocketFilter(t *testing.T) {
	both := filterRules{networkOff: true, unixSocketsOff: true}
	netOnly := filterRules{networkOff: true}
	unixOnly := filterRules{unixSocketsOff: true}
	none := filterRules{}
	a := archAMD64
	cases := []struct {
		name  string
		arch  seccompArch
		rules filterRules
		data  []byte
		want  uint32
	}{
		{"getpid", a, both, seccompData(a.auditArch, amd64Getpid), allow},
		{"connect is not filtered", a, both, seccompData(a.auditArch, amd64Connect, 3), allow},
		{"tcp socket", a, both, seccompData(a.auditArch, a.socket, afInet, sockStream, 0), eperm},
		{"udp socket", a, both, seccompData(a.auditArch, a.socket, afInet, sockDgram, 0), eperm},
		{"tcp6 socket", a, both, seccompData(a.auditArch, a.socket, afInet6, sockStream, 0), eperm},
		{"raw socket", a, both, seccompData(a.auditArch, a.socket, afInet, sockRaw, 1), eperm},
		{"packet socket", a, both, seccompData(a.auditArch, a.socket, afPacket, sockRaw, 0x300), eperm},
		{"vsock", a, netOnly, seccompData(a.auditArch, a.socket, afVsock, sockStream, 0), eperm},
		{"alg", a, netOnly, seccompData(a.auditArch, a.socket, afAlg, 5, 0), eperm},
		{"bluetooth", a, netOnly, seccompData(a.auditArch, a.socket, afBluetooth, sockRaw, 0), eperm},
		{"xdp", a, netOnly, seccompData(a.auditArch, a.socket, afXDP, sockRaw, 0), eperm},
		{"unknown family", a, netOnly, seccompData(a.auditArch, a.socket, 200, sockStream, 0), eperm},
		{"netlink route", a, both, seccompData(a.auditArch, a.socket, afNetlinkT, sockRaw, netlinkRoute), allow},
		{"netlink sock_diag", a, both, seccompData(a.auditArch, a.socket, afNetlinkT, sockRaw, netlinkSockDiag), eperm},
		{"netlink audit", a, netOnly, seccompData(a.auditArch, a.socket, afNetlinkT, sockRaw, netlinkAudit), eperm},
		{"unix socket, unix off", a, both, seccompData(a.auditArch, a.socket, afUnix, sockStream, 0), eperm},
		{"unix socket, unix on", a, netOnly, seccompData(a.auditArch, a.socket, afUnix, sockStream, 0), allow},
		{"unix socket, only unix off", a, unixOnly, seccompData(a.auditArch, a.socket, afUnix, sockStream, 0), eperm},
		{"tcp socket, only unix off", a, unixOnly, seccompData(a.auditArch, a.socket, afInet, sockStream, 0), allow},
		{"tcp socket, nothing off", a, none, seccompData(a.auditArch, a.socket, afInet, sockStream, 0), allow},
		{"socketpair unix", a, both, seccompData(a.auditArch, amd64Socketpair, afUnix, sockStream, 0), allow},
		{"io_uring_setup", a, both, seccompData(a.auditArch, 425, 8, 0), enosys},
		{"io_uring_enter", a, both, seccompData(a.auditArch, 426), enosys},
		{"io_uring_register", a, both, seccompData(a.auditArch, 427), enosys},
		{"io_uring, nothing off", a, none, seccompData(a.auditArch, 425), enosys},
		// The high half of the domain is ignored by the kernel (int), and by the filter.
		{"x32 getpid", a, both, seccompData(a.auditArch, x32SyscallBit|amd64Getpid), kill},
		{"x32 socket", a, none, seccompData(a.auditArch, x32SyscallBit|a.socket, afInet), kill},
		{"i386 socketcall", a, both, seccompData(auditArchI386, i386Socketcall, 1), kill},
		{"i386 socket", a, none, seccompData(auditArchI386, i386Socket, afInet), kill},
		{"arm64 on amd64", a, both, seccompData(auditArchAArch64, 198, afInet), kill},
		// arm64
		{"arm64 tcp socket", archARM64, both, seccompData(auditArchAArch64, 198, afInet, sockStream, 0), eperm},
		{"arm64 unix socket on", archARM64, netOnly, seccompData(auditArchAArch64, 198, afUnix, sockStream, 0), allow},
		{"arm64 io_uring", archARM64, both, seccompData(auditArchAArch64, 425), enosys},
		{"arm64 nr 41 is not socket", archARM64, none, seccompData(auditArchAArch64, 41, afInet), eperm}, // pivot_root
		{"arm64 has no x32", archARM64, both, seccompData(auditArchAArch64, x32SyscallBit|172), allow},
		{"aarch32 on arm64", archARM64, both, seccompData(auditArchARM, 281, afInet), kill},
		{"amd64 on arm64", archARM64, none, seccompData(auditArchX8664, 41, afInet), kill},
	}
	for _, c := range cases {
		raw, err := socketFilter(c.arch, c.rules)
		if err != nil {
			t.Fatal(err)
		}
		ins, ok := bpf.Disassemble(raw)
		if !ok {
			t.Fatalf("%s: the filter does not disassemble", c.name)
		}
		vm, err := bpf.NewVM(ins)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := vm.Run(c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if uint32(got) != c.want {
			t.Errorf("%s (%+v): filter returned %s, want %s", c.name, c.rules, action(uint32(got)), action(c.want))
		}
	}
}

// filterCase is one system call given to a socket filter, and the action the
// filter must return.
type filterCase struct {
	name string
	data []byte
	want uint32
}

// checkFilter runs the socket filter built for a and rules on each case, in
// the BPF VM.
func checkFilter(t *testing.T, a seccompArch, rules filterRules, cases []filterCase) {
	t.Helper()
	raw, err := socketFilter(a, rules)
	if err != nil {
		t.Fatal(err)
	}
	ins, _ := bpf.Disassemble(raw)
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, err := vm.Run(c.data)
		if err != nil {
			t.Fatal(err)
		}
		if uint32(got) != c.want {
			t.Errorf("%s %s: filter returned %s, want %s", a.name, c.name, action(uint32(got)), action(c.want))
		}
	}
}

func action(v uint32) string {
	switch {
	case v == allow:
		return "ALLOW"
	case v == kill:
		return "KILL_PROCESS"
	case v&0xffff0000 == seccompRetErrno:
		return fmt.Sprintf("ERRNO(%d)", v&0xffff)
	}
	return fmt.Sprintf("%#x", v)
}

// FuzzSocketFilter checks that no input makes the filter misbehave: every
// syscall of a foreign arch is killed, and no socket of another domain than
// unix and netlink route is allowed with the network off.
func FuzzSocketFilter(f *testing.F) {
	f.Add(uint32(auditArchX8664), uint32(41), uint32(2), uint32(0))
	f.Add(uint32(auditArchI386), uint32(102), uint32(1), uint32(0))
	f.Add(uint32(auditArchX8664), uint32(41), uint32(16), uint32(4))
	raw, err := socketFilter(archAMD64, filterRules{networkOff: true, unixSocketsOff: true})
	if err != nil {
		f.Fatal(err)
	}
	ins, _ := bpf.Disassemble(raw)
	vm, err := bpf.NewVM(ins)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, arch, nr, domain, proto uint32) {
		got, err := vm.Run(seccompData(arch, nr, domain, 0, proto))
		if err != nil {
			t.Fatal(err)
		}
		r := uint32(got)
		switch {
		case arch != auditArchX8664 || nr&x32SyscallBit != 0:
			if r != kill {
				t.Fatalf("foreign call arch %#x nr %#x: %s", arch, nr, action(r))
			}
		case nr == archAMD64.socket && r == allow && !(domain == afNetlinkT && proto == netlinkRoute):
			t.Fatalf("socket(%d, _, %d) allowed", domain, proto)
		}
	})
}
