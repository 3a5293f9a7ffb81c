package server

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/supervise"
)

// TaskResult is the structured result of task_output and task_kill.
type TaskResult struct {
	TaskID     string               `json:"task_id"`
	Status     string               `json:"status"` // running | completed
	Output     string               `json:"output"`
	ExitCode   *int                 `json:"exit_code,omitempty"`
	Signal     string               `json:"signal,omitempty"`
	Command    string               `json:"command"`
	OutputFile string               `json:"output_file"`
	DurationMs int64                `json:"duration_ms"`
	Truncated  *pipeline.Truncation `json:"output_truncated,omitempty"`
	Notes      []string             `json:"notes,omitempty" jsonschema:"what the sandbox refused the task (a server that could not listen, a connection refused) and what would allow it, and, once it completed, code that runs outside the sandbox later and appeared in a repository stockade does not protect; as in the bash tool's notes"`
}

func taskOutputTool() mcp.Tool {
	return mcp.NewTool("task_output",
		mcp.WithDescription("Read the output of a background task started with bash run_in_background. Returns status running or completed, the output so far (the newest part when it is long), notes on what the sandbox refused it and, once completed, the exit code. A completed task is forgotten after its output was returned once."),
		mcp.WithString("task_id", mcp.Required(), mcp.Description("The task_id returned by bash.")),
		mcp.WithString("filter", mcp.Description("Only return lines matching this regular expression (RE2 syntax).")),
		mcp.WithNumber("wait", mcp.Description("Wait up to this many milliseconds for the task to finish before returning (at most 600000).")),
		mcp.WithOutputSchema[TaskResult](),
		mcp.WithReadOnlyHintAnnotation(true),
	)
}

func taskKillTool() mcp.Tool {
	return mcp.NewTool("task_kill",
		mcp.WithDescription("Stop a background task: SIGTERM to its whole process group, then SIGKILL after a grace period. Returns its final output."),
		mcp.WithString("task_id", mcp.Required(), mcp.Description("The task_id returned by bash.")),
		mcp.WithOutputSchema[TaskResult](),
		mcp.WithDestructiveHintAnnotation(true),
	)
}

func taskID(req mcp.CallToolRequest) (string, *mcp.CallToolResult) {
	id, _ := req.GetArguments()["task_id"].(string)
	if strings.TrimSpace(id) == "" {
		return "", toolError(pipeline.CodeInvalidArgument, "task_id is required: pass the task_id that bash returned for a background command")
	}
	return id, nil
}

func (s *Server) handleTaskOutput(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, bad := taskID(req)
	if bad != nil {
		return bad, nil
	}
	args := req.GetArguments()
	var filter *regexp.Regexp
	if f, ok := args["filter"].(string); ok && f != "" {
		re, err := regexp.Compile(f)
		if err != nil {
			return toolError(pipeline.CodeInvalidArgument, "filter is not a valid regular expression: %v", err), nil
		}
		filter = re
	}
	var wait time.Duration
	if v, ok := args["wait"]; ok && v != nil {
		ms, ok := v.(float64)
		if !ok || ms < 0 {
			return toolError(pipeline.CodeInvalidArgument, "wait must be a number of milliseconds (got %v)", v), nil
		}
		wait = min(time.Duration(ms)*time.Millisecond, MaxTimeout)
	}
	sess, err := s.session(ctx)
	if err != nil {
		return errorResult(err), nil
	}
	st, err := sess.Output(ctx, id, filter, wait)
	if err != nil {
		return errorResult(err), nil
	}
	res := taskResult(st)
	res.Notes = append(res.Notes, s.opts.TaskNotes(s.taskEgress(ctx, st.TaskInfo), st.Output.Text, sess.Cwd(), sess.TmpDir())...)
	return mcp.NewToolResultStructured(res, renderTask(res)), nil
}

func (s *Server) handleTaskKill(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, bad := taskID(req)
	if bad != nil {
		return bad, nil
	}
	sess, err := s.session(ctx)
	if err != nil {
		return errorResult(err), nil
	}
	st, err := sess.Kill(id)
	if err != nil {
		return errorResult(err), nil
	}
	res := taskResult(st)
	return mcp.NewToolResultStructured(res, renderTask(res)), nil
}

func taskResult(st supervise.TaskStatus) TaskResult {
	return TaskResult{TaskID: st.ID, Status: st.Status, Output: st.Output.Text, ExitCode: st.ExitCode, Signal: st.Signal,
		Command: st.Command, OutputFile: st.LogPath, DurationMs: st.DurationMs, Truncated: pipeline.Truncated(st.Output),
		Notes: pipeline.ReposNotes(st.ReposChanged, st.ReposStopped)}
}

// The text renderings say the same as the structured results, for clients that
// show only text.

func renderBash(r pipeline.Result) string {
	if r.Status == pipeline.Running {
		s := fmt.Sprintf("started background task %s (pid %d, process group %d); output goes to %s. Read it with task_output, stop it with task_kill.", r.TaskID, r.Pid, r.Pgid, r.OutputFile)
		if r.Enforcement != nil {
			s += "\n[sandbox: " + r.Enforcement.Summary() + "]"
		}
		return s
	}
	var b strings.Builder
	if r.Stdout != "" {
		b.WriteString(r.Stdout)
		if !strings.HasSuffix(r.Stdout, "\n") {
			b.WriteString("\n")
		}
	}
	if r.Stderr != "" {
		b.WriteString("[stderr]\n" + r.Stderr)
		if !strings.HasSuffix(r.Stderr, "\n") {
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "[exit code %d", *r.ExitCode)
	if r.Signal != "" {
		fmt.Fprintf(&b, ", %s", r.Signal)
	}
	if r.TimedOut {
		b.WriteString(", timed out")
	}
	fmt.Fprintf(&b, "; cwd %s; %d ms]", r.Cwd, r.DurationMs)
	for _, n := range r.Notes {
		b.WriteString("\n[note: " + n + "]")
	}
	if r.Enforcement != nil {
		b.WriteString("\n[sandbox: " + r.Enforcement.Summary() + "]")
	}
	return b.String()
}

func renderTask(r TaskResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[task %s: %s", r.TaskID, r.Status)
	if r.ExitCode != nil {
		fmt.Fprintf(&b, ", exit code %d", *r.ExitCode)
	}
	if r.Signal != "" {
		fmt.Fprintf(&b, ", %s", r.Signal)
	}
	fmt.Fprintf(&b, ", %d ms; output file %s]\n", r.DurationMs, r.OutputFile)
	b.WriteString(r.Output)
	for _, n := range r.Notes {
		b.WriteString("\n[note: " + n + "]")
	}
	return b.String()
}
