package server_test

import (
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestRunAndBashReturnTheSameResult runs the same scripts through
// `stockade run --json` and through the MCP bash tool of `stockade serve`
// (both real subprocesses, same workdir and environment) and compares the two
// results field by field. What must differ is left out: the wall time, the
// paths of the full-output files (which must exist), and the advice at the
// end of a note (each front-end names its own flag).
func TestRunAndBashReturnTheSameResult(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8"}
	s := start(t, serverOpts{dir: dir})
	s.bash("true") // the session's sandbox is up; run's is not shared with it

	tests := []struct {
		name, script string
		timeoutMs    int
	}{
		{"plain output", "echo hello; echo to-stderr >&2", 0},
		{"truncated output", "head -c 100000 /dev/zero | tr '\\0' x; echo; seq 1 20000 >&2", 0},
		{"non-zero exit", "echo failing; exit 3", 0},
		{"timeout", "echo partial; sleep 30", 300},
		{"denied", "rm -rf /", 0},
		{"empty", "  ", 0},
		{"cd", "mkdir -p sub && cd sub && pwd", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"run", "--json"}
			call := map[string]any{"command": tt.script}
			if tt.timeoutMs > 0 {
				args = append(args, "--timeout", strconv.Itoa(tt.timeoutMs)+"ms")
				call["timeout"] = tt.timeoutMs
			}
			cmd := osexec.Command(stockadeBin, append(args, "-c", tt.script)...)
			// run's full-output files outlive it: they go to a TMPDIR the test removes.
			cmd.Dir, cmd.Env = dir, append(env, "TMPDIR="+t.TempDir())
			out, _ := cmd.Output() // its own exit status is run's business
			var fromRun map[string]any
			if err := json.Unmarshal(out, &fromRun); err != nil {
				t.Fatalf("stockade run --json printed %q: %v", out, err)
			}
			res := s.call("bash", call)
			b, _ := json.Marshal(res.StructuredContent)
			var fromMCP map[string]any
			json.Unmarshal(b, &fromMCP)
			if res.IsError != (fromMCP["status"] == "error") {
				t.Errorf("isError %v but status %v", res.IsError, fromMCP["status"])
			}

			// The one documented difference: a session's cwd is where its
			// shell ended (the next call starts there); run has no next call,
			// and reports its workdir.
			if tt.name == "cd" {
				if fromMCP["cwd"] != filepath.Join(dir, "sub") || fromRun["cwd"] != dir {
					t.Errorf("cwd: MCP %v (want %s/sub), run %v (want %s)", fromMCP["cwd"], dir, fromRun["cwd"], dir)
				}
				delete(fromMCP, "cwd")
				delete(fromRun, "cwd")
			}
			// After a timeout stockade stopped the whole group itself: a
			// process still dying of its SIGTERM is not a leftover.
			if tt.name == "timeout" && (fromRun["leftovers_stopped"] != nil || fromMCP["leftovers_stopped"] != nil) {
				t.Errorf("leftovers after a timeout: run --json %v, MCP %v", fromRun["leftovers_stopped"], fromMCP["leftovers_stopped"])
			}
			for _, m := range []map[string]any{fromRun, fromMCP} {
				delete(m, "duration_ms")
				for _, stream := range []string{"stdout", "stderr"} {
					if tr, ok := m[stream+"_truncated"].(map[string]any); ok {
						p, _ := tr["full_output_path"].(string)
						if p == "" || !exists(p) {
							t.Errorf("%s: the full output %q is not there", stream, p)
						}
						delete(tr, "full_output_path")
						m[stream] = strings.ReplaceAll(m[stream].(string), p, "FULL-OUTPUT-PATH")
					}
				}
				if notes, ok := m["notes"].([]any); ok {
					for i, n := range notes {
						notes[i], _, _ = strings.Cut(n.(string), "; ")
					}
				}
				if a, ok := m["applied"].(map[string]any); ok {
					delete(a, "proc_limit") // each its own cgroup
				}
			}
			// pid_namespace too: root's run gives its command a PID
			// namespace of its own, and a session its commands one they share.
			if !reflect.DeepEqual(fromRun, fromMCP) {
				for _, k := range keys(fromRun, fromMCP) {
					if !reflect.DeepEqual(fromRun[k], fromMCP[k]) {
						t.Errorf("%s: run --json %v, MCP %v", k, show(fromRun[k]), show(fromMCP[k]))
					}
				}
			}
			if fromMCP["status"] == nil {
				t.Fatalf("no status: %v", fromMCP)
			}
		})
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func keys(ms ...map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
