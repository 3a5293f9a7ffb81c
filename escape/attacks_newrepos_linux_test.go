//go:build linux

package escape

// Code planted for later in a git repository that stockade did not protect
// when the sandbox started (issue 8 item 6): one the command creates (git
// init, a clone, a bare repository, a .git file that points elsewhere), in
// one command or in a later call of the same MCP session, whose mount
// namespace and protected paths were fixed when it began. The user's own git
// runs such a hook or config entry outside the sandbox. No read-only mount
// can protect what did not exist, so stockade must say so in the result;
// and it must not say so for the everyday git work that creates only git's
// own samples and quiet config.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newRepoNote is how a result names what appeared in such a repository.
const newRepoNote = "a git repository that stockade does not protect"

const plantedHook = `printf '#!/bin/sh\necho planted\n' > %[1]s && chmod +x %[1]s`

// newRepoAttacks each create a repository and plant code in it; setup (if
// any) runs first, in a call of its own when there is a session. file is
// where the planted code lands (relative to the workdir), want what the
// note must name.
var newRepoAttacks = []struct {
	name, setup, plant, file, want string
}{
	{"hook in a new repository, through cd", "git init -q x",
		`cd x/.git/hooks && ` + fmt.Sprintf(plantedHook, "pre-commit"), "x/.git/hooks/pre-commit", "x/.git/hooks/pre-commit (created)"},
	{"fsmonitor in a clone", "git clone -q . c",
		`git -C c config core.fsmonitor 'echo planted'`, "c/.git/config", "c/.git/config: core.fsmonitor (created)"},
	{"credential helper appended", "git init -q y",
		`printf '[credential]\n\thelper = !echo planted\n' >> y/.git/config`, "y/.git/config", "y/.git/config: credential.helper (created)"},
	{"hooksPath", "git init -q y",
		`git -C y config core.hooksPath "$PWD/planted-hooks"`, "y/.git/config", "y/.git/config: core.hookspath (created)"},
	{"sshCommand and pager through a script", "git init -q y",
		`printf 'import subprocess\nfor k in ("core.sshCommand", "core.pager"):\n    subprocess.run(["git", "-C", "y", "config", k, "echo planted"])\n' > p.py && python3 p.py`,
		"y/.git/config", "y/.git/config: core.pager (created), y/.git/config: core.sshcommand (created)"},
	{"external diff", "git init -q y",
		`git -C y config diff.external 'echo planted'`, "y/.git/config", "y/.git/config: diff.external (created)"},
	{"smudge filter", "git init -q y",
		`git -C y config filter.lfs.smudge 'echo planted'`, "y/.git/config", "y/.git/config: filter.lfs.smudge (created)"},
	{"shell alias", "git init -q y",
		`git -C y config alias.st '!echo planted'`, "y/.git/config", "y/.git/config: alias.st (created)"},
	{"bare repository's receive hook", "git init -q --bare b.git",
		fmt.Sprintf(plantedHook, "b.git/hooks/post-receive"), "b.git/hooks/post-receive", "b.git/hooks/post-receive (created)"},
	{"submodule hook in a clone", "git clone -q . c",
		`git -C c -c protocol.file.allow=always submodule -q update --init && ` + fmt.Sprintf(plantedHook, "c/.git/modules/sub/hooks/post-checkout"),
		"c/.git/modules/sub/hooks/post-checkout", "c/.git/modules/sub/hooks/post-checkout (created)"},
	{".git file pointing at a hidden repository", "mkdir -p .cache/a/b && git init -q --bare .cache/a/b/g && mkdir p && echo 'gitdir: ../.cache/a/b/g' > p/.git",
		fmt.Sprintf(plantedHook, ".cache/a/b/g/hooks/pre-commit"), ".cache/a/b/g/hooks/pre-commit", ".cache/a/b/g/hooks/pre-commit (created)"},
}

// everydayGit is ordinary work that creates repositories: no note.
var everydayGit = []string{
	`git init -q fresh && git -C fresh commit -q --allow-empty -m one`,
	`git clone -q . c && cd c && git checkout -q -b topic && echo x > f && git add f && git commit -qm f`,
	`cd c && git checkout -q - && echo y > g && git add g && git commit -qm g && git merge -q --no-edit topic`,
	`cd c && git checkout -q topic && git rebase -q "$(git -C .. branch --show-current)"`,
	`cd c && echo z >> f && git stash -q && git stash pop -q && git checkout -q -- f`,
	`cd c && git worktree add -q ../wt && git -C ../wt status --short`,
	`cd c && git -c protocol.file.allow=always submodule -q update --init && git -C sub log --oneline -1`,
	`git clone -q --bare c remote.git && git clone -q remote.git again`,
	`git -C c config user.name me && git -C c remote add other ../remote.git && git -C c fetch -q other`,
}

// newRepoResult is what these tests read of a result.
type newRepoResult struct {
	Notes []string `json:"notes"`
	Exit  int      `json:"exit_code"`
}

func (r newRepoResult) noted() string {
	for _, n := range r.Notes {
		if strings.Contains(n, newRepoNote) {
			return n
		}
	}
	return ""
}

// runNewRepoJSON is `stockade run --json -c script` in work, as id.
func runNewRepoJSON(t *testing.T, id ident, work, script string) newRepoResult {
	t.Helper()
	run := id.command(id.stockade, "run", "--json", "--policy", id.policy(t), "-c", script)
	run.Dir = work
	run.Env = append(os.Environ(), append(gitIdentity, "HOME="+id.dir(t), "XDG_RUNTIME_DIR="+id.dir(t))...)
	var stdout, stderr strings.Builder
	run.Stdout, run.Stderr = &stdout, &stderr
	run.Run()
	var r newRepoResult
	if err := json.Unmarshal([]byte(stdout.String()), &r); err != nil {
		t.Fatalf("stockade run --json: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if r.Exit == 126 {
		t.Fatalf("the policy stopped the command before it ran; the test proves nothing:\n%s", stderr.String())
	}
	return r
}

// planted says whether the attack's code is in place, checked from outside.
func planted(work, file string) bool {
	if strings.HasSuffix(file, "config") {
		return fileContains(filepath.Join(work, file), "planted")
	}
	return exists(filepath.Join(work, file))
}

// TestNewRepoPlantedInOneCommand: `stockade run` creates a repository and
// plants code in it in one command. Without the sandbox each attack works;
// with it, it works too (the repository did not exist when the mounts were
// made), and the result must name what was planted.
func TestNewRepoPlantedInOneCommand(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git")
		}
		for _, a := range newRepoAttacks {
			t.Run(a.name, func(t *testing.T) {
				script := a.setup + " && " + a.plant
				control := id.dir(t)
				gitRepo(t, id, control)
				cmd := id.command("bash", "-c", script)
				cmd.Dir = control
				cmd.Env = append(os.Environ(), gitIdentity...)
				if out, _ := cmd.CombinedOutput(); !planted(control, a.file) {
					t.Fatalf("without the sandbox the attack did not work; it proves nothing:\n%s", out)
				}

				work := id.dir(t)
				gitRepo(t, id, work)
				r := runNewRepoJSON(t, id, work, script)
				if !planted(work, a.file) {
					t.Fatalf("the attack did not plant its code in the sandbox; the test proves nothing; notes: %q", r.Notes)
				}
				if note := r.noted(); !strings.Contains(note, a.want) {
					t.Errorf("the attack planted %s and the result does not say so; want %q in notes: %q", a.file, a.want, r.Notes)
				}
			})
		}
		// Without --json, the note is on stderr.
		work := id.dir(t)
		gitRepo(t, id, work)
		run := id.command(id.stockade, "run", "--policy", id.policy(t), "-c", newRepoAttacks[0].setup+" && "+newRepoAttacks[0].plant)
		run.Dir = work
		run.Env = append(os.Environ(), append(gitIdentity, "HOME="+id.dir(t), "XDG_RUNTIME_DIR="+id.dir(t))...)
		out, _ := run.CombinedOutput()
		if want := "stockade: note: " + newRepoNote; !strings.Contains(string(out), want) || !strings.Contains(string(out), newRepoAttacks[0].want) {
			t.Errorf("stockade run: no %q naming %s on stderr:\n%s", want, newRepoAttacks[0].want, out)
		}
	})
}

// TestNewRepoBoundVisible: where a bound stops the look for repositories
// (here the depth: 32 levels below a writable root), every result says so
// and where, rather than leaving what is beyond unwatched in silence. So
// does a directory the look cannot read: a plain user's command hides a
// repository below a directory of mode 0100, where git still works.
func TestNewRepoBoundVisible(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		work := id.dir(t)
		deep := filepath.Join(work, strings.Repeat("d/", 40))
		must(t, os.MkdirAll(deep, 0o755))
		id.chownAll(t, work)
		s := startGitServer(t, id, work)
		for range 2 {
			notes := fmt.Sprint(s.bash(map[string]any{"command": "true"})["notes"])
			if !strings.Contains(notes, "stockade stopped looking for git repositories") || !strings.Contains(notes, "more than 32 levels deep") {
				t.Errorf("the bound was hit and the result does not say so; notes: %s", notes)
			}
		}
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git to make the repository below an unreadable directory")
		}
		hide := `mkdir -p h && git init -q h/r && ` + fmt.Sprintf(plantedHook, "h/r/.git/hooks/pre-commit") + ` && chmod 100 h`
		notes := fmt.Sprint(s.bash(map[string]any{"command": hide})["notes"])
		if !exists(filepath.Join(work, "h/r/.git/hooks/pre-commit")) {
			t.Fatalf("the hook was not planted; the test proves nothing")
		}
		if !strings.Contains(notes, "h/r/.git/hooks/pre-commit (created)") && !strings.Contains(notes, "h (it cannot be read") {
			t.Errorf("a repository hidden below an unreadable directory is neither named nor said to be out of reach; notes: %s", notes)
		}
		os.Chmod(filepath.Join(work, "h"), 0o755)
	})
}

// TestNewRepoPlantedLater: in an MCP session, one call creates (or clones)
// the repository and a later one plants the code, or a background task does
// and the next call, or task_output on its end, reports it. Each planting
// call's result names it, once.
func TestNewRepoPlantedLater(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git")
		}
		for i, a := range newRepoAttacks {
			t.Run(a.name, func(t *testing.T) {
				work := id.dir(t)
				gitRepo(t, id, work)
				s := startGitServer(t, id, work)
				if note := notedIn(s.bash(map[string]any{"command": a.setup})); note != "" {
					t.Errorf("creating the repository was reported: %s", note)
				}
				var note string
				switch i % 3 {
				case 0:
					note = notedIn(s.bash(map[string]any{"command": a.plant}))
				case 1:
					// A background task plants it; the next call says so.
					s.bash(map[string]any{"command": "(" + a.plant + "); touch task-done", "run_in_background": true})
					waitFor(t, "the task's planting", func() bool { return exists(filepath.Join(work, "task-done")) })
					note = notedIn(s.bash(map[string]any{"command": "true"}))
				case 2:
					// A background task plants it; its end, read with task_output, says so.
					task := s.bash(map[string]any{"command": a.plant, "run_in_background": true})
					note = notedIn(s.taskOutput(task["task_id"], 60000))
				}
				if !planted(work, a.file) {
					t.Fatalf("the attack did not plant its code in the sandbox; the test proves nothing")
				}
				if !strings.Contains(note, a.want) {
					t.Errorf("the attack planted %s and the result does not say so; want %q in %q", a.file, a.want, note)
				}
				if again := notedIn(s.bash(map[string]any{"command": "true"})); again != "" {
					t.Errorf("reported twice: %s", again)
				}
			})
		}
	})
}

// taskOutput calls task_output, waiting up to wait ms for the task to end,
// and returns its structured result.
func (s *server) taskOutput(id any, wait int) map[string]any {
	s.t.Helper()
	raw := s.request("tools/call", map[string]any{"name": "task_output", "arguments": map[string]any{"task_id": id, "wait": wait}})
	var r struct {
		Structured map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		s.t.Fatal(err)
	}
	if r.Structured["status"] != "completed" {
		s.t.Fatalf("task_output: the task did not end: %v", r.Structured)
	}
	return r.Structured
}

// startGitServer is startServer with git's identity in the environment.
func startGitServer(t *testing.T, id ident, work string) *server {
	t.Helper()
	cmd := id.command(id.stockade, "serve", "--policy", id.policy(t), "--workdir", work)
	cmd.Env = append(os.Environ(), append(gitIdentity, "XDG_RUNTIME_DIR="+id.dir(t), "HOME="+id.dir(t), "WORK="+work)...)
	return startServerCmd(t, cmd)
}

// notedIn is the result's note on unprotected repositories, or "".
func notedIn(res map[string]any) string {
	notes, _ := res["notes"].([]any)
	for _, n := range notes {
		if s, _ := n.(string); strings.Contains(s, newRepoNote) {
			return s
		}
	}
	return ""
}

// TestNewRepoEverydayWork: ordinary git work that creates repositories
// (init, clone, commit, checkout, merge, rebase, stash, worktree add,
// submodule update, a bare remote, fetch) and project builds and tests
// work in a session, with no note on repositories or protected files; so
// does git init in a workdir that was not a repository (its hooks are only
// git's samples).
func TestNewRepoEverydayWork(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git")
		}
		check := func(s *server, command string) {
			t.Helper()
			res := s.bash(map[string]any{"command": `cd "$WORK" && ` + command})
			if code, _ := res["exit_code"].(float64); code != 0 {
				t.Errorf("%s: exit %v\n%v\n%v", command, res["exit_code"], res["stdout"], res["stderr"])
			}
			notes, _ := res["notes"].([]any)
			for _, n := range notes {
				if s, _ := n.(string); strings.Contains(s, newRepoNote) || strings.Contains(s, "a protected file changed") {
					t.Errorf("%s: a false alarm: %s", command, s)
				}
			}
		}
		work := id.dir(t)
		gitRepo(t, id, work)
		s := startGitServer(t, id, work)
		for _, c := range everydayGit {
			check(s, c)
		}
		// A workdir that is not a repository yet, and projects built and tested in it.
		plain := id.dir(t)
		s = startGitServer(t, id, plain)
		check(s, `git init -q && git commit -q --allow-empty -m init`)
		check(s, `mkdir py && cd py && printf 'import unittest\nclass T(unittest.TestCase):\n    def test(self): self.assertEqual(1, 1)\n' > test_x.py && python3 -m unittest -q 2>&1`)
		if _, err := exec.LookPath("npm"); err == nil {
			check(s, `mkdir js && cd js && printf '{"name":"x","version":"1.0.0","scripts":{"build":"node build.js","test":"node test.js"}}\n' > package.json && echo 'require("fs").writeFileSync("out.txt", "ok")' > build.js && echo 'require("assert").ok(true)' > test.js && npm run -s build && npm test -s`)
		}
		if _, err := exec.LookPath("go"); err == nil {
			check(s, `mkdir gp && cd gp && printf 'module x\n\ngo 1.21\n' > go.mod && printf 'package x\n\nfunc F() int { return 1 }\n' > x.go && go build ./... && go vet ./...`)
		}
		check(s, `git add -A && git commit -qm projects`)
	})
}
