package sandbox

import (
	"fmt"

	"golang.org/x/net/bpf"
)

// The seccomp socket filter.
//
// It is a classic BPF program over struct seccomp_data:
//
//	offset 0   int   nr                  the system call number
//	offset 4   u32   arch                AUDIT_ARCH_*
//	offset 8   u64   instruction_pointer
//	offset 16  u64   args[6]             the low 32 bits first (little endian)
//
// Rules, in order:
//
//  1. A system call made with another calling convention than the native one
//     (i386 through int 0x80 on x86_64, AArch32 on arm64, or the x32 numbers
//     with bit 30 set on x86_64) kills the process: those tables have their own
//     socket numbers and socketcall(2), which the rules below would not see.
//  2. io_uring_setup, io_uring_enter and io_uring_register fail with ENOSYS, so
//     programs fall back to ordinary system calls; io_uring can open sockets
//     without going through socket(2).
//  3. The calls that reach other processes or state the kernel shares
//     between them: see seccomp_kernel.go.
//  4. socket(2), when something is refused, looks at the domain:
//     AF_UNIX is refused with UnixSocketsOff and allowed otherwise;
//     with NetworkOff, AF_NETLINK is allowed for NETLINK_ROUTE only (glibc asks
//     it which addresses are configured; it reaches no other host), and every
//     other domain is refused: inet, inet6, packet, vsock, bluetooth, alg, xdp,
//     tipc, rds, can and whatever comes next. An allow-list, so a family added
//     to the kernel later is closed by default. In a network namespace of the
//     session's own (Spec.NetNS), inet and inet6 are allowed too: there they
//     reach only the session's loopback (raw sockets still need CAP_NET_RAW,
//     which is dropped).
//  5. Where connects are supervised (filterRules.supervised: network =
//     "allowlist" without a network namespace, see notify_linux.go), inet
//     and inet6 sockets are allowed as TCP only (SOCK_STREAM with protocol
//     0 or IPPROTO_TCP: no UDP, so no DNS; no raw, SCTP or MPTCP); every
//     connect(2), bind(2) and listen(2) goes to the supervisor
//     (SECCOMP_RET_USER_NOTIF); sendto, sendmsg and sendmmsg with
//     MSG_FASTOPEN, which connect a TCP socket to the address they carry,
//     are refused; and seccomp(2) may not make a listener of its own
//     (SECCOMP_FILTER_FLAG_NEW_LISTENER): the newest filter gets a
//     notification first, and its supervisor could let the call through.
//     The same refusal holds wherever System V IPC goes to the supervisor.
//     Where neither a namespace nor the supervisor holds the allowlist
//     (filterRules.tcpOnly, Spec.ProxyPortOnly), the same, but connect and
//     listen are left to Landlock's TCP port rules.
//  6. Everything else is allowed. socketpair(2) is never filtered: it makes a
//     connected pair that reaches nobody else, and only AF_UNIX supports it.
//
// A refused socket fails with EPERM.

// Values from the kernel's uapi headers, spelled out so that the filter can be
// assembled and tested on any GOOS and GOARCH.
const (
	seccompRetKillProcess = 0x80000000
	seccompRetErrno       = 0x00050000
	seccompRetAllow       = 0x7fff0000
	seccompRetUserNotif   = 0x7fc00000

	auditArchX8664   = 0xc000003e
	auditArchAArch64 = 0xc00000b7
	x32SyscallBit    = 0x40000000

	afUnix       = 1
	domainInet   = 2
	domainInet6  = 10
	afNetlink    = 16
	netlinkRoute = 0

	sockStreamType = 1 // SOCK_STREAM, the low bits of socket(2)'s type
	sockTypeMask   = 0xf
	ipprotoTCP     = 6
	msgFastOpen    = 0x20000000
	// seccomp(2)'s SECCOMP_SET_MODE_FILTER and SECCOMP_FILTER_FLAG_NEW_LISTENER.
	seccompSetModeFilter = 1
	seccompFlagListener  = 8

	errnoEPERM  = 1
	errnoENOSYS = 38

	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArg0 = 16 // low 32 bits of args[0] on a little-endian machine
	seccompDataArg2 = 32 // low 32 bits of args[2]
	seccompDataArg3 = 40 // low 32 bits of args[3]
)

// seccompArch is what the filter needs to know of one architecture.
type seccompArch struct {
	name       string
	auditArch  uint32
	x32        bool // the x32 ABI shares the arch value; refuse nr with bit 30 set
	socket     uint32
	ioUringNrs [3]uint32 // setup, enter, register
	// The calls a supervised filter looks at (rule 5).
	connect, bind, listen, sendto, sendmsg, sendmmsg, seccomp uint32
}

var (
	archAMD64 = seccompArch{name: "amd64", auditArch: auditArchX8664, x32: true, socket: 41, ioUringNrs: [3]uint32{425, 426, 427},
		connect: 42, bind: 49, listen: 50, sendto: 44, sendmsg: 46, sendmmsg: 307, seccomp: 317}
	archARM64 = seccompArch{name: "arm64", auditArch: auditArchAArch64, socket: 198, ioUringNrs: [3]uint32{425, 426, 427},
		connect: 203, bind: 200, listen: 201, sendto: 206, sendmsg: 211, sendmmsg: 269, seccomp: 277}
)

// seccompArchFor returns the filter's view of goarch, or false where stockade
// has no filter for it.
func seccompArchFor(goarch string) (seccompArch, bool) {
	switch goarch {
	case "amd64":
		return archAMD64, true
	case "arm64":
		return archARM64, true
	}
	return seccompArch{}, false
}

// filterRules says what the socket filter refuses.
type filterRules struct {
	networkOff     bool   // every socket domain but AF_UNIX and NETLINK_ROUTE
	unixSocketsOff bool   // new AF_UNIX sockets
	sysvIPC        bool   // System V IPC allowed: the command has an IPC namespace of its own
	sysvNotify     bool   // without sysvIPC: System V IPC to the supervisor (see seccomp_kernel.go)
	inet           bool   // with networkOff: AF_INET and AF_INET6 allowed all the same
	guardTID       uint32 // a thread no signal may be sent to (0: none); see seccomp_kernel.go
	supervised     bool   // with networkOff: TCP allowed, connect, bind and listen to the supervisor (rule 5)
	tcpOnly        bool   // with networkOff: TCP allowed as with supervised, connect and listen left to Landlock (rule 5)
}

// prog is a tiny assembler with labels on top of bpf.Instruction, so that the
// filter reads top to bottom and no jump offset is counted by hand.
type prog struct {
	ins    []bpf.Instruction
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at          int
	true, false string // labels; "" means the next instruction
	always      bool   // an unconditional jump (bpf.Jump) to true
}

func (p *prog) add(i bpf.Instruction) { p.ins = append(p.ins, i) }

func (p *prog) label(name string) { p.labels[name] = len(p.ins) }

// jeq jumps to ifTrue when A == val, to ifFalse otherwise ("" falls through).
func (p *prog) jeq(val uint32, ifTrue, ifFalse string) {
	p.fixups = append(p.fixups, fixup{at: len(p.ins), true: ifTrue, false: ifFalse})
	p.add(bpf.JumpIf{Cond: bpf.JumpEqual, Val: val})
}

// refuseBits refuses the call (EPERM) when the argument at off has any bit
// of mask set, and allows it otherwise.
func (p *prog) refuseBits(off, mask uint32) {
	p.add(bpf.LoadAbsolute{Off: off, Size: 4})
	p.jset(mask, "eperm")
	p.ja("allow")
}

// jset jumps to ifTrue when A & val != 0.
func (p *prog) jset(val uint32, ifTrue string) {
	p.fixups = append(p.fixups, fixup{at: len(p.ins), true: ifTrue})
	p.add(bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: val})
}

func (p *prog) resolve() ([]bpf.Instruction, error) {
	for _, f := range p.fixups {
		skip := func(label string) (uint8, error) {
			if label == "" {
				return 0, nil
			}
			to, ok := p.labels[label]
			if !ok {
				return 0, fmt.Errorf("seccomp filter: no label %q", label)
			}
			d := to - f.at - 1
			if d < 0 || d > 255 {
				return 0, fmt.Errorf("seccomp filter: jump to %q out of range", label)
			}
			return uint8(d), nil
		}
		if f.always {
			to, ok := p.labels[f.true]
			if !ok {
				return nil, fmt.Errorf("seccomp filter: no label %q", f.true)
			}
			p.ins[f.at] = bpf.Jump{Skip: uint32(to - f.at - 1)}
			continue
		}
		j := p.ins[f.at].(bpf.JumpIf)
		var err error
		if j.SkipTrue, err = skip(f.true); err != nil {
			return nil, err
		}
		if j.SkipFalse, err = skip(f.false); err != nil {
			return nil, err
		}
		p.ins[f.at] = j
	}
	return p.ins, nil
}

// socketFilter assembles the filter for arch. See the rules at the top of this file.
func socketFilter(arch seccompArch, r filterRules) ([]bpf.RawInstruction, error) {
	p := &prog{labels: map[string]int{}}
	p.add(bpf.LoadAbsolute{Off: seccompDataArch, Size: 4})
	p.jeq(arch.auditArch, "", "kill")
	p.add(bpf.LoadAbsolute{Off: seccompDataNr, Size: 4})
	if arch.x32 {
		p.jset(x32SyscallBit, "kill")
	}
	for _, nr := range arch.ioUringNrs {
		p.jeq(nr, "enosys", "")
	}
	p.kernelRules(kernelCallsFor(arch), r, "sockets")
	p.label("sockets")
	tcp := r.supervised || r.tcpOnly
	if r.supervised {
		p.jeq(arch.connect, "notify", "")
		p.jeq(arch.bind, "notify", "")
		p.jeq(arch.listen, "notify", "")
	}
	if tcp {
		p.jeq(arch.sendto, "s-flags3", "")
		p.jeq(arch.sendmmsg, "s-flags3", "")
		p.jeq(arch.sendmsg, "s-flags2", "")
	}
	notify := r.supervised || r.sysvNotify
	if notify {
		p.jeq(arch.seccomp, "s-seccomp", "")
	}
	if r.networkOff || r.unixSocketsOff {
		p.jeq(arch.socket, "", "allow")
		p.add(bpf.LoadAbsolute{Off: seccompDataArg0, Size: 4})
		if r.unixSocketsOff {
			p.jeq(afUnix, "eperm", "")
		} else {
			p.jeq(afUnix, "allow", "")
		}
		if r.networkOff {
			switch {
			case r.inet:
				p.jeq(domainInet, "allow", "")
				p.jeq(domainInet6, "allow", "")
			case tcp:
				p.jeq(domainInet, "s-tcp", "")
				p.jeq(domainInet6, "s-tcp", "")
			}
			p.jeq(afNetlink, "", "eperm")
			p.add(bpf.LoadAbsolute{Off: seccompDataArg2, Size: 4})
			p.jeq(netlinkRoute, "allow", "eperm")
		}
	}
	if tcp {
		p.tcpRules()
	}
	if notify {
		p.notifyRules()
	}
	p.label("allow")
	p.add(bpf.RetConstant{Val: seccompRetAllow})
	p.label("eperm")
	p.add(bpf.RetConstant{Val: seccompRetErrno | errnoEPERM})
	p.label("enosys")
	p.add(bpf.RetConstant{Val: seccompRetErrno | errnoENOSYS})
	p.label("kill")
	p.add(bpf.RetConstant{Val: seccompRetKillProcess})
	ins, err := p.resolve()
	if err != nil {
		return nil, err
	}
	return bpf.Assemble(ins)
}

// tcpRules are the targets of rule 5's jumps for TCP sockets.
func (p *prog) tcpRules() {
	p.label("s-tcp")
	p.add(bpf.LoadAbsolute{Off: seccompDataArg1, Size: 4})
	p.add(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockTypeMask})
	p.jeq(sockStreamType, "", "eperm")
	p.add(bpf.LoadAbsolute{Off: seccompDataArg2, Size: 4})
	p.jeq(0, "allow", "")
	p.jeq(ipprotoTCP, "allow", "eperm")
	p.label("s-flags3")
	p.refuseBits(seccompDataArg3, msgFastOpen)
	p.label("s-flags2")
	p.refuseBits(seccompDataArg2, msgFastOpen)
}

// notifyRules are the targets of the jumps a filter with a supervisor makes
// (rule 5, and System V IPC in seccomp_kernel.go).
func (p *prog) notifyRules() {
	p.label("s-seccomp")
	p.add(bpf.LoadAbsolute{Off: seccompDataArg0, Size: 4})
	p.jeq(seccompSetModeFilter, "", "allow")
	p.refuseBits(seccompDataArg1, seccompFlagListener)
	p.label("notify")
	p.add(bpf.RetConstant{Val: seccompRetUserNotif})
}
