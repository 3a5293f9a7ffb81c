//go:build linux

package sandbox

import (
	"os"
	"strconv"
	"testing"
)

// TestProcLimitOwner: a cgroup is named after the stockade instance whose
// state directory the command works in, and the name gives that owner back.
func TestProcLimitOwner(t *testing.T) {
	self := strconv.Itoa(os.Getpid())
	for _, c := range []struct {
		root, session, want string
	}{
		{"/run/stockade", "/run/stockade/123-abcdef012345/session-1", "123-abcdef012345"},
		{"/run/stockade/", "/run/stockade/123-abcdef012345/run-9", "123-abcdef012345"},
		{"/run/stockade", "/elsewhere/123-abcdef012345/run-9", self},
		{"/run/stockade", "/run/stockade/123-abcdef012345/a/b", self},
		{"", "/run/stockade/123-abcdef012345/run-9", self},
		{"/run/stockade", "", self},
	} {
		owner := procLimitOwner(Spec{PrivateRoot: c.root, SessionDir: c.session})
		if owner != c.want {
			t.Errorf("procLimitOwner(%q, %q) = %q, want %q", c.root, c.session, owner, c.want)
		}
		if got, ok := procLimitOwnerOf(procLimitPrefix + owner + "-0a1b2c3d"); !ok || got != owner {
			t.Errorf("the name made for owner %q gives back %q, %v", owner, got, ok)
		}
	}
	for _, name := range []string{"stockade-", "stockade--x", "other-1-2", "stockade-123"} {
		if owner, ok := procLimitOwnerOf(name); ok {
			t.Errorf("%q is not a stockade cgroup's name, yet gives owner %q", name, owner)
		}
	}
}
