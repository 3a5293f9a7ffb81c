package policy

import (
	"regexp"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Writes through a web API: an HTTP request that changes something (POST,
// PUT, PATCH, DELETE, or a body) and carries a credential (an
// Authorization or API-key header, a user and password, a secret variable,
// a key in the query) to a host that is not this machine. Whatever the
// service (a refund, a deployment hook, an issue, a page), it acts in the
// user's name outside the sandbox; the service's name plays no part. A
// GET, a request without a credential, and one to this machine are not
// writes.

// credentialHeader: a header that authenticates (Authorization: Bearer x,
// x-api-key: x, Private-Token: x), in curl's -H form or httpie's Name:value.
var credentialHeader = regexp.MustCompile(`(?i)^\s*[a-z0-9-]*(authorization|api-?key|token|auth|secret|password)[a-z0-9-]*\s*:`)

// queryCredential: a credential in a URL's query (?key=, &api_key=, ?token=).
var queryCredential = regexp.MustCompile(`(?i)[?&](api[_-]?key|key|token|access_token|api[_-]?token|auth|secret|password)=`)

// httpAPIWrites returns actAPIWrite when an HTTP client writes with a
// credential to a host that is not this machine.
func httpAPIWrites(inv *parse.Invocation, a *argv) act {
	if !httpPosts(a) && !httpDeletes(a) || !httpCredential(inv, a) || !remoteURL(inv) {
		return 0
	}
	return actAPIWrite
}

// httpDeletes reports whether an HTTP client's method is DELETE (curl -X
// DELETE, --request=DELETE, http DELETE url).
func httpDeletes(a *argv) bool {
	for _, w := range a.words {
		switch strings.ToUpper(w) {
		case "DELETE", "-XDELETE", "--REQUEST=DELETE", "--METHOD=DELETE":
			return true
		}
	}
	return false
}

// httpCredential reports whether an HTTP client's request carries a
// credential.
func httpCredential(inv *parse.Invocation, a *argv) bool {
	if (a.name == "curl" || a.name == "curlie") && (a.hasShort('u') || containsLong(a.longs, "user") || containsLong(a.longs, "oauth2-bearer") || containsLong(a.longs, "aws-sigv4")) ||
		(a.name == "http" || a.name == "https" || a.name == "xh" || a.name == "xhs" || a.name == "httpie") && (a.hasShort('a') || containsLong(a.longs, "auth") || containsLong(a.longs, "bearer")) ||
		(a.name == "wget" || a.name == "wget2") && (containsLong(a.longs, "password") || containsLong(a.longs, "http-password")) {
		return true
	}
	for _, w := range inv.Args {
		w = strings.Trim(w, `"'`)
		if v, ok := strings.CutPrefix(w, "--header="); ok {
			w = v
		}
		if credentialHeader.MatchString(w) && !strings.Contains(w, "://") || len(secretVarRefs(w)) > 0 || queryCredential.MatchString(w) {
			return true
		}
	}
	return false
}

// remoteURL reports whether one of an HTTP client's operands is a URL to a
// host that is not this machine, or one whose host is known only at run
// time.
func remoteURL(inv *parse.Invocation) bool {
	for _, w := range inv.Args {
		w = strings.Trim(w, `"'`)
		if strings.HasPrefix(w, "-") && !strings.Contains(w, "://") {
			continue
		}
		if strings.HasPrefix(w, "$") && !strings.Contains(w, "localhost") && !strings.Contains(w, "127.0.0.1") {
			return true // "$API_URL/v1/refunds"
		}
		host, _, ok := urlParts(w)
		if ok && !loopbackHost(host) {
			return true
		}
	}
	return false
}

// credentialOwnService reports whether an HTTP client sends the secret
// variables it is given only to the service their names say: the name's
// first part ($OPENAI_API_KEY, ${STRIPE_SECRET_KEY}) is the host's
// registered name (api.openai.com, api.stripe.com), the one URL's host is
// named (not an address), and no file is sent. That is using an API key
// as it is meant to be used; $GITHUB_TOKEN to github.evil.example, or a
// key in a request to another host, is not.
func credentialOwnService(inv *parse.Invocation, a *argv) bool {
	if !httpClients[a.name] || a.hasShort('T') || a.hasShort('x') || a.hasShort('K') || a.hasShort('k') || a.hasShort('i') || a.hasShort('e') {
		return false // an upload, a proxy, a config or input file, or no certificate check
	}
	for _, l := range a.longs {
		if l == "upload-file" || l == "insecure" || l == "config" || l == "location-trusted" || l == "no-check-certificate" || l == "input-file" || l == "execute" || l == "url" ||
			strings.Contains(l, "proxy") || strings.Contains(l, "resolve") || strings.Contains(l, "connect-to") || strings.Contains(l, "socks") || strings.Contains(l, "doh") {
			return false // where the request goes is changed, or the key leaves by another way
		}
	}
	var prefixes []string
	for _, w := range inv.Args {
		w = strings.Trim(w, `"'`)
		if strings.HasPrefix(w, "@") || strings.Contains(w, "=@") || strings.Contains(w, "~") || strings.Contains(w, "$(") || strings.Contains(w, "`") {
			return false // a file or a command's output sent along
		}
		for _, m := range secretVarRefs(w) {
			first, _, _ := strings.Cut(m, "_")
			prefixes = append(prefixes, strings.ToLower(first))
		}
	}
	httpie := a.name != "curl" && a.name != "curlie" && a.name != "wget" && a.name != "wget2"
	var host string
	for _, p := range httpOperands(inv, a) {
		p = strings.Trim(p, `"'`)
		h, _, ok := urlParts(p)
		switch {
		case ok && strings.Contains(p, "://") && (host == "" || h == host):
			host = h
		case httpie && !ok && (strings.ContainsAny(p, ":=") || strings.ToUpper(p) == p):
			// httpie's method and items (Authorization:"Bearer $K", a=b)
		default:
			return false // another URL, or a word the analysis does not place
		}
	}
	if host == "" || len(prefixes) == 0 || strings.ContainsAny(host, "$`") {
		return false
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 || strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return false // an address, or a name without a domain
	}
	registered := labels[len(labels)-2]
	for _, p := range prefixes {
		if p != registered {
			return false
		}
	}
	return true
}

// httpOperands returns an HTTP client's operands: its words but options
// and the values its signature says they take (curl -H VALUE); the value
// of an option the signature does not know counts as an operand.
func httpOperands(inv *parse.Invocation, a *argv) []string {
	sig := signatureOf(a.name)
	if sig == nil {
		return a.positionals
	}
	var ops []string
	for i := 0; i < len(inv.Args); i++ {
		w := inv.Args[i]
		switch {
		case w == "--":
			return append(ops, inv.Args[i+1:]...)
		case len(w) < 2 || w[0] != '-':
			ops = append(ops, w)
		case w[1] == '-':
			if name, _, hasVal := strings.Cut(w[2:], "="); !hasVal && contains(sig.valueLong, name) {
				i++
			}
		default:
			for j := 1; j < len(w); j++ {
				if strings.IndexByte(sig.valueShort, w[j]) >= 0 {
					if j+1 == len(w) {
						i++
					}
					break
				}
			}
		}
	}
	return ops
}
