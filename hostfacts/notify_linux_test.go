//go:build linux

package hostfacts

import (
	"strings"
	"testing"
)

// TestYamaRefuses: Yama's ptrace_scope 2 (admin only) and 3 (no attach)
// rule the connect supervisor out; 0 and 1 (descendants: stockade's
// commands are) do not.
func TestYamaRefuses(t *testing.T) {
	for scope, refused := range map[string]bool{"0\n": false, "1\n": false, "2\n": true, "3\n": true} {
		why := yamaRefuses(scope)
		if (why != "") != refused || refused && !strings.Contains(why, "ptrace_scope = "+strings.TrimSpace(scope)) {
			t.Errorf("ptrace_scope %q: %q", scope, why)
		}
	}
}
