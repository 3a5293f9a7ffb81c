package sandbox

import "testing"

// TestSocketFilterSupervised: where connects are supervised, TCP sockets are
// allowed and every other inet socket is refused; connect, bind and listen go to
// the supervisor; MSG_FASTOPEN and a filter with a listener of its own are
// refused. On both architectures.
func TestSocketFilterSupervised(t *testing.T) {
	const notif = seccompRetUserNotif
	const nonblockCloexec = 0x800 | 0x80000
	for _, a := range []seccompArch{archAMD64, archARM64} {
		cases := []filterCase{
			{"tcp", seccompData(a.auditArch, a.socket, afInet, sockStream, 0), allow},
			{"tcp, nonblocking", seccompData(a.auditArch, a.socket, afInet, sockStream|nonblockCloexec, 0), allow},
			{"tcp6, IPPROTO_TCP", seccompData(a.auditArch, a.socket, afInet6, sockStream, ipprotoTCP), allow},
			{"mptcp", seccompData(a.auditArch, a.socket, afInet, sockStream, 262), eperm},
			{"sctp stream", seccompData(a.auditArch, a.socket, afInet, sockStream, 132), eperm},
			{"udp", seccompData(a.auditArch, a.socket, afInet, sockDgram, 0), eperm},
			{"udp6, nonblocking", seccompData(a.auditArch, a.socket, afInet6, sockDgram|nonblockCloexec, 0), eperm},
			{"raw", seccompData(a.auditArch, a.socket, afInet, sockRaw, 1), eperm},
			{"packet", seccompData(a.auditArch, a.socket, afPacket, sockRaw, 0x300), eperm},
			{"unix, unix off", seccompData(a.auditArch, a.socket, afUnix, sockStream, 0), eperm},
			{"connect", seccompData(a.auditArch, a.connect, 3), notif},
			{"bind", seccompData(a.auditArch, a.bind, 3), notif},
			{"listen", seccompData(a.auditArch, a.listen, 3, 128), notif},
			{"sendto", seccompData(a.auditArch, a.sendto, 3, 0, 10, 0), allow},
			{"sendto, fastopen", seccompData(a.auditArch, a.sendto, 3, 0, 10, msgFastOpen), eperm},
			{"sendmmsg, fastopen", seccompData(a.auditArch, a.sendmmsg, 3, 0, 1, msgFastOpen|0x40), eperm},
			{"sendmsg", seccompData(a.auditArch, a.sendmsg, 3, 0, 0x40), allow},
			{"sendmsg, fastopen", seccompData(a.auditArch, a.sendmsg, 3, 0, msgFastOpen), eperm},
			{"seccomp filter", seccompData(a.auditArch, a.seccomp, seccompSetModeFilter, 1), allow},
			{"seccomp filter with a listener", seccompData(a.auditArch, a.seccomp, seccompSetModeFilter, seccompFlagListener), eperm},
			{"seccomp get action", seccompData(a.auditArch, a.seccomp, 2, seccompFlagListener), allow},
			{"foreign arch", seccompData(auditArchI386, i386Socket, afInet), kill},
		}
		checkFilter(t, a, filterRules{networkOff: true, unixSocketsOff: true, supervised: true}, cases)
	}
}
