package sandbox

import "testing"

// TestSocketFilterNetNS: in a network namespace of the session's own, inet
// and inet6 sockets are allowed (they reach only its loopback), and every
// other domain the network-off filter refuses stays refused.
func TestSocketFilterNetNS(t *testing.T) {
	a := archAMD64
	rules := filterRules{networkOff: true, unixSocketsOff: true, inet: true}
	cases := []filterCase{
		{"tcp", seccompData(a.auditArch, a.socket, afInet, sockStream, 0), allow},
		{"udp", seccompData(a.auditArch, a.socket, afInet, sockDgram, 0), allow},
		{"tcp6", seccompData(a.auditArch, a.socket, afInet6, sockStream, 0), allow},
		{"packet", seccompData(a.auditArch, a.socket, afPacket, sockRaw, 0x300), eperm},
		{"vsock", seccompData(a.auditArch, a.socket, afVsock, sockStream, 0), eperm},
		{"netlink sock_diag", seccompData(a.auditArch, a.socket, afNetlinkT, sockRaw, netlinkSockDiag), eperm},
		{"unix", seccompData(a.auditArch, a.socket, afUnix, sockStream, 0), eperm},
		{"i386 socket", seccompData(auditArchI386, i386Socket, afInet), kill},
	}
	checkFilter(t, a, rules, cases)
}
