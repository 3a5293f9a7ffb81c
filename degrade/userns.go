package degrade

import "github.com/stockade/stockade/hostfacts"

// WithUserNS is h with UserNS and UserNSReason filled in, for a plain user
// on this host (h is what hostfacts.Detect returned): whether the sandbox of
// a process stockade starts for it (the zygote of stockade serve's sessions
// and of a plain user's stockade run) can have a user namespace. It is not
// part of Detect because it costs a clone with new namespaces (a few
// milliseconds), which root, and planning for another host, need not pay
// (hostfacts.UserNamespaces probes once per process).
func WithUserNS(h Host) Host {
	if h.OS != "linux" || h.Root {
		return h
	}
	h.UserNS, h.UserNSReason = hostfacts.UserNamespaces()
	return h
}
