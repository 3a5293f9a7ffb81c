package policy

import (
	"regexp"
	"strings"
	"sync"

	"github.com/stockade/stockade/parse"
)

// Round 19: Python code that opens sockets only to this machine (a port
// check: socket.socket().connect_ex(("127.0.0.1", 5432)), a PING to a
// local redis) talks to the work's own servers, as curl to localhost does:
// its sockets are taken out of the code before inline-code-runs-programs
// reads it. Every connect, bind or create_connection must name a loopback
// host and a port as literals; an address known only at run time, a name
// lookup, and anything that could hand the socket to a shell or a program
// (dup2, fileno, pty, os, subprocess, exec, eval, an import by name) keep
// the code as it was: a shell on a local port is still a reverse shell to
// whatever listens there.

var (
	socketAddrRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\.(?:connect_ex|connect|create_connection|bind)\(\s*\(\s*(?:'([^'\\\n]*)'|"([^"\\\n]*)")\s*,\s*\d{1,5}\s*\)`)
	})
	socketCallRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\.(?:connect_ex|connect|create_connection|create_server|bind|sendto|sendmsg|gethostbyname|gethostbyname_ex|getaddrinfo|fromfd|socketpair)\b`)
	})
	socketHandedOnRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`dup|fileno|\bpty\b|makefile|subprocess|\bos\b|\bexec|\beval\b|compile|__|getattr|importlib|\bsys\b|popen|system|spawn|fork|urllib|requests|http|\bssl\b|\bopen\(`)
	})
)

// loopbackSocketCode returns Python inline code with its sockets taken
// out, when every address they reach is this machine's, and false
// otherwise.
func loopbackSocketCode(ic *parse.InlineCode) (string, bool) {
	if ic == nil || ic.Dynamic || !strings.Contains(ic.Code, "socket") || inlineFamily(commandName(ic.Interpreter)) != "python" {
		return "", false
	}
	code := ic.Code
	if socketHandedOnRe().MatchString(code) {
		return "", false
	}
	addrs := socketAddrRe().FindAllStringSubmatch(code, -1)
	if len(addrs) == 0 || len(addrs) != len(socketCallRe().FindAllStringIndex(code, -1)) {
		return "", false
	}
	for _, m := range addrs {
		if !loopbackHost(m[1] + m[2]) {
			return "", false
		}
	}
	return strings.ReplaceAll(code, "socket", "conn"), true
}

// loopbackSockets returns invs with the sockets of each Python inline code
// that reaches only this machine taken out (loopbackSocketCode).
func loopbackSockets(invs []parse.Invocation) []parse.Invocation {
	var out []parse.Invocation
	for i := range invs {
		inv := &invs[i]
		code, ok := loopbackSocketCode(inv.InlineCode)
		if !ok {
			out = kept(out, inv)
			continue
		}
		out = spliced(out, invs, i, withInlineCode(inv, code))
	}
	if out == nil {
		return invs
	}
	return out
}
