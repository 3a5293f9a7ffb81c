//go:build linux

package escape

// Who runs an attack. stockade is deployed both as root and as a plain user,
// and the sandbox differs between them (root gets namespaces and dropped
// capabilities, a plain user gets what an unprivileged process may ask for),
// so an attack can be run as both:
//
//	{name: "prlimit-victim", as: rootAndUser, ...}
//
// runs the pair of runs (without and with the sandbox) once as root and once
// as the suite's plain user, as the subtests root/ and user/. An attack with no
// as runs as root only, with the subtests at the top level, as before.
//
// The plain user is a uid no process of the host runs as, made for the test
// binary: the test process (root) starts its runs with SysProcAttr.Credential,
// in a workdir, HOME and outside directory the user owns, so that what stops an
// attack is the sandbox and not file modes. The victim process runs as the
// same user. Where strict enforcement is refused to the user on this host, its
// runs skip with the refusal from `stockade doctor --json` run as that user.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// identity is who runs the command, in both runs of an attack.
type identity struct {
	name  string // the subtest's name
	plain bool   // the plain user, not root
}

var (
	asRoot      = identity{name: "root"}
	asUser      = identity{name: "user", plain: true}
	rootAndUser = []identity{asRoot, asUser}
	// userUID is the plain user's uid (and gid), picked by setupUser.
	userUID int
)

// uid is the identity's uid; 0 for root.
func (id identity) uid() int {
	if id.plain {
		return userUID
	}
	return 0
}

var (
	// shared is a directory every uid may read and enter, with the binaries
	// the runs of another uid execute (stockade, escape-tool).
	shared string
	// tool is a copy of this test binary under the name escape-tool: attacks
	// that need a system call a shell cannot make run "$TOOL" (see tool_linux_test.go).
	tool string
)

// setupUser picks the plain user and makes the binaries reachable for it. It
// runs in TestMain, as root, after stockade is built.
func setupUser() error {
	userUID = freeUID()
	dir, err := os.MkdirTemp("", "escape-shared-")
	if err != nil {
		return err
	}
	shared = dir
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	tool = filepath.Join(dir, "escape-tool")
	if err := copyFile(exe, tool); err != nil {
		return err
	}
	// The stockade built next to the test binary is in a directory only root
	// may enter; a prebuilt one ($STOCKADE_BINARY) is used where it is.
	if os.Getenv("STOCKADE_BINARY") == "" {
		own := filepath.Join(dir, "stockade")
		if err := copyFile(stockade, own); err != nil {
			return err
		}
		stockade = own
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// freeUID returns a uid no process runs as.
func freeUID() int {
	used := map[string]bool{}
	for _, pid := range pids(func(string) bool { return true }) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				for _, u := range strings.Fields(v) {
					used[u] = true
				}
			}
		}
	}
	for uid := 62000 + os.Getpid()%1000; ; uid++ {
		if !used[strconv.Itoa(uid)] {
			return uid
		}
	}
}

// credential makes a process run as uid (nil for root).
func credential(uid int) *syscall.Credential {
	if uid == 0 {
		return nil
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), NoSetGroups: false, Groups: []uint32{}}
}

// ownedDir makes a directory for uid under a directory every uid may enter;
// it is removed after the test.
func ownedDir(t *testing.T, uid int) string {
	base, err := os.MkdirTemp("", "escape-"+strconv.Itoa(uid)+"-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	must(t, os.Chmod(base, 0o755))
	must(t, os.Chown(base, uid, uid))
	return base
}

// refusals caches, per uid, why strict enforcement is refused to it ("" when
// it is not).
var refusals sync.Map

// requireStrict skips the test when strict stockade refuses the built-in
// sandbox to uid on this host, with stockade's own reason.
func requireStrict(t *testing.T, uid int) {
	if v, ok := refusals.Load(uid); ok {
		if v != "" {
			t.Skip(v)
		}
		return
	}
	home := ownedDir(t, uid)
	cmd := exec.Command(stockade, "doctor", "--json", "--policy", filepath.Join(dataDir, "allow-all.toml"))
	cmd.Dir, cmd.Env = home, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: credential(uid)}
	out, err := cmd.Output()
	var doc struct {
		Verdict string `json:"verdict"`
		Refusal string `json:"refusal"`
	}
	if jerr := json.Unmarshal(out, &doc); jerr != nil {
		t.Fatalf("stockade doctor --json as uid %d: %v (%v)\n%s", uid, err, jerr, out)
	}
	reason := ""
	if doc.Verdict == "refused" {
		reason = fmt.Sprintf("strict stockade refuses the built-in sandbox to uid %d on this host: %s", uid, doc.Refusal)
	}
	refusals.Store(uid, reason)
	if reason != "" {
		t.Skip(reason)
	}
}
