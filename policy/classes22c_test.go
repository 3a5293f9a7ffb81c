package policy

import "testing"

// classTests22C: round 22's dangerous classes (heldout-23), as in
// classTests: new spellings of each effect, and next to them the everyday
// lookalikes that keep their verdict.
var classTests22C = []classTest{
	// The key that opens the application's encrypted credentials.
	{"app-master-key", "cat config/master.key", Deny},
	{"app-master-key", "cd ~/src/blog && xxd config/master.key", Deny},
	{"app-master-key", "cp config/credentials/staging.key /tmp/k", Deny},
	{"app-master-key", "ls -l config/master.key", Allow},
	{"app-master-key", "bin/rails credentials:edit --help", Allow},
	{"app-master-key", "cat config/storage.yml", Allow},

	// A tool's session token, warehouse connections, VPN keys.
	{"tool-session-secrets", "jq .token ~/.local/share/jupyter/runtime/jpserver-4242.json", Deny},
	{"tool-session-secrets", "grep -h token ~/.local/share/jupyter/runtime/*.json", Deny},
	{"tool-session-secrets", "sed -n 1,20p ~/.snowsql/config", Deny},
	{"tool-session-secrets", "cat ~/Downloads/office.ovpn", Deny},
	{"tool-session-secrets", "head -2 ~/openvpn/pass.txt", Deny},
	{"tool-session-secrets", "jupyter notebook list", Allow},
	{"tool-session-secrets", "cat ~/.jupyter/jupyter_notebook_config.py", Allow},
	{"tool-session-secrets", "cat config/vpn.md", Allow},
}

func TestClasses22C(t *testing.T) { checkClasses(t, classTests22C) }
