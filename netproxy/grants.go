package netproxy

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
)

// Grants are hosts given to single commands of one session on top of the
// proxy's allowlist (a policy rule's allow_hosts). Each granted command gets
// a credential of its own, in the proxy URL of its environment alone
// (GrantEnv: http://stockade:TOKEN@127.0.0.1:3128), which curl, git, pip,
// npm, go and cargo send as Proxy-Authorization: Basic. A connection that
// carries a credential of a live grant may reach that grant's hosts as well
// as the allowlist; one with no credential, an unknown one or one revoked
// gets the allowlist only. The credential is a bearer token: whoever holds it
// while the grant lives has the grant (SECURITY.md says who can).
//
// A Grants belongs to one listener (Serve): a credential of one session
// means nothing on another's.
type Grants struct {
	// Addr is where the proxy serving these grants listens, as the command
	// reaches it ("" means the address inside the session's network
	// namespace, supervise.ProxyAddr). Set it before the first Add.
	Addr string
	mu   sync.Mutex
	m    map[string]grant
}

type grant struct {
	allow *Allowlist
	by    string // what granted it (a rule), for the event's rule
}

// Add grants allow to one command: it returns the credential to give that
// command (GrantEnv), and revoke, which ends the grant; call it when the
// command has ended. by names what granted it (the rule), for the log.
func (g *Grants) Add(allow *Allowlist, by string) (token string, revoke func()) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("netproxy: no randomness for a grant's credential: " + err.Error())
	}
	token = hex.EncodeToString(b[:])
	g.mu.Lock()
	if g.m == nil {
		g.m = map[string]grant{}
	}
	g.m[token] = grant{allow: allow, by: by}
	g.mu.Unlock()
	var once sync.Once
	return token, func() {
		once.Do(func() {
			g.mu.Lock()
			delete(g.m, token)
			g.mu.Unlock()
		})
	}
}

// Live counts the grants not yet revoked.
func (g *Grants) Live() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.m)
}

// of returns the live grant whose credential the request carries.
func (g *Grants) of(h http.Header) (grant, bool) {
	if g == nil {
		return grant{}, false
	}
	token := credential(h.Get("Proxy-Authorization"))
	if token == "" {
		return grant{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	gr, ok := g.m[token]
	return gr, ok
}

// credential is the token of a Basic Proxy-Authorization: the password, or
// the user name when there is no password (a client given http://TOKEN@...).
func credential(auth string) string {
	scheme, enc, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return ""
	}
	user, pass, _ := strings.Cut(string(raw), ":")
	if pass == "" {
		return user
	}
	return pass
}
