//go:build linux

package escape

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// A plain user's stockade serve, where the host allows unprivileged user
// namespaces: the session's zygote starts in a user namespace of its own and
// gets what root gets (an IPC namespace, a network namespace with a loopback
// of its own and the egress proxy, read-only protected files), and the
// command none of the namespace's capabilities. Each attack is shown to work
// as the same user without the sandbox.

// plainUser is the suite's plain user as a server identity.
func plainUser() ident { return ident{name: "user", uid: userUID, stockade: stockade} }

// doctorHost is the host `stockade doctor --json` sees when cmd runs it.
func doctorHost(t *testing.T, cmd *exec.Cmd) (userns bool, reason string, report []protection) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	var d struct {
		Host struct {
			UserNS       bool   `json:"userns"`
			UserNSReason string `json:"userns_reason"`
		} `json:"host"`
		Report struct {
			Protections []protection `json:"protections"`
		} `json:"report"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("stockade doctor --json: %v\n%s%s", err, out, stderr.String())
	}
	return d.Host.UserNS, d.Host.UserNSReason, d.Report.Protections
}

// requireUserNS skips where the plain user gets no user namespace.
func requireUserNS(t *testing.T, id ident) {
	t.Helper()
	requireSuite(t)
	cmd := id.command(id.stockade, "doctor", "--json", "--policy", id.policy(t))
	cmd.Dir = id.dir(t)
	cmd.Env = append(os.Environ(), "HOME="+id.dir(t))
	if ok, why, _ := doctorHost(t, cmd); !ok {
		t.Skipf("the plain user gets no user namespace on this host: %s", why)
	}
}

// userNSServer starts a plain user's server in a fresh git repository.
func userNSServer(t *testing.T, args ...string) (*server, string) {
	id := plainUser()
	requireUserNS(t, id)
	work := id.dir(t)
	if _, err := exec.LookPath("git"); err == nil {
		gitRepo(t, id, work)
	} // else the tests that need git skip (the kernel matrix's guests have none)
	s := startServer(t, id, id.dir(t), work, args...)
	applied, _ := s.bash(map[string]any{"command": "true"})["applied"].(map[string]any)
	for _, k := range []string{"userns", "caps_dropped", "ipc_namespace", "netns", "read_only_mounts", "seccomp", "no_new_privs", "pid_namespace"} {
		if applied[k] != true {
			t.Fatalf("the plain user's session did not get %s: %v", k, applied)
		}
	}
	return s, work
}

// TestUserNSKernelObjects: System V shared memory with itself works; a
// segment of the same user outside is out of reach (its IPC namespace is
// another), and the command holds no capability of its user namespace.
func TestUserNSKernelObjects(t *testing.T) {
	s, _ := userNSServer(t)
	if out := s.run(tool + " shm-self && echo shm=ok"); !strings.Contains(out, "shm=ok") {
		t.Errorf("System V shared memory with itself failed in the session: %q", out)
	}
	if out := s.run(`grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status`); strings.Count(out, "0000000000000000") != 5 {
		t.Errorf("the command holds capabilities:\n%s", out)
	}
	if out := s.run(`unshare -U -r id 2>&1; unshare -n true 2>&1; echo done`); !strings.Contains(out, "done") || strings.Contains(out, "uid=0") {
		t.Errorf("the command made a user namespace of its own:\n%s", out)
	}

	k, id, secret := victimSegment(t, userUID)
	if out, err := runToolAs(t, userUID, "shm-read", strconv.Itoa(k)); !strings.Contains(out, secret) {
		t.Fatalf("without the sandbox the user does not read its segment (%v); the test proves nothing", err)
	}
	writeSegment(t, id, secret)
	if out := s.run(tool + " shm-read " + strconv.Itoa(k) + " 2>&1"); strings.Contains(out, secret) {
		t.Errorf("ESCAPE: the session read a segment outside: %q", out)
	}
	if segmentText(t, id) != secret {
		t.Errorf("ESCAPE: the session overwrote a segment outside")
	}
}

// TestUserNSLoopback: a dev server in a background task is reachable from
// the same session; a listener of the host on loopback, reachable by the
// same user without the sandbox, is not; nor is the dev server from the host.
func TestUserNSLoopback(t *testing.T) {
	if python == "" {
		t.Skip("no python3 in /usr/bin, /usr/local/bin or /bin")
	}
	s, _ := userNSServer(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := `(exec 3<>/dev/tcp/127.0.0.1/` + port + `) 2>/dev/null && echo connected || echo refused`
	if out, _ := plainUser().command("bash", "-c", connect).Output(); !strings.Contains(string(out), "connected") {
		t.Fatalf("without the sandbox the user cannot reach the host's listener (%q); the test proves nothing", out)
	}
	before := accepted.Load()
	if out := s.run(connect); !strings.Contains(out, "refused") || accepted.Load() != before {
		t.Errorf("ESCAPE: the session reached a listener of the host on loopback: %q", out)
	}

	dev := freePort(t, "127.0.0.1")
	s.bash(map[string]any{"command": python + " -m http.server " + dev + " --bind 127.0.0.1", "run_in_background": true})
	out := s.run(`for i in $(seq 100); do
  if exec 3<>/dev/tcp/127.0.0.1/` + dev + `; then printf 'GET / HTTP/1.0\r\n\r\n' >&3; head -1 <&3; exit; fi 2>/dev/null
  sleep 0.1
done; echo never up`)
	if !strings.Contains(out, "200") {
		t.Errorf("a dev server in a background task is not reachable from the same session: %q", out)
	}
	if c, err := net.Dial("tcp4", "127.0.0.1:"+dev); err == nil {
		c.Close()
		t.Errorf("the session's dev server is reachable from the host's loopback")
	}
}

// TestUserNSEgress: with network = "allowlist", the proxy reaches a listed
// name; a direct connection to the same server does not get out.
func TestUserNSEgress(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	secret := "upstream-" + randHex(8)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, secret) }))
	defer up.Close()
	port := strconv.Itoa(up.Listener.Addr().(*net.TCPAddr).Port)
	s, _ := userNSServer(t, "--allow-host", "pkg.test", "--allow-host", "127.0.0.1", "--resolve", "pkg.test=127.0.0.1")
	if out := s.run(`curl -s -m 10 http://pkg.test:` + port + `/`); !strings.Contains(out, secret) {
		t.Errorf("the proxy did not reach a listed name: %q", out)
	}
	if out := s.run(`curl -s -m 5 --noproxy '*' http://127.0.0.1:` + port + `/; echo " exit=$?"`); strings.Contains(out, secret) {
		t.Errorf("ESCAPE: a direct connection skipped the proxy: %q", out)
	}
}

// TestUserNSProtected: the plain user's session cannot plant git hooks or
// config (read-only bind mounts), and ordinary git work keeps working.
func TestUserNSProtected(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	s, work := userNSServer(t)
	for _, a := range plantAttacks {
		if a.name == "policy rewritten" || a.name == "a path the policy protects" {
			continue // the policy of this server protects neither
		}
		t.Run(a.name, func(t *testing.T) {
			control := plainUser().dir(t)
			gitRepo(t, plainUser(), control)
			cmd := plainUser().command("bash", "-c", a.script)
			cmd.Dir = control
			if out, _ := cmd.CombinedOutput(); !a.worked(control) {
				t.Fatalf("without the sandbox the attack did not work; it proves nothing:\n%s", out)
			}
			s.run(`cd ` + work + ` && ` + a.script)
			if a.worked(work) {
				t.Errorf("ESCAPE: the session planted code for later: %s", a.name)
			}
		})
	}
	res := s.bash(map[string]any{"command": `set -e; cd ` + work + `; export ` + strings.Join(gitIdentity, " ") + `
git status --short >/dev/null
echo a > a.txt; git add a.txt; git commit -qm a
git branch topic; git checkout -q topic; echo b > b.txt; git add b.txt; git commit -qm b
git checkout -q -; echo c > c.txt; git add c.txt; git commit -qm c
echo dirty >> a.txt; git stash -q; git stash pop -q; git checkout -q a.txt
git merge -q --no-edit topic
git checkout -q topic; git rebase -q -; git checkout -q -
git log --oneline | wc -l`})
	if code, _ := res["exit_code"].(float64); code != 0 {
		t.Errorf("ordinary git work failed in the session (exit %v):\n%v\n%v", code, res["stdout"], res["stderr"])
	}
}

// TestUserNSRefused: where the plain user cannot make a user namespace (here
// a namespace of the test's whose user.max_user_namespaces is 0, the kernel's
// own refusal), the session runs as before: System V IPC and loopback are
// refused by seccomp, protected files are only watched, and the report and
// doctor say why.
func TestUserNSRefused(t *testing.T) {
	requireSuite(t)
	id := plainUser()
	if exec.Command("setpriv", "--reuid", "0", "--regid", "0", "--clear-groups", "--", "true").Run() != nil {
		t.Skip("no setpriv that changes ids (util-linux's; busybox's cannot)")
	}
	// Root in a user namespace of its own that maps root and the plain user
	// to themselves sets the limit there, then becomes the plain user.
	wrap := func(argv ...string) *exec.Cmd {
		u := strconv.Itoa(id.uid)
		cmd := exec.Command("sh", append([]string{"-c", `echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --reuid ` + u + ` --regid ` + u + ` --clear-groups -- "$@"`, "sh"}, argv...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWUSER,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: id.uid, HostID: id.uid, Size: 1}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: id.uid, HostID: id.uid, Size: 1}},
			GidMappingsEnableSetgroups: true}
		return cmd
	}
	doctor := wrap(id.stockade, "doctor", "--json", "--policy", id.policy(t))
	doctor.Dir = id.dir(t)
	doctor.Env = append(os.Environ(), "HOME="+id.dir(t))
	userns, why, report := doctorHost(t, doctor)
	if userns {
		t.Fatalf("doctor says the plain user gets a user namespace with user.max_user_namespaces = 0")
	}
	if !strings.Contains(why, "max_user_namespaces") {
		t.Errorf("doctor does not say why there is no user namespace: %q", why)
	}
	for _, p := range report {
		if p.Name == "protected-files" && (p.Status != "partial" || p.By != "snapshot" || !strings.Contains(p.Note, "max_user_namespaces")) {
			t.Errorf("protected-files: %+v", p)
		}
		supervised := p.By == "seccomp + supervisor" && strings.Contains(p.Note, "System V IPC goes through stockade's supervisor")
		refused := p.By == "seccomp" && strings.Contains(p.Note, "System V IPC is refused")
		if p.Name == "kernel-objects" && !supervised && !refused {
			t.Errorf("kernel-objects: %+v", p)
		}
	}

	work := id.dir(t)
	gitRepo(t, id, work)
	state := id.dir(t)
	cmd := wrap(id.stockade, "serve", "--policy", id.policy(t), "--workdir", work)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+state, "HOME="+id.dir(t))
	s := startServerCmd(t, cmd)
	res := s.bash(map[string]any{"command": tool + " shm-self && echo shm=ok; (exec 3<>/dev/tcp/127.0.0.1/9) 2>&1; cd .git/hooks && echo planted > pre-commit; echo wrote=$?"})
	applied, _ := res["applied"].(map[string]any)
	out := fmt.Sprint(res["stdout"], res["stderr"])
	switch {
	case applied["userns"] == true || applied["ipc_namespace"] == true || applied["netns"] == true:
		t.Errorf("namespaces applied without a user namespace: %v", applied)
	case !strings.Contains(out, "wrote=0"):
		t.Errorf("without read-only mounts the hook write should succeed and be reported: %q", out)
	}
	checkSysVWithoutNamespace(t, applied["sysv_ipc"], out)
	if notes := fmt.Sprint(res["notes"]); !strings.Contains(notes, filepath.Join(".git", "hooks")) {
		t.Errorf("the result does not name the changed hook: %s", notes)
	}
}

// checkSysVWithoutNamespace checks what a command without an IPC namespace
// got of System V IPC (`"$TOOL" shm-self && echo shm=ok`), against what
// applied says held it: the supervisor lets the command use its own segments
// (attacks_sysv_linux_test.go tries the host's), and without a supervisor
// the filter refuses them.
func checkSysVWithoutNamespace(t *testing.T, held any, out string) {
	t.Helper()
	switch held {
	case "supervised":
		if !strings.Contains(out, "shm=ok") {
			t.Errorf("System V IPC is supervised but the command could not use a segment of its own: %q", out)
		}
	case "refused":
		if strings.Contains(out, "shm=ok") {
			t.Errorf("System V IPC worked without an IPC namespace or the supervisor: %q", out)
		}
	default:
		t.Errorf("applied.sysv_ipc is %v without an IPC namespace; want supervised or refused", held)
	}
}
