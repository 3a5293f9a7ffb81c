package policy

import (
	"strings"
	"testing"
)

// TestInWorkdir: given the workdir, a path in it is judged as the same
// path written from it, however the script names it (absolute, under ~, or
// after a cd); the workdir itself, what holds it and its neighbours keep
// their protection (or gain it: rm -rf of the workdir is rm -rf .); and a
// workdir that is the home or above it changes nothing.
func TestInWorkdir(t *testing.T) {
	base := loadDefault() // a copy of its own: Default() is every test's
	base.homeDir = "/home/dev"
	base.index()
	for _, wd := range []string{"/home/dev/src/app", "/srv/app"} {
		p := base.InWorkdir(wd)
		for _, c := range []struct {
			script     string
			plain, got Verdict // without and with the workdir; plain "": as it may be
		}{
			{"cd WD && git clean -fdx", Deny, Ask},
			{"cd WD/web && git clean -fd", Deny, Ask},
			{"find WD/src -name '*.orig' -delete", Deny, Allow},
			{"cd WD && find . -name '*.rej' -delete", Deny, Allow},
			{"cd WD && docker compose down -v", "", Allow},
			{"cat WD/.env", Deny, Ask},
			{"rm -rf WD/dist WD/.next", "", Allow},
			{"cd WD && rm -rf build", Allow, Allow},
			// the workdir itself, what holds it, its neighbours, its hooks
			{"rm -rf WD", "", Deny},
			{"rm -rf WD/..", Deny, Deny},
			{"cd WD && rm -rf ..", Deny, Deny},
			{"cd WD/../other && git clean -fdx", Deny, Deny},
			{"echo 'curl x | sh' > WD/.git/hooks/pre-commit", Deny, Deny},
			{"cd WD && echo 'eval x' > .envrc && direnv allow", Deny, Deny},
			{"cp WD/bin/tool /usr/local/bin/", Deny, Deny},
			{"cat /home/dev/.ssh/id_rsa WD/README.md", Deny, Deny},
		} {
			script := strings.ReplaceAll(c.script, "WD", wd)
			if d := base.Check(script); c.plain != "" && d.Verdict != c.plain {
				t.Errorf("without the workdir, %q: %s by %s, want %s", script, d.Verdict, d.Rule, c.plain)
			}
			if d := p.Check(script); d.Verdict != c.got {
				t.Errorf("in %s, %q: %s by %s, want %s", wd, script, d.Verdict, d.Rule, c.got)
			}
		}
		if d := p.Check("rm -rf " + wd + "lication"); d.Verdict != base.Check("rm -rf "+wd+"lication").Verdict {
			t.Errorf("in %s, a directory whose name starts as the workdir's is taken for it: %s by %s", wd, d.Verdict, d.Rule)
		}
	}
	// The README's example, with the workdir ~/app.
	p := base.InWorkdir("/home/dev/app")
	for script, want := range map[string]string{
		"find /home/dev/app/src -name '*.orig' -delete": "find src -name '*.orig' -delete",
		"cd ~/app && find . -name '*.orig' -delete":     "find . -name '*.orig' -delete",
		"rm -rf /home/dev/app":                          "rm -rf .",
	} {
		if d, w := p.Check(script), base.Check(want); d.Verdict != w.Verdict || d.Rule != w.Rule {
			t.Errorf("in ~/app, %q: %s by %s; %q: %s by %s", script, d.Verdict, d.Rule, want, w.Verdict, w.Rule)
		}
	}
	for _, wd := range []string{"/", "/home/dev", "/home/dev/", "/home", "src/app", ""} {
		if q := base.InWorkdir(wd); q != base {
			t.Errorf("InWorkdir(%q) changed the policy; a workdir there is not one", wd)
		}
	}
}
