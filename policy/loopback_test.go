package policy

import "testing"

// TestLoopbackOneDefinition: the acts (a URL's host, through urlParts) and
// targetLocal (localAddress) say the same about every address, because both
// ask loopbackHost; and what it says is what the address reaches.
func TestLoopbackOneDefinition(t *testing.T) {
	for _, tc := range []struct {
		addr string
		here bool
	}{
		{"localhost", true}, {"LOCALHOST:3000", true}, {"127.0.0.1", true}, {"127.1.2.3:8080", true}, {"[::1]", true}, {"[::1]:8080", true},
		{"127.0.0.1.evil.example", false}, {"127.evil.example", false}, {"127..1", false}, {"127.0.0.", false}, {"localhost.evil.example", false},
		{"api.localhost", false}, {"0.0.0.0", false}, {"10.0.0.1", false}, {"db.example.com:5432", false}, {"[::2]", false}, {"[fe80::1]:80", false},
	} {
		if got := localAddress("http://" + tc.addr + "/x"); got != tc.here {
			t.Errorf("localAddress(http://%s/x) = %v, want %v", tc.addr, got, tc.here)
		}
		host, _, ok := urlParts("http://" + tc.addr + "/x")
		if !ok || loopbackHost(host) != tc.here {
			t.Errorf("urlParts(http://%s/x) host %q: loopbackHost %v, want %v", tc.addr, host, loopbackHost(host), tc.here)
		}
	}
}

// TestLoopbackDecides: the same address judged by an act rule and by a
// target_local rule: a request to this machine is neither a write through
// an API nor a message sent; one to a look-alike name is.
func TestLoopbackDecides(t *testing.T) {
	checkClasses(t, []classTest{
		{"loopback", `curl -X POST http://127.0.0.1:8080/v1/refunds -H "Authorization: Bearer $T" -d x=1`, Allow},
		{"loopback", `curl -X POST "http://[::1]:8080/api/messages" -d text=hi`, Allow},
		{"loopback", `curl -X POST http://127.0.0.1.nip.example/v1/refunds -H "Authorization: Bearer $T" -d x=1`, Ask},
		{"loopback", `curl -X POST http://hooks.localhost.example/api/messages -d text=hi`, Ask},
		{"loopback", `redis-cli -h 127.0.0.1 del session:1`, Allow},
		{"loopback", `redis-cli -h 127.0.0.1.nip.example del session:1`, Ask},
	})
}
