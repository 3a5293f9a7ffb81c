//go:build linux

package escape

import "testing"

// TestPasswordVariables: a password in the environment of stockade, under
// any of its common spellings, never reaches the command (issue 8 item 8).
func TestPasswordVariables(t *testing.T) {
	var attacks []attack
	for _, name := range []string{"MYSQL_PWD", "SSHPASS", "DB_PWD", "PGPASSWORD", "REDIS_PASS", "LDAP_BIND_PW", "KEYSTORE_PASSWD"} {
		attacks = append(attacks, attack{name: "env-password/" + name, script: "env > loot\n", expect: "$" + name,
			vars: func(t *testing.T, e *env) map[string]string {
				v := "pw-" + randHex(12)
				e.secrets["$"+name] = v
				return map[string]string{name: v}
			}})
	}
	run(t, attacks)
}
