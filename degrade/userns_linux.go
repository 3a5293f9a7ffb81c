//go:build linux

package degrade

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/stockade/stockade/sandbox"
	"golang.org/x/sys/unix"
)

var (
	userNSOnce   sync.Once
	userNS       bool
	userNSReason string
)

// WithUserNS is h with UserNS and UserNSReason filled in, for a plain user
// on this host (h is what Detect returned): whether the sandbox of a process
// stockade starts for it (stockade serve's zygote) can have a user namespace.
// It is not part of Detect because it costs a clone with new namespaces
// (a few milliseconds), which stockade run, which cannot use one, should not
// pay. It probes once per process.
func WithUserNS(h Host) Host {
	if h.OS != "linux" || h.Root {
		return h
	}
	userNSOnce.Do(func() { userNS, userNSReason = userNSAvailable() })
	h.UserNS, h.UserNSReason = userNS, userNSReason
	return h
}

// userNSAvailable says whether a plain user's zygote can have a user
// namespace with mount, network and IPC namespaces (sandbox.ProbeUserNS,
// which clones once and runs nothing), and if not, why, naming the sysctl
// that says so where one does.
func userNSAvailable() (bool, string) {
	err := sandbox.ProbeUserNS()
	if err == nil {
		return true, ""
	}
	why := fmt.Sprintf("a user namespace cannot be made here (%v)", err)
	for _, s := range []struct{ file, off, says string }{
		{"/proc/sys/kernel/unprivileged_userns_clone", "0", "kernel.unprivileged_userns_clone = 0"},
		{"/proc/sys/user/max_user_namespaces", "0", "user.max_user_namespaces = 0"},
		{"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1", "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)"},
	} {
		if b, err := os.ReadFile(s.file); err == nil && strings.TrimSpace(string(b)) == s.off {
			return false, why + ": " + s.says
		}
	}
	if errors.Is(err, unix.ENOSPC) {
		why += ": the user namespace limit is reached (user.max_user_namespaces, here or in an enclosing namespace)"
	}
	return false, why
}
