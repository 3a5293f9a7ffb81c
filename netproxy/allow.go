package netproxy

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Allowlist is what the proxy lets a command reach, from the entries of
// [network] allow and --allow-host:
//
//	registry.npmjs.org     that host, any port
//	*.pythonhosted.org     any name below pythonhosted.org (not the name itself)
//	github.com:443         that host, that port only
//	169.254.169.254        an address (or 10.0.0.0/8, a range): connections to
//	                       it by IP literal, and names that resolve to it
//
// A name that resolves only to loopback, private, link-local or other
// non-public addresses is refused unless an entry names the address: a
// public name must not lead to the host itself or to the cloud's metadata
// service (DNS rebinding).
type Allowlist struct {
	hosts []hostEntry
	addrs []addrEntry
}

type hostEntry struct {
	name     string // lower case, without the "*." of a wildcard
	wildcard bool
	port     int // 0: any
	entry    string
}

type addrEntry struct {
	prefix netip.Prefix
	entry  string
}

// ParseAllowlist checks every entry; an entry it cannot read is an error, so
// a typo never silently allows or refuses something else.
func ParseAllowlist(entries []string) (*Allowlist, error) {
	a := &Allowlist{}
	for _, e := range entries {
		if err := a.add(e); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (a *Allowlist) add(e string) error {
	bad := func(why string) error { return fmt.Errorf("network allow entry %q: %s", e, why) }
	s := strings.TrimSpace(e)
	if s == "" {
		return bad("empty")
	}
	if strings.Contains(s, "://") || strings.ContainsAny(s, "/@?#") && !isPrefix(s) {
		return bad("want a host name, *.domain, host:port, an IP address or a CIDR range, not a URL")
	}
	if p, err := netip.ParsePrefix(s); err == nil {
		a.addrs = append(a.addrs, addrEntry{prefix: p.Masked(), entry: e})
		return nil
	}
	if ip, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		ip = ip.Unmap()
		a.addrs = append(a.addrs, addrEntry{prefix: netip.PrefixFrom(ip, ip.BitLen()), entry: e})
		return nil
	}
	host, port := s, 0
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("bad port")
		}
		host, port = h, n
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return bad("an address with a port: name the address alone (any port)")
	}
	h := hostEntry{port: port, entry: e}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		h.wildcard, host = true, rest
	}
	if !validName(host) || (h.wildcard && !strings.Contains(host, ".")) {
		return bad("not a host name")
	}
	h.name = host
	a.hosts = append(a.hosts, h)
	return nil
}

func isPrefix(s string) bool {
	_, err := netip.ParsePrefix(s)
	return err == nil
}

// validName accepts DNS names of letters, digits, '-', '_' and dots.
func validName(s string) bool {
	if s == "" || len(s) > 253 || strings.HasPrefix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// Empty reports whether nothing at all is allowed.
func (a *Allowlist) Empty() bool { return a == nil || len(a.hosts) == 0 && len(a.addrs) == 0 }

// Entries lists the entries, as written.
func (a *Allowlist) Entries() []string {
	var out []string
	for _, h := range a.hosts {
		out = append(out, h.entry)
	}
	for _, ad := range a.addrs {
		out = append(out, ad.entry)
	}
	return out
}

// AllowsName reports whether an entry allows the host name at port (what
// the name resolves to aside).
func (a *Allowlist) AllowsName(name string, port int) bool {
	_, ok := a.host(strings.ToLower(strings.TrimSuffix(name, ".")), port)
	return ok
}

// host returns the entry that allows name at port.
func (a *Allowlist) host(name string, port int) (string, bool) {
	if a == nil {
		return "", false
	}
	for _, h := range a.hosts {
		if h.port != 0 && h.port != port {
			continue
		}
		if !h.wildcard && name == h.name || h.wildcard && strings.HasSuffix(name, "."+h.name) {
			return h.entry, true
		}
	}
	return "", false
}

// addr returns the entry that names ip.
func (a *Allowlist) addr(ip netip.Addr) (string, bool) {
	if a == nil {
		return "", false
	}
	for _, ad := range a.addrs {
		if ad.prefix.Contains(ip) {
			return ad.entry, true
		}
	}
	return "", false
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598), which
// netip does not count as private.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// nonPublic says what kind of address ip is when it is not a public unicast
// address; "" when it is.
func nonPublic(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLinkLocalUnicast():
		return "link-local (cloud metadata lives at 169.254.169.254)"
	case ip.IsPrivate():
		return "private"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip.Is4() && (ip.As4()[0] == 0 || cgnat.Contains(ip) || ip == netip.AddrFrom4([4]byte{255, 255, 255, 255})):
		return "reserved"
	case ip.Is6() && !ip.IsGlobalUnicast():
		return "reserved"
	case ip.Is6() && netip.MustParsePrefix("64:ff9b::/96").Contains(ip):
		// NAT64: the IPv4 address it stands for decides.
		v4 := ip.As16()
		return nonPublic(netip.AddrFrom4([4]byte{v4[12], v4[13], v4[14], v4[15]}))
	}
	return ""
}
