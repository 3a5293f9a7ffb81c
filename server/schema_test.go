package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEveryResultFitsTheDeclaredSchema calls every tool through every path
// (foreground, non-zero exit, truncated, timed out, denied, empty, too large,
// approval required, background start, task running, completed, killed, not
// found) and validates each structuredContent against the output schema the
// tool declares, with a JSON Schema validator, as clients such as the
// TypeScript SDK do. A tool error without structuredContent is allowed only
// for the task tools; every bash result carries one.
func TestEveryResultFitsTheDeclaredSchema(t *testing.T) {
	s := start(t, serverOpts{args: []string{"--max-tasks", "2"}})
	tools, err := s.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		var sc jsonschema.Schema
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatalf("%s: output schema %s: %v", tool.Name, b, err)
		}
		if schemas[tool.Name], err = sc.Resolve(nil); err != nil {
			t.Fatalf("%s: output schema %s: %v", tool.Name, b, err)
		}
	}
	check := func(path, tool string, args map[string]any) map[string]any {
		t.Helper()
		res := s.call(tool, args)
		if res.StructuredContent == nil {
			if tool == "bash" || !res.IsError {
				t.Fatalf("%s: %s returned no structuredContent (isError %v): %s", path, tool, res.IsError, text(res))
			}
			return nil
		}
		b, _ := json.Marshal(res.StructuredContent)
		var doc map[string]any
		json.Unmarshal(b, &doc)
		if err := schemas[tool].Validate(doc); err != nil {
			t.Errorf("%s: the %s result does not fit its declared schema: %v\n%s", path, tool, err, b)
		}
		return doc
	}
	status := func(path string, doc map[string]any, want string) {
		t.Helper()
		if doc["status"] != want {
			t.Errorf("%s: status %v, want %s: %v", path, doc["status"], want, doc)
		}
	}

	status("foreground", check("foreground", "bash", map[string]any{"command": "echo hello"}), "completed")
	status("exit code", check("exit code", "bash", map[string]any{"command": "exit 3"}), "completed")
	status("truncated", check("truncated", "bash", map[string]any{"command": "head -c 100000 /dev/zero | tr '\\0' x"}), "completed")
	timedOut := check("timed out", "bash", map[string]any{"command": "sleep 30", "timeout": 200})
	if status("timed out", timedOut, "completed"); timedOut["timed_out"] != true {
		t.Errorf("timed out: %v", timedOut)
	}
	for _, c := range []struct{ path, command, code string }{
		{"denied", "rm -rf /", "POLICY_DENIED"},
		{"empty", "  ", "EMPTY_COMMAND"},
		{"too large", strings.Repeat("#", 200<<10), "INVALID_ARGUMENT"},
		{"approval required", "git push --force origin main", "APPROVAL_REQUIRED"},
	} {
		doc := check(c.path, "bash", map[string]any{"command": c.command})
		if status(c.path, doc, "error"); doc["error_code"] != c.code {
			t.Errorf("%s: error_code %v, want %s", c.path, doc["error_code"], c.code)
		}
	}

	bg := check("background", "bash", map[string]any{"command": "echo started; sleep 30", "run_in_background": true})
	status("background", bg, "running")
	id, _ := bg["task_id"].(string)
	status("task running", check("task running", "task_output", map[string]any{"task_id": id}), "running")
	check("task limit", "bash", map[string]any{"command": "sleep 30", "run_in_background": true})
	status("task limit", check("task limit", "bash", map[string]any{"command": "sleep 30", "run_in_background": true}), "error")
	status("task killed", check("task killed", "task_kill", map[string]any{"task_id": id}), "completed")

	done := check("background, short", "bash", map[string]any{"command": "echo done", "run_in_background": true})
	doneID, _ := done["task_id"].(string)
	status("task completed", check("task completed", "task_output", map[string]any{"task_id": doneID, "wait": 10000}), "completed")
	check("task not found", "task_output", map[string]any{"task_id": "task-999"})
	check("kill not found", "task_kill", map[string]any{"task_id": "task-999"})
}

// TestSizeIsJudgedBeforeAPerson: a script over the size limit is refused
// before the policy's "ask" puts it to a person.
func TestSizeIsJudgedBeforeAPerson(t *testing.T) {
	asked := 0
	s := start(t, serverOpts{elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "allow once"}}, nil
	}})
	big := "git push --force origin main\n" + strings.Repeat("# padding\n", 20<<10) // 200 KB
	s.toolErr("bash", map[string]any{"command": big}, "INVALID_ARGUMENT")
	if asked != 0 {
		t.Fatalf("a person was asked %d time(s) about a script that could never run", asked)
	}
	s.bash("git push --force origin main 2>/dev/null; true") // the same rule does ask
	if asked != 1 {
		t.Fatalf("asked %d times, want 1", asked)
	}
}
