package netproxy

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Pins map names to addresses ahead of DNS, as curl's --resolve does.
type Pins map[string][]netip.Addr

// ParsePins reads NAME=ADDR entries.
func ParsePins(entries []string) (Pins, error) {
	p := Pins{}
	for _, e := range entries {
		name, addr, ok := strings.Cut(e, "=")
		ip, err := netip.ParseAddr(addr)
		name = strings.ToLower(strings.TrimSuffix(name, "."))
		if !ok || err != nil || !validName(name) {
			return nil, fmt.Errorf("--resolve %q: want NAME=ADDR, such as registry.local=10.0.0.5", e)
		}
		p[name] = append(p[name], ip.Unmap())
	}
	return p, nil
}

// Resolver looks names up in the pins first, then with next (nil: the
// host's resolver).
func (p Pins) Resolver(next func(ctx context.Context, host string) ([]netip.Addr, error)) func(ctx context.Context, host string) ([]netip.Addr, error) {
	if next == nil {
		next = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return func(ctx context.Context, host string) ([]netip.Addr, error) {
		if addrs, ok := p[host]; ok {
			return addrs, nil
		}
		return next(ctx, host)
	}
}
