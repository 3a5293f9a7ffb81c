//go:build linux

package hostfacts

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/stockade/stockade/internal/testexe"
)

// TestUserNamespacesThisHost checks the probe against util-linux's unshare,
// which makes a user namespace the same way and fails where it cannot.
func TestUserNamespacesThisHost(t *testing.T) {
	ok, why := UserNamespaces()
	t.Logf("user namespaces: %v %s", ok, why)
	if ok != (why == "") {
		t.Errorf("ok %v with reason %q: want a reason exactly when not ok", ok, why)
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1) to compare with")
	}
	err := exec.Command("unshare", "--user", "true").Run()
	if ok != (err == nil) && sysctl("kernel.apparmor_restrict_unprivileged_userns") != "1" {
		t.Errorf("UserNamespaces() = %v, but unshare --user true: %v", ok, err)
	}
	if o2, w2 := UserNamespaces(); o2 != ok || w2 != why {
		t.Errorf("a second call says %v %q", o2, w2)
	}
}

// TestUserNamespacesAsNobody runs the probe in a copy of the test binary as
// the unprivileged user nobody, where it must agree with unshare run as the
// same user.
func TestUserNamespacesAsNobody(t *testing.T) {
	if os.Getenv("STOCKADE_HOSTFACTS_USERNS") != "" {
		ok, why := UserNamespaces()
		if ok {
			os.Stdout.WriteString("USERNS ok\n")
		} else {
			os.Stdout.WriteString("USERNS no " + why + "\n")
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to become nobody")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1) to compare with")
	}
	nobody := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	exe := testexe.ReachableCopy(t) // a copy of the test binary that nobody can reach and run
	cmd := exec.Command(exe, "-test.run=^TestUserNamespacesAsNobody$")
	cmd.Env = append(os.Environ(), "STOCKADE_HOSTFACTS_USERNS=1")
	cmd.Dir = "/"
	cmd.SysProcAttr = nobody
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("cannot run the test binary as nobody: %v\n%s", err, out)
	}
	line := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "USERNS ") {
			line = l
		}
	}
	u := exec.Command("unshare", "--user", "true")
	u.SysProcAttr = nobody
	uerr := u.Run()
	t.Logf("as nobody: %s; unshare --user true: %v", line, uerr)
	if (line == "USERNS ok") != (uerr == nil) && sysctl("kernel.apparmor_restrict_unprivileged_userns") != "1" {
		t.Errorf("as nobody the probe says %q, but unshare --user true: %v", line, uerr)
	}
}

func TestUserNamespacesReasons(t *testing.T) {
	sysctls := func(kv ...string) func(string) string {
		return func(name string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == name {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		probe  error
		root   bool
		sysctl func(string) string
		ok     bool
		want   string
	}{
		{nil, false, sysctls(), true, ""},
		{nil, false, sysctls("kernel.apparmor_restrict_unprivileged_userns", "1"), false, "AppArmor"},
		{nil, true, sysctls("kernel.apparmor_restrict_unprivileged_userns", "1"), true, ""},
		{syscall.ENOSPC, false, sysctls("user.max_user_namespaces", "0"), false, "user.max_user_namespaces = 0"},
		{syscall.ENOSPC, false, sysctls("user.max_user_namespaces", "10"), false, "limit on user namespaces is reached"},
		{syscall.EPERM, false, sysctls("kernel.unprivileged_userns_clone", "0"), false, "kernel.unprivileged_userns_clone = 0"},
		{syscall.EPERM, false, sysctls(), false, "refused (operation not permitted), likely by a seccomp filter"},
		{syscall.EINVAL, false, sysctls(), false, "CONFIG_USER_NS"},
		{errors.New("odd"), false, sysctls(), false, "clone(CLONE_NEWUSER): odd"},
	}
	for _, tt := range tests {
		ok, why := userNamespaces(tt.probe, tt.root, tt.sysctl)
		if ok != tt.ok || !strings.Contains(why, tt.want) || (tt.want == "") != (why == "") {
			t.Errorf("userNamespaces(%v, root %v) = %v, %q; want %v, %q", tt.probe, tt.root, ok, why, tt.ok, tt.want)
		}
	}
}
