package policy

import "strings"

// Round 22: a LocalStack wrapper (tflocal, awslocal) run with its endpoint
// variable set to this machine (AWS_ENDPOINT_URL=http://localhost:4566,
// LOCALSTACK_HOST=127.0.0.1:4566, EDGE_PORT=4566) still acts on the
// emulator: the variable only says where the emulator listens. Any other
// value, a value from a variable or a use of the variable that is not an
// assignment may point the wrapper at the real cloud, so it is not local.

// endpointAssignmentLocal reports whether an assignment NAME=VALUE gives an
// address on this machine (or a bare port, which is this machine's).
func endpointAssignmentLocal(assign string) bool {
	_, v, ok := strings.Cut(assign, "=")
	if !ok {
		return false
	}
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	if v == "" {
		return false
	}
	if strings.Trim(v, "0123456789") == "" {
		return true // EDGE_PORT=4566: a port on this machine
	}
	return localAddress(v)
}

// endpointNamesLocal reports whether every place text names one of the
// endpoint variables is an assignment of a local address (the text of a
// script, or one env entry).
func endpointNamesLocal(text string, names ...string) bool {
	for _, n := range names {
		for rest := text; ; {
			i := strings.Index(rest, n)
			if i < 0 {
				break
			}
			// the whole variable name around the match, then its value
			start := i
			for start > 0 && isNameByte(rest[start-1], false) {
				start--
			}
			if start > 0 && (rest[start-1] == '$' || rest[start-1] == '{') {
				return false // a use of the variable: its value is not shown
			}
			end := i + len(n)
			for end < len(rest) && isNameByte(rest[end], false) {
				end++
			}
			if end >= len(rest) || rest[end] != '=' {
				return false
			}
			vend := end + 1
			for vend < len(rest) && !strings.ContainsRune(" \t\n;&|)", rune(rest[vend])) {
				vend++
			}
			if !endpointAssignmentLocal(rest[start:vend]) {
				return false
			}
			rest = rest[vend:]
		}
	}
	return true
}

// mailRecipientLocal reports whether a mail address is a mailbox on this
// machine (test@localhost, <dev@127.0.0.1>): a local mail server relays
// mail for another domain to the world. Round 22.
func mailRecipientLocal(addr string) bool {
	addr = strings.TrimSuffix(strings.TrimPrefix(addr, "<"), ">")
	_, host, ok := strings.Cut(addr, "@")
	return ok && loopbackHost(host)
}
