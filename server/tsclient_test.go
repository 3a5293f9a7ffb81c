package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"
)

// TestTypeScriptSDKClient drives `stockade serve` with the official MCP
// TypeScript SDK client (testdata/tsclient, version pinned in its
// package-lock.json), which validates every structured result against the
// output schema its tool declares and throws -32602 when one does not fit.
// It needs node and `npm ci` in testdata/tsclient; .ci/run does both and sets
// STOCKADE_REQUIRE_TSCLIENT so that CI cannot skip it.
func TestTypeScriptSDKClient(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/tsclient")
	required := os.Getenv("STOCKADE_REQUIRE_TSCLIENT") != ""
	skip := func(why string) {
		if required {
			t.Fatalf("STOCKADE_REQUIRE_TSCLIENT is set, but %s", why)
		}
		t.Skip(why)
	}
	node, err := osexec.LookPath("node")
	if err != nil {
		skip("node is not installed (.ci/run installs it)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		skip("the TypeScript SDK is not installed: run npm ci in testdata/tsclient (.ci/run does)")
	}
	cmd := osexec.Command(node, filepath.Join(dir, "drive.mjs"), stockadeBin, t.TempDir())
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("the TypeScript client failed: %v\n%s", err, stderr.String())
	}

	// What each call must have returned: the result's status, or the code of
	// a tool error (which, for bash, also carries a structured result).
	want := map[string]string{
		"foreground": "completed", "exit-code": "completed", "truncated": "completed", "timed-out": "completed",
		"denied": "POLICY_DENIED", "approval-required": "APPROVAL_REQUIRED", "empty": "EMPTY_COMMAND", "too-large": "INVALID_ARGUMENT",
		"background": "running", "task-running": "running", "background-second": "running", "task-limit": "TASK_LIMIT",
		"task-killed": "completed", "background-short": "running", "task-completed": "completed",
		"task-not-found": "isError", "task-kill-not-found": "isError",
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var line struct {
			Path   string
			OK     bool
			Error  json.RawMessage
			Result struct {
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("client output %q: %v", sc.Bytes(), err)
		}
		seen[line.Path] = true
		if !line.OK {
			t.Errorf("%s: the TypeScript SDK rejected the result: %s", line.Path, line.Error)
			continue
		}
		r := line.Result
		got := "isError"
		switch {
		case r.StructuredContent == nil:
		case r.IsError:
			got, _ = r.StructuredContent["error_code"].(string)
		default:
			got, _ = r.StructuredContent["status"].(string)
		}
		if got != want[line.Path] {
			t.Errorf("%s: got %s, want %s (%+v)", line.Path, got, want[line.Path], r)
		}
	}
	for path := range want {
		if !seen[path] {
			t.Errorf("%s: no result from the TypeScript client\n%s", path, stderr.String())
		}
	}
}
