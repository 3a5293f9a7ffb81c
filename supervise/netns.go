package supervise

// ProxyAddr is where a command in a network namespace of its session's own
// finds the egress proxy (network = "allowlist"). The namespace is private,
// so the port is always free, and it stays the same when the session's
// sandbox is restarted.
const ProxyAddr = "127.0.0.1:3128"
