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

// secretVariable: a variable named like a credential ($STRIPE_SECRET_KEY,
// ${LINEAR_KEY}, $TWILIO_TOKEN).
var secretVariable = regexp.MustCompile(`\$\{?[A-Za-z0-9_]*(TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIALS?|_PAT)(_[A-Za-z0-9_]*)?\b`)

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
		if credentialHeader.MatchString(w) && !strings.Contains(w, "://") || secretVariable.MatchString(w) || queryCredential.MatchString(w) {
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
		if ok && !localHost(host) {
			return true
		}
	}
	return false
}
