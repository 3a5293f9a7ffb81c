package sandbox

import "testing"

// TestSocketFilterProxyPortOnly: under Landlock's port rule (tcpOnly), TCP
// sockets are allowed and every other inet socket is refused, as when
// supervised; connect and listen are left to Landlock; MSG_FASTOPEN is
// refused. On both architectures.
func TestSocketFilterProxyPortOnly(t *testing.T) {
	for _, a := range []seccompArch{archAMD64, archARM64} {
		cases := []filterCase{
			{"tcp", seccompData(a.auditArch, a.socket, afInet, sockStream, 0), allow},
			{"tcp6, IPPROTO_TCP", seccompData(a.auditArch, a.socket, afInet6, sockStream, ipprotoTCP), allow},
			{"mptcp", seccompData(a.auditArch, a.socket, afInet, sockStream, 262), eperm},
			{"udp", seccompData(a.auditArch, a.socket, afInet, sockDgram, 0), eperm},
			{"raw", seccompData(a.auditArch, a.socket, afInet, sockRaw, 1), eperm},
			{"packet", seccompData(a.auditArch, a.socket, afPacket, sockRaw, 0x300), eperm},
			{"connect", seccompData(a.auditArch, a.connect, 3), allow},
			{"listen", seccompData(a.auditArch, a.listen, 3, 128), allow},
			{"sendto", seccompData(a.auditArch, a.sendto, 3, 0, 10, 0), allow},
			{"sendto, fastopen", seccompData(a.auditArch, a.sendto, 3, 0, 10, msgFastOpen), eperm},
			{"sendmmsg, fastopen", seccompData(a.auditArch, a.sendmmsg, 3, 0, 1, msgFastOpen), eperm},
			{"sendmsg, fastopen", seccompData(a.auditArch, a.sendmsg, 3, 0, msgFastOpen), eperm},
			{"seccomp filter with a listener", seccompData(a.auditArch, a.seccomp, seccompSetModeFilter, seccompFlagListener), allow},
			{"foreign arch", seccompData(auditArchI386, i386Socket, afInet), kill},
		}
		checkFilter(t, a, filterRules{networkOff: true, unixSocketsOff: true, tcpOnly: true}, cases)
	}
}
