package supervise

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade/buildcache"
	"github.com/stockade/stockade/sandbox"
)

// git runs the real git in dir, with no user or system config.
func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func hook(t testing.TB, p string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte("#!/bin/sh\necho planted\n"), 0o755))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRepoWatch: what names a program in a repository that appears under a
// root, or in one nested there already, is reported once, by name; what git
// itself writes for init, clone, commit, branches and worktrees is not. The
// same by directories' ctime alone and with a session's inotify.
func TestRepoWatch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	t.Run("ctime", func(t *testing.T) { testRepoWatch(t, false) })
	t.Run("inotify", func(t *testing.T) { testRepoWatch(t, true) })
}

func testRepoWatch(t *testing.T, live bool) {
	root := t.TempDir()
	outside := t.TempDir()
	git(t, root, "init", "-q", "old")
	git(t, root, "-C", "old", "commit", "-q", "--allow-empty", "-m", "one")
	must(t, os.MkdirAll(filepath.Join(root, "deep/a/b/c"), 0o755))
	w := NewRepoWatch([]string{root}, nil, DefaultRepoBounds)
	if live {
		if w.events = newDirEvents(); w.events == nil {
			t.Skip("no inotify instance")
		}
		defer w.Close()
	}
	last := w.Look()
	step := func(name, want string, change func()) {
		t.Helper()
		change()
		now := w.Look()
		got := strings.Join(ChangedRepos(last, now, root), "; ")
		last = now
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: reported %q, want %q", name, got, want)
		}
		if now.Stopped != "" {
			t.Errorf("%s: stopped %s", name, now.Stopped)
		}
	}
	step("everyday git", "", func() {
		git(t, root, "init", "-q", "new")
		git(t, root, "clone", "-q", "old", "src")
		git(t, root, "clone", "-q", "old", "cloned")
		git(t, root, "-C", "cloned", "checkout", "-q", "-b", "topic")
		git(t, root, "-C", "cloned", "commit", "-q", "--allow-empty", "-m", "two")
		git(t, root, "-C", "cloned", "worktree", "add", "-q", "../wt")
		git(t, root, "-C", "cloned", "config", "user.name", "me")
		git(t, root, "init", "-q", "--bare", "bare.git")
		git(t, root, "-C", "cloned", "push", "-q", "../bare.git", "topic")
	})
	step("a hook in a new repository", "new/.git/hooks/pre-commit (created)", func() {
		hook(t, filepath.Join(root, "new/.git/hooks/pre-commit"))
	})
	step("the same hook again", "", func() {})
	step("a hook rewritten in place", "new/.git/hooks/pre-commit (changed)", func() {
		must(t, os.WriteFile(filepath.Join(root, "new/.git/hooks/pre-commit"), []byte("#!/bin/sh\necho PLANTED\n"), 0o755))
	})
	for _, c := range []struct{ key, value, want string }{
		{"core.fsmonitor", "echo planted", "cloned/.git/config: core.fsmonitor (created)"},
		{"core.hooksPath", "/tmp/x", "cloned/.git/config: core.hookspath (created)"},
		{"credential.helper", "!echo planted", "cloned/.git/config: credential.helper (created)"},
		{"core.sshCommand", "echo planted", "cloned/.git/config: core.sshcommand (created)"},
		{"core.pager", "echo planted", "cloned/.git/config: core.pager (created)"},
		{"diff.external", "echo planted", "cloned/.git/config: diff.external (created)"},
		{"filter.x.smudge", "echo planted", "cloned/.git/config: filter.x.smudge (created)"},
		{"alias.st", "!echo planted", "cloned/.git/config: alias.st (created)"},
		{"remote.origin.url", "ext::sh -c planted", "cloned/.git/config: remote.origin.url (created)"},
		{"include.path", "../x", "cloned/.git/config: include.path (created)"},
		{"protocol.ext.allow", "always", "cloned/.git/config: protocol.ext.allow (created)"},
		{"submodule.s.update", "!echo planted", "cloned/.git/config: submodule.s.update (created)"},
		{"remote.origin.uploadpack", "echo planted", "cloned/.git/config: remote.origin.uploadpack (created)"},
	} {
		step(c.key, c.want, func() { git(t, root, "-C", "cloned", "config", c.key, c.value) })
	}
	step("a bare repository's hook", "bare.git/hooks/post-receive (created)", func() {
		hook(t, filepath.Join(root, "bare.git/hooks/post-receive"))
	})
	step("a worktree's repository", "cloned/.git/hooks/post-checkout (created)", func() {
		hook(t, filepath.Join(root, "cloned/.git/hooks/post-checkout"))
	})
	step("a repository hidden deep, its directory's mtime set back", "deep/a/b/c/x/.git/hooks/pre-push (created)", func() {
		git(t, root, "init", "-q", "deep/a/b/c/x")
		hook(t, filepath.Join(root, "deep/a/b/c/x/.git/hooks/pre-push"))
		old := time.Now().Add(-time.Hour)
		must(t, os.Chtimes(filepath.Join(root, "deep/a/b/c"), old, old))
	})
	step("a submodule's repository", "old/.git/modules/s/hooks/post-checkout (created)", func() {
		git(t, root, "-C", "old", "-c", "protocol.file.allow=always", "submodule", "-q", "add", filepath.Join(root, "src"), "s")
		hook(t, filepath.Join(root, "old/.git/modules/s/hooks/post-checkout"))
	})
	step("a .git file that points out of the roots", filepath.Join(outside, "g/hooks/pre-commit")+" (created)", func() {
		git(t, outside, "init", "-q", "--bare", "g")
		hook(t, filepath.Join(outside, "g/hooks/pre-commit"))
		must(t, os.MkdirAll(filepath.Join(root, "p"), 0o755))
		must(t, os.WriteFile(filepath.Join(root, "p/.git"), []byte("gitdir: "+filepath.Join(outside, "g")+"\n"), 0o644))
	})
	step("a .git symlink", filepath.Join(outside, "h/hooks/pre-commit")+" (created)", func() {
		git(t, outside, "init", "-q", "--bare", "h")
		hook(t, filepath.Join(outside, "h/hooks/pre-commit"))
		must(t, os.MkdirAll(filepath.Join(root, "q"), 0o755))
		must(t, os.Symlink(filepath.Join(outside, "h"), filepath.Join(root, "q/.git")))
	})
	step("a commondir that points out of the roots", filepath.Join(outside, "c/hooks/post-merge")+" (created)", func() {
		git(t, outside, "init", "-q", "--bare", "c")
		hook(t, filepath.Join(outside, "c/hooks/post-merge"))
		must(t, os.MkdirAll(filepath.Join(root, "fake/.git"), 0o755))
		must(t, os.WriteFile(filepath.Join(root, "fake/.git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(root, "fake/.git/commondir"), []byte(filepath.Join(outside, "c")+"\n"), 0o644))
	})
	step("a symlink to a repository out of the roots", filepath.Join(outside, "linked/.git/hooks/post-checkout")+" (created)", func() {
		git(t, outside, "init", "-q", "linked")
		hook(t, filepath.Join(outside, "linked/.git/hooks/post-checkout"))
		must(t, os.Symlink(filepath.Join(outside, "linked"), filepath.Join(root, "deep/link")))
	})
	step("info/attributes", "new/.git/info/attributes (created)", func() {
		must(t, os.WriteFile(filepath.Join(root, "new/.git/info/attributes"), []byte("* filter=x\n"), 0o644))
	})
	step("a sample", "", func() {
		hook(t, filepath.Join(root, "new/.git/hooks/pre-push.sample"))
	})
}

// TestRepoWatchSkipsProtected: a repository whose files are protected
// paths is not watched here (the protected paths' snapshot is), unless it
// did not exist when the watch began.
func TestRepoWatchSkipsProtected(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	git(t, root, "init", "-q", "p")
	protected := func(name string) []string {
		g := filepath.Join(root, name, ".git")
		return []string{filepath.Join(g, "hooks"), filepath.Join(g, "config"), filepath.Join(g, "info", "attributes"), filepath.Join(root, "policy.toml")}
	}
	w := NewRepoWatch([]string{root}, append(protected("p"), protected("later")...), DefaultRepoBounds)
	w.protected = append(protected("p"), protected("later")...)
	if got, want := fmt.Sprint(w.Protected()), fmt.Sprint(append(protected("p"), filepath.Join(root, "policy.toml"))); got != want {
		t.Errorf("protected paths compared:\n got %s\nwant %s", got, want)
	}
	before := w.Look()
	hook(t, filepath.Join(root, "p/.git/hooks/pre-commit"))
	git(t, root, "init", "-q", "later")
	hook(t, filepath.Join(root, "later/.git/hooks/pre-commit"))
	if got := strings.Join(ChangedRepos(before, w.Look(), root), "; "); got != "later/.git/hooks/pre-commit (created)" {
		t.Errorf("reported %q", got)
	}
}

// TestWatchReposRoots: the writable roots are looked at, but the project's
// build cache, which only sandboxed builds use.
func TestWatchReposRoots(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cache, err := buildcache.Dir(t.TempDir())
	must(t, err)
	work, tmp, extra := t.TempDir(), t.TempDir(), t.TempDir()
	w := WatchRepos(sandbox.Spec{FS: sandbox.FSWorkspaceWrite, Workdir: work, TmpDir: tmp, WritableRoots: []string{extra, cache}}, DefaultRepoBounds, false)
	if got, want := fmt.Sprint(w.roots), fmt.Sprint([]string{work, tmp, extra}); got != want {
		t.Errorf("roots %s, want %s", got, want)
	}
}

// TestRepoWatchBounds: a look that hits a bound says where it stopped.
func TestRepoWatchBounds(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "a/b/c/d/e"), 0o755))
	for _, c := range []struct {
		bounds RepoBounds
		want   string
	}{
		{RepoBounds{Dirs: 3, Depth: 32, Time: time.Minute}, "after 3 directories"},
		{RepoBounds{Dirs: 100, Depth: 2, Time: time.Minute}, "more than 2 levels deep"},
		{RepoBounds{Dirs: 100, Depth: 32, Time: time.Minute}, ""},
	} {
		st := NewRepoWatch([]string{root}, nil, c.bounds).Look()
		if c.want == "" && st.Stopped != "" || !strings.Contains(st.Stopped, c.want) {
			t.Errorf("%+v: stopped %q, want %q", c.bounds, st.Stopped, c.want)
		}
	}
}

// nodeModules fills root with a node_modules of 20,000 files in 2,100
// directories, the shape of a mid-sized JavaScript project's.
func nodeModules(b *testing.B, root string) {
	for i := range 2000 {
		d := filepath.Join(root, "node_modules", fmt.Sprintf("p%d", i/20), fmt.Sprintf("m%d", i%20))
		must(b, os.MkdirAll(d, 0o755))
		for j := range 10 {
			must(b, os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.js", j)), nil, 0o644))
		}
	}
}

// TestRepoWatchUnreadable: a directory the look cannot read (a plain
// user's chmod 100: git still works in a repository below it, whose name the
// user knows) is said, like a bound.
func TestRepoWatchUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "hidden/repo/.git"), 0o755))
	must(t, os.Chmod(filepath.Join(root, "hidden"), 0o100))
	defer os.Chmod(filepath.Join(root, "hidden"), 0o755)
	st := NewRepoWatch([]string{root}, nil, DefaultRepoBounds).Look()
	if !strings.Contains(st.Stopped, "hidden (it cannot be read: permission denied)") {
		t.Errorf("stopped %q", st.Stopped)
	}
}

// BenchmarkRepoWatch is what watching a workdir with a large node_modules
// costs: the first look (when a session or stockade run starts) and each
// look after a command that changed nothing there.
func BenchmarkRepoWatch(b *testing.B) {
	root := b.TempDir()
	nodeModules(b, root)
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			if st := NewRepoWatch([]string{root}, nil, DefaultRepoBounds).Look(); st.Stopped != "" {
				b.Fatal(st.Stopped)
			}
		}
	})
	for _, live := range []bool{false, true} {
		b.Run(map[bool]string{false: "again-ctime", true: "again-inotify"}[live], func(b *testing.B) {
			w := NewRepoWatch([]string{root}, nil, DefaultRepoBounds)
			if live {
				w.events = newDirEvents()
				defer w.Close()
			}
			w.Look()
			for b.Loop() {
				if st := w.Look(); st.Stopped != "" {
					b.Fatal(st.Stopped)
				}
			}
		})
	}
}

// BenchmarkRunTrueLargeTree is one call of `true` through a session whose
// workdir is empty or holds a large node_modules, interleaved: the
// difference is what watching for repositories costs a call.
func BenchmarkRunTrueLargeTree(b *testing.B) {
	large := b.TempDir()
	nodeModules(b, large)
	sessions := map[string]*Session{}
	for name, dir := range map[string]string{"empty": b.TempDir(), "node_modules": large} {
		s, err := NewSession(Config{Workdir: dir, Spec: sandbox.Spec{FS: sandbox.FSOff}, Env: os.Environ()})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		sessions[name] = s
	}
	took := map[string]time.Duration{}
	for b.Loop() {
		for name, s := range sessions {
			start := time.Now()
			if _, err := s.Run(context.Background(), Request{Script: "true"}); err != nil {
				b.Fatal(err)
			}
			took[name] += time.Since(start)
		}
	}
	for name, d := range took {
		b.ReportMetric(float64(d.Microseconds())/float64(b.N)/1000, name+"-ms/call")
	}
}
