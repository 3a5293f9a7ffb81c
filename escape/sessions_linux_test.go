//go:build linux

package escape

// Attacks on what sessions leave and share: another session's files (issue 8
// item 4), processes that outlive a killed server (item 5), and code planted
// in the workdir for the user's own git or stockade to run later (item 6).
// These go through `stockade serve`, driven as an MCP client would drive it.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// server is a `stockade serve` over stdio, spoken to line by line.
type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
	stderr *strings.Builder
}

// startServer starts `stockade serve` with the escape policy, state root
// stateRoot (as $XDG_RUNTIME_DIR) and workdir, and initializes it.
func startServer(t *testing.T, id ident, stateRoot, workdir string, args ...string) *server {
	t.Helper()
	argv := append([]string{"serve", "--policy", id.policy(t), "--workdir", workdir}, args...)
	cmd := id.command(id.stockade, argv...)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+stateRoot, "HOME="+id.dir(t))
	return startServerCmd(t, cmd)
}

// startServerCmd starts and initializes the server that cmd runs.
func startServerCmd(t *testing.T, cmd *exec.Cmd) *server {
	t.Helper()
	var err error
	s := &server{t: t, cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = s.stderr
	if s.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.out = bufio.NewReader(stdout)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	s.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "escape", "version": "0"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return s
}

func (s *server) send(msg map[string]any) {
	b, _ := json.Marshal(msg)
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		s.t.Fatalf("writing to stockade serve: %v\nstderr:\n%s", err, s.stderr)
	}
}

// request sends one request and returns its result.
func (s *server) request(method string, params any) json.RawMessage {
	s.t.Helper()
	s.nextID++
	id := s.nextID
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			s.t.Fatalf("reading from stockade serve: %v\nstderr:\n%s", err, s.stderr)
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			s.t.Fatalf("%s: %s", method, m.Error)
		}
		return m.Result
	}
}

// bash calls the bash tool and returns its structured result.
func (s *server) bash(args map[string]any) map[string]any {
	s.t.Helper()
	raw := s.request("tools/call", map[string]any{"name": "bash", "arguments": args})
	var r struct {
		Structured map[string]any `json:"structuredContent"`
		IsError    bool           `json:"isError"`
		Content    []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		s.t.Fatal(err)
	}
	if r.IsError {
		s.t.Fatalf("bash %v: %+v", args["command"], r.Content)
	}
	return r.Structured
}

// run runs a foreground command and returns its stdout.
func (s *server) run(command string) string {
	s.t.Helper()
	text, _ := s.bash(map[string]any{"command": command})["stdout"].(string)
	return text
}

// stop ends the server, as a client does: stdin closes.
func (s *server) stop() {
	s.in.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// instanceDir is the server's directory under the state root.
func (s *server) instanceDir(stateRoot string) string {
	return filepath.Join(stateRoot, "stockade", strconv.Itoa(s.cmd.Process.Pid)+"-"+s.instanceSuffix(stateRoot))
}

func (s *server) instanceSuffix(stateRoot string) string {
	prefix := strconv.Itoa(s.cmd.Process.Pid) + "-"
	ents, _ := os.ReadDir(filepath.Join(stateRoot, "stockade"))
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			return strings.TrimPrefix(e.Name(), prefix)
		}
	}
	s.t.Fatalf("no state directory of server %d in %s", s.cmd.Process.Pid, stateRoot)
	return ""
}

func requireSuite(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

// allowAll is the policy of these attacks: every command allowed, none of
// the built-in rules (which would stop some of them before they run), the
// built-in sandbox; only the kernel sandbox and stockade's own watch stand in
// the way.
const allowAll = "version = 1\ndefault = \"allow\"\nextends = \"none\"\n"

// ident is who stockade and the attacks run as: the suite's root or its
// plain user (identity_linux_test.go), who gets no capabilities and so no
// read-only mounts: protected files are then only watched. Both are real
// deployments.
type ident struct {
	name     string
	uid      int
	stockade string // the binary, where this identity can run it
}

// eachIdentity runs f as root and as the plain user.
func eachIdentity(t *testing.T, f func(t *testing.T, id ident)) {
	requireSuite(t)
	for _, who := range rootAndUser {
		t.Run(who.name, func(t *testing.T) {
			f(t, ident{name: who.name, uid: who.uid(), stockade: stockade})
		})
	}
}

// dir is a fresh directory of mode 0700 that id owns, on a path id can reach.
func (id ident) dir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "escape-sessions-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chown(dir, id.uid, id.uid))
	return dir
}

// command is exec.Command run as id.
func (id ident) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: credential(id.uid)}
	return cmd
}

// policy is a copy of the escape policy that id can read.
func (id ident) policy(t *testing.T) string {
	policy := filepath.Join(id.dir(t), "policy.toml")
	must(t, os.WriteFile(policy, []byte(allowAll), 0o644))
	return policy
}

// chownAll gives everything under dir to id.
func (id ident) chownAll(t *testing.T, dir string) {
	must(t, filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, id.uid, id.uid)
	}))
}

// TestOtherSessionsFiles: a command of one server reads the private TMPDIR,
// a full-output file and a background task's log of another server's session
// (they share a user, so file modes do not stop it). Without the sandbox the
// same script, run as the same user, reads all three.
func TestOtherSessionsFiles(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		state := id.dir(t)
		victim := startServer(t, id, state, id.dir(t))
		attacker := startServer(t, id, state, id.dir(t))

		secret := "session-secret-" + randHex(8)
		tmp := strings.TrimSpace(victim.run(`echo ` + secret + `-tmp > "$TMPDIR/secret"; echo "$TMPDIR"`))
		long := victim.bash(map[string]any{"command": `for i in $(seq 4000); do echo ` + secret + `-full; done`})
		full, _ := long["stdout_truncated"].(map[string]any)["full_output_path"].(string)
		task := victim.bash(map[string]any{"command": `echo ` + secret + `-log; sleep 300`, "run_in_background": true})
		logPath, _ := task["output_file"].(string)
		if tmp == "" || full == "" || logPath == "" {
			t.Fatalf("the victim session did not say where its files are: tmp %q full %q log %q", tmp, full, logPath)
		}
		waitFor(t, "the task's log", func() bool { b, _ := os.ReadFile(logPath); return strings.Contains(string(b), secret) })

		// Named files, and everything under the state root.
		attack := fmt.Sprintf(`cat %q %q %q; find %q -type f -exec cat {} + 2>/dev/null; true`,
			filepath.Join(tmp, "secret"), full, logPath, filepath.Join(state, "stockade"))
		control, _ := id.command("bash", "-c", attack).Output()
		for _, want := range []string{"-tmp", "-full", "-log"} {
			if !strings.Contains(string(control), secret+want) {
				t.Fatalf("without the sandbox the attack did not read the victim's %s file; it proves nothing:\n%s", want, lastLines(string(control), 5))
			}
		}
		// With the filesystem confinement off too.
		attackerOff := startServer(t, id, state, id.dir(t), "--fs", "off")
		for name, s := range map[string]*server{"workspace-write": attacker, "fs off": attackerOff} {
			got := s.run(attack + `; echo "own: $(echo mine > "$TMPDIR/own" && cat "$TMPDIR/own")"`)
			if strings.Contains(got, secret) {
				t.Errorf("%s: a command of another server read the victim session's files:\n%s", name, lastLines(got, 8))
			}
			if !strings.Contains(got, "own: mine") {
				t.Errorf("%s: the attacker session could not use its own TMPDIR:\n%s", name, lastLines(got, 8))
			}
		}
		// The victim still reads its own.
		if own := victim.run(fmt.Sprintf("cat %q; head -1 %q", filepath.Join(tmp, "secret"), logPath)); !strings.Contains(own, secret+"-tmp") || !strings.Contains(own, secret+"-log") {
			t.Errorf("the victim session could not read its own files:\n%s", own)
		}
	})
}

// waitFor waits, at most 20 s, until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestKilledServerLeavesNothing: `stockade serve` is SIGKILLed (the OOM
// killer, an operator) while a background task runs with a child, a setsid
// grandchild and a double fork. Every one of them must die with it, and the
// next start must remove its state directory, stopping any process still
// working there, while another live server's state and task stay. Without
// stockade, the same processes under a parent that is SIGKILLed run on.
func TestKilledServerLeavesNothing(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		const spawn = `sleep 1000 & echo $! >> pids; setsid sleep 1001 & echo $! >> pids; (sleep 1002 & echo $! >> pids) ; echo $$ >> pids; wait`

		// Control: a parent killed the same way leaves its processes running.
		work := id.dir(t)
		parent := id.command("bash", "-c", spawn)
		parent.Dir = work
		must(t, parent.Start())
		shellPids := waitPids(t, filepath.Join(work, "pids"), 4)
		parent.Process.Kill()
		parent.Wait()
		survivors := 0
		for _, pid := range shellPids[:3] {
			if alive(pid) {
				survivors++
			}
			kill(pid)
		}
		if survivors == 0 {
			t.Fatal("without stockade no process outlived its killed parent; the test proves nothing")
		}

		state := id.dir(t)
		liveWork := id.dir(t)
		live := startServer(t, id, state, liveWork)
		live.bash(map[string]any{"command": spawn, "run_in_background": true})
		livePids := inNamespace(sessionNS(t, live), waitPids(t, filepath.Join(liveWork, "pids"), 4))

		victimWork := id.dir(t)
		victim := startServer(t, id, state, victimWork)
		victim.bash(map[string]any{"command": spawn, "run_in_background": true})
		victimPids := inNamespace(sessionNS(t, victim), waitPids(t, filepath.Join(victimWork, "pids"), 4))
		victimDir := victim.instanceDir(state)
		liveDir := live.instanceDir(state)

		victim.cmd.Process.Signal(syscall.SIGKILL)
		victim.cmd.Wait()
		deadline := time.Now().Add(10 * time.Second)
		for _, pid := range victimPids {
			for alive(pid) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if alive(pid) {
				t.Errorf("pid %d (%s) outlived the killed server", pid, cmdline(pid))
				kill(pid)
			}
		}

		// A process left working in the dead server's directory (as a kernel
		// without the parent-death signal, or a killed supervisor, would leave
		// one) is stopped by the next start, and the directory removed.
		stray := id.command("sleep", "1003")
		stray.Env = []string{"TMPDIR=" + filepath.Join(victimDir, "x")}
		must(t, stray.Start())
		strayCwd := id.command("sleep", "1004")
		strayCwd.Dir = victimDir
		must(t, strayCwd.Start())
		if _, err := os.Stat(victimDir); err != nil {
			t.Fatalf("the killed server's directory is already gone (%v); the next start has nothing to show", err)
		}
		next := startServer(t, id, state, id.dir(t))
		next.run("true")
		if _, err := os.Stat(victimDir); !os.IsNotExist(err) {
			t.Errorf("the next start left the dead server's directory %s (%v)", victimDir, err)
		}
		if _, err := os.Stat(victimDir + ".lock"); !os.IsNotExist(err) {
			t.Errorf("the next start left the dead server's lock file (%v)", err)
		}
		for _, c := range []*exec.Cmd{stray, strayCwd} {
			c.Wait()
			if c.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Errorf("a process working in the dead server's directory was not stopped: %v", c.ProcessState)
			}
		}

		// The live server kept everything.
		if _, err := os.Stat(liveDir); err != nil {
			t.Errorf("the live server's directory was removed: %v", err)
		}
		for _, pid := range livePids {
			if !alive(pid) {
				t.Errorf("pid %d of the live server's task was stopped", pid)
			}
		}
		if got := live.run("echo still here"); !strings.Contains(got, "still here") {
			t.Errorf("the live server stopped working: %q", got)
		}
	})
}

// waitPids waits until file holds n pids, and returns them.
func waitPids(t *testing.T, file string, n int) []int {
	t.Helper()
	var pids []int
	waitFor(t, file, func() bool {
		b, _ := os.ReadFile(file)
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
		return len(pids) >= n
	})
	return pids
}

// plantAttacks each leave something that runs outside the sandbox later, in
// a git repository that is the workdir, and in the policy file in use
// (the project's .stockade/policy.toml, read with the --policy file). Each
// checks from outside whether it worked.
var plantAttacks = []struct {
	name, script string
	worked       func(work string) bool
}{
	{"hook through cd", `cd .git/hooks && printf '#!/bin/sh\necho planted\n' > pre-commit && chmod +x pre-commit`,
		func(w string) bool { return exists(filepath.Join(w, ".git/hooks/pre-commit")) }},
	{"hook through a script", `printf 'import os\nopen(os.path.join(".git","hooks","post-checkout"),"w").write("#!/bin/sh\\necho planted\\n")\n' > p.py && python3 p.py || tee .git/hooks/post-checkout < /dev/null`,
		func(w string) bool { return exists(filepath.Join(w, ".git/hooks/post-checkout")) }},
	{"config with git", `git config core.fsmonitor 'echo planted'`,
		func(w string) bool { return fileContains(filepath.Join(w, ".git/config"), "planted") }},
	{"config appended", `printf '[credential]\n\thelper = !echo planted\n' >> .git/config`,
		func(w string) bool { return fileContains(filepath.Join(w, ".git/config"), "planted") }},
	{"config replaced", `sed 's/bare = false/bare = false\n\thooksPath = planted/' .git/config > c && mv c .git/config`,
		func(w string) bool { return fileContains(filepath.Join(w, ".git/config"), "planted") }},
	{".git moved away", `mv .git .git.old && mkdir -p .git && cp -r .git.old/. .git/ && git config core.pager 'echo planted'`,
		func(w string) bool { return fileContains(filepath.Join(w, ".git/config"), "planted") }},
	{"submodule hook", `printf '#!/bin/sh\necho planted\n' > .git/modules/sub/hooks/post-checkout && chmod +x .git/modules/sub/hooks/post-checkout`,
		func(w string) bool { return exists(filepath.Join(w, ".git/modules/sub/hooks/post-checkout")) }},
	{"submodule config", `git -C sub config core.fsmonitor 'echo planted'`,
		func(w string) bool { return fileContains(filepath.Join(w, ".git/modules/sub/config"), "planted") }},
	{"a path the policy protects", `printf 'all:\n\techo planted\n' >> Makefile`,
		func(w string) bool { return fileContains(filepath.Join(w, "Makefile"), "planted") }},
	{"policy rewritten", `printf '[[rule]]\nname = "planted"\ndecision = "allow"\nreason = "x"\ncommand = ["x"]\n' >> .stockade/policy.toml`,
		func(w string) bool { return fileContains(filepath.Join(w, ".stockade/policy.toml"), "planted") }},
}

// gitRepo makes dir a git repository with one commit, a Makefile, a
// project policy file (.stockade/policy.toml) that adds nothing, and a
// submodule "sub" (its repository under .git/modules/sub).
func gitRepo(t *testing.T, id ident, dir string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(dir, ".stockade"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, ".stockade/policy.toml"), []byte("version = 1\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n"), 0o644))
	id.chownAll(t, dir)
	sub := id.dir(t)
	cmd := id.command("bash", "-c", `git init -q && git add .stockade Makefile && git commit -qm init &&
		git -C "$1" init -q && git -C "$1" commit -q --allow-empty -m sub &&
		git -c protocol.file.allow=always submodule -q add "$1" sub && git commit -qm sub`, "-", sub)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitIdentity...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

var gitIdentity = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null"}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func fileContains(p, s string) bool {
	b, _ := os.ReadFile(p)
	return strings.Contains(string(b), s)
}

// TestPlantedForLater: a command writes git hooks, git config entries that
// name programs, or the policy file in use, for the user's own git or
// stockade to run outside the sandbox later. Without the sandbox each works.
// With it, as root (read-only mounts), each fails; where the host cannot make
// the mounts, the result names the file that changed.
func TestPlantedForLater(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git")
		}
		for _, a := range plantAttacks {
			t.Run(a.name, func(t *testing.T) {
				control := id.dir(t)
				gitRepo(t, id, control)
				cmd := id.command("bash", "-c", a.script)
				cmd.Dir = control
				out, _ := cmd.CombinedOutput()
				if !a.worked(control) {
					t.Fatalf("without the sandbox the attack did not work; it proves nothing:\n%s", out)
				}

				work := id.dir(t)
				gitRepo(t, id, work)
				policy := filepath.Join(id.dir(t), "policy.toml")
				must(t, os.WriteFile(policy, []byte(allowAll+"[sandbox]\nprotected = [\"Makefile\"]\n"), 0o644))
				run := id.command(id.stockade, "run", "--json", "--policy", policy, "-c", a.script)
				run.Dir = work
				run.Env = append(os.Environ(), "HOME="+id.dir(t), "XDG_RUNTIME_DIR="+id.dir(t))
				var stdout, stderr strings.Builder
				run.Stdout, run.Stderr = &stdout, &stderr
				run.Run()
				var res struct {
					Notes   []string `json:"notes"`
					Exit    int      `json:"exit_code"`
					Applied struct {
						ReadOnlyMounts    bool     `json:"read_only_mounts"`
						ReadOnlyProtected []string `json:"read_only_protected"`
					} `json:"applied"`
				}
				if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil {
					t.Fatalf("stockade run --json: %v\n%s\n%s", err, stdout.String(), stderr.String())
				}
				if res.Exit == 126 {
					t.Fatalf("the policy stopped the attack before it ran; the test proves nothing:\n%s", stderr.String())
				}
				if res.Applied.ReadOnlyMounts && len(res.Applied.ReadOnlyProtected) == 0 {
					t.Errorf("read-only mounts were made, but none for the protected paths")
				}
				planted := a.worked(work)
				noted := strings.Contains(strings.Join(res.Notes, "\n"), "a protected file changed")
				switch {
				case len(res.Applied.ReadOnlyProtected) > 0 && planted:
					t.Errorf("the attack planted its code although the protected paths were read-only mounts:\n%s", lastLines(stderr.String(), 5))
				case planted && !noted:
					t.Errorf("the attack planted its code and the result does not say so; notes: %q", res.Notes)
				}
				// Git itself still works in the repository afterwards.
				check := id.command("git", "status", "--short")
				check.Dir = work
				if out, err := check.CombinedOutput(); err != nil && !planted {
					t.Errorf("git status after the attack: %v\n%s", err, out)
				}
			})
		}
	})
}

// TestPlantedByTask: a background task plants a hook file where no mount
// could protect it (.git/info/attributes, absent when the session started);
// the next result says so.
func TestPlantedByTask(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git")
		}
		work := id.dir(t)
		gitRepo(t, id, work)
		s := startServer(t, id, id.dir(t), work)
		s.bash(map[string]any{"command": `echo '* filter=planted' > .git/info/attributes`, "run_in_background": true})
		waitFor(t, "the task's file", func() bool { return exists(filepath.Join(work, ".git/info/attributes")) })
		notes, _ := s.bash(map[string]any{"command": "true"})["notes"].([]any)
		if !strings.Contains(fmt.Sprint(notes), ".git/info/attributes (created)") {
			t.Errorf("the next result does not name the planted file; notes: %v", notes)
		}
		notes, _ = s.bash(map[string]any{"command": "true"})["notes"].([]any)
		if len(notes) > 0 {
			t.Errorf("a change is reported twice: %v", notes)
		}
	})
}

// TestKilledRunLeavesNothing: `stockade run` is SIGKILLed while its command
// has started a child, a setsid grandchild and a double fork. The command
// itself dies with it (the parent-death signal); what it started is stopped
// by the next start of stockade, which finds them working in the dead run's
// state directory (between the two, they run: see SECURITY.md), unless it
// died with stockade already (root's PID namespace, a plain user's
// supervisor).
func TestKilledRunLeavesNothing(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id ident) {
		const spawn = `sleep 1000 & echo $! >> pids; setsid sleep 1001 & echo $! >> pids; (sleep 1002 & echo $! >> pids) ; echo $$ >> pids; wait`
		state := id.dir(t)
		work := id.dir(t)
		policy := id.policy(t)
		mark := randHex(8)
		runCmd := func(args ...string) *exec.Cmd {
			cmd := id.command(id.stockade, append([]string{"run", "--policy", policy}, args...)...)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+state, "HOME="+id.dir(t), runVar+"="+mark)
			return cmd
		}
		run := runCmd("-c", spawn)
		must(t, run.Start())
		pids := hostPids(t, mark, waitPids(t, filepath.Join(work, "pids"), 4))
		run.Process.Signal(syscall.SIGKILL)
		run.Wait()
		waitFor(t, "the command's shell to die with stockade run", func() bool { return !alive(pids[3]) })
		must(t, runCmd("--", "true").Run())
		for _, pid := range pids[:3] {
			if alive(pid) {
				t.Errorf("pid %d (%s) outlived the killed stockade run and the next start", pid, cmdline(pid))
				kill(pid)
			}
		}
		ents, _ := os.ReadDir(filepath.Join(state, "stockade"))
		if len(ents) != 0 {
			t.Errorf("state left after the next start: %v", ents)
		}
	})
}
