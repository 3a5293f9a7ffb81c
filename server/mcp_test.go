package server_test

// These tests start `stockade serve` as a real subprocess and drive it with an
// independent MCP client (github.com/modelcontextprotocol/go-sdk), the way an
// agent meets it. Each seed scenario of the bash tool specs has a test here.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stockade/stockade/internal/leakcheck"
)

var stockadeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stockade-bin-")
	if err != nil {
		panic(err)
	}
	stockadeBin = filepath.Join(dir, "stockade")
	build := osexec.Command("go", "build", "-o", stockadeBin, "../cmd/stockade")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building stockade:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	leakcheck.Main(m)
}

type serverOpts struct {
	args        []string
	env         []string // added to a minimal environment
	dir         string
	elicit      func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	onProgress  func(*mcp.ProgressNotificationParams)
	keepProcess bool // do not close the session at the end of the test
}

type server struct {
	t       *testing.T
	dir     string // the workdir: writable inside the sandbox
	session *mcp.ClientSession
	cmd     *osexec.Cmd
	stderr  *lockedBuffer
}

func start(t *testing.T, o serverOpts) *server {
	t.Helper()
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	cmd := osexec.Command(stockadeBin, append([]string{"serve"}, o.args...)...)
	cmd.Dir = o.dir
	home := t.TempDir()
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8"}, o.env...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	copts := &mcp.ClientOptions{ElicitationHandler: o.elicit}
	if o.onProgress != nil {
		copts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { o.onProgress(r.Params) }
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "stockade-test", Version: "1"}, copts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	s := &server{t: t, dir: o.dir, session: session, cmd: cmd, stderr: stderr}
	if !o.keepProcess {
		t.Cleanup(func() { session.Close() })
	}
	return s
}

// call calls a tool and returns the result; it fails the test on protocol errors.
func (s *server) call(tool string, args map[string]any) *mcp.CallToolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s %v: %v\nstderr:\n%s", tool, args, err, s.stderr.String())
	}
	return res
}

// bashResult is the structured result, decoded the way a client would.
type bashResult struct {
	Stdout          string          `json:"stdout"`
	Stderr          string          `json:"stderr"`
	ExitCode        int             `json:"exit_code"`
	Signal          string          `json:"signal"`
	TimedOut        bool            `json:"timed_out"`
	Cwd             string          `json:"cwd"`
	DurationMs      int64           `json:"duration_ms"`
	StdoutTruncated *truncation     `json:"stdout_truncated"`
	StderrTruncated *truncation     `json:"stderr_truncated"`
	Leftovers       int             `json:"leftovers_stopped"`
	Notes           []string        `json:"notes"`
	TaskID          string          `json:"task_id"`
	Pid             int             `json:"pid"`
	Pgid            int             `json:"pgid"`
	OutputFile      string          `json:"output_file"`
	Status          string          `json:"status"`
	Output          string          `json:"output"`
	Enforcement     json.RawMessage `json:"enforcement"`
}

type truncation struct {
	TotalBytes int64  `json:"total_bytes"`
	FullOutput string `json:"full_output_path"`
}

func decode(t *testing.T, res *mcp.CallToolResult) bashResult {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	var r bashResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return r
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (s *server) bash(command string, extra ...any) bashResult {
	s.t.Helper()
	args := map[string]any{"command": command}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	return decode(s.t, s.call("bash", args))
}

// toolErr calls a tool that must fail as a tool, and returns its text.
func (s *server) toolErr(tool string, args map[string]any, code string) string {
	s.t.Helper()
	res := s.call(tool, args)
	if !res.IsError || !strings.HasPrefix(text(res), "["+code+"]") {
		s.t.Fatalf("%s %v: want isError [%s], got isError=%v %q", tool, args, code, res.IsError, text(res))
	}
	return text(res)
}

func TestSimpleCommands(t *testing.T) {
	s := start(t, serverOpts{})
	tests := []struct {
		command        string
		stdout, stderr string
		code           int
	}{
		{"echo hello", "hello\n", "", 0},
		{"exit 42", "", "", 42},
		{"echo err >&2", "", "err\n", 0},
		{`printf '\033[1;32mgreen\033[0m\n'`, "green\n", "", 0},
		{`printf 'bad \377 utf8\n'`, "bad \ufffd utf8\n", "", 0},
		{"[[ -n $BASH_VERSION ]] && echo bash", "bash\n", "", 0},
		{"read x; echo \"[$x]\" $?", "[] 1\n", "", 0},
	}
	s.toolErr("bash", map[string]any{"command": "if then"}, "POLICY_DENIED") // what bash cannot parse does not run
	for _, tt := range tests {
		r := s.bash(tt.command)
		if r.Stdout != tt.stdout || r.ExitCode != tt.code || (tt.stderr != "" && r.Stderr != tt.stderr) {
			t.Errorf("%q: stdout %q stderr %q exit %d; want %q %q %d", tt.command, r.Stdout, r.Stderr, r.ExitCode, tt.stdout, tt.stderr, tt.code)
		}
	}
}

func TestCwdPersistence(t *testing.T) {
	dir := t.TempDir()
	s := start(t, serverOpts{dir: dir})
	if r := s.bash("pwd"); r.Stdout != dir+"\n" || r.Cwd != dir {
		t.Fatalf("initial cwd: stdout %q cwd %q, want the launch directory %s", r.Stdout, r.Cwd, dir)
	}
	s.bash("cd /tmp")
	if r := s.bash("pwd"); r.Stdout != "/tmp\n" {
		t.Fatalf("after cd /tmp: %q", r.Stdout)
	}
	// Output that looks like a tracker's report is the command's own.
	r := s.bash("echo __BORIS_CWD__; printf 'stockade-report-0\\0/etc\\0'; echo /usr")
	if r.Stdout != "__BORIS_CWD__\nstockade-report-0\x00/etc\x00/usr\n" || r.Cwd != "/tmp" {
		t.Fatalf("stdout %q cwd %q", r.Stdout, r.Cwd)
	}
	// Comments, heredocs, multi-line scripts, exit and background jobs keep tracking.
	for _, script := range []string{
		"cd /usr # a comment",
		"cat <<'EOF' >/dev/null\ncd /nowhere\nEOF\ncd /usr",
		"cd /\ncd usr\n",
		"cd /usr; exit 7",
		"cd /usr & cd /usr",
	} {
		s.bash("cd /tmp")
		if r := s.bash(script); r.Cwd != "/usr" {
			t.Errorf("%q: cwd %q, want /usr", script, r.Cwd)
		}
	}
	// A timed-out command does not move the session.
	s.bash("cd /tmp")
	if r := s.bash("cd / && sleep 10", "timeout", 300); !r.TimedOut || r.Cwd != "/tmp" {
		t.Fatalf("timed out %v, cwd %q; want the cwd unchanged", r.TimedOut, r.Cwd)
	}
}

func TestCustomWorkdirAndDescription(t *testing.T) {
	// Not /tmp: it holds HOME (a t.TempDir), and such a workdir is refused.
	workdir := t.TempDir()
	s := start(t, serverOpts{args: []string{"--workdir=" + workdir}})
	tools, err := s.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var desc string
	for _, tool := range tools.Tools {
		if tool.Name == "bash" {
			desc = tool.Description
			if tool.OutputSchema == nil {
				t.Error("bash declares no output schema")
			}
		}
	}
	if !strings.Contains(desc, workdir) || !strings.Contains(desc, "run_in_background") {
		t.Errorf("the description does not give the cwd and background use: %q", desc)
	}
	if r := s.bash("pwd"); r.Stdout != workdir+"\n" {
		t.Fatalf("pwd %q", r.Stdout)
	}
	s.bash("cd /usr")
	tools, _ = s.session.ListTools(context.Background(), nil)
	for _, tool := range tools.Tools {
		if tool.Name == "bash" && !strings.Contains(tool.Description, "directory is /usr") {
			t.Errorf("the description does not follow the cwd: %q", tool.Description)
		}
	}
}

func TestEnvironmentPersistsAndSecretsAreScrubbed(t *testing.T) {
	s := start(t, serverOpts{env: []string{"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "DB_PASSWORD=hunter2",
		"AWS_SECRET_ACCESS_KEY=abc", "INNOCENT=sk-ant-abcdefghijklmnopqrstuvwxyz", "KEEP_ME=1"}})
	s.bash("export FOO=bar")
	if r := s.bash("echo $FOO"); r.Stdout != "bar\n" {
		t.Fatalf("exported variable not kept: %q", r.Stdout)
	}
	// The analysis refuses the whole environment printed (a secret the
	// scrubber does not recognise would show with it); the scrubbed
	// environment is seen through a project script, whose text it does not read.
	if msg := s.toolErr("bash", map[string]any{"command": "env"}, "POLICY_DENIED"); !strings.Contains(msg, "environment-printed") {
		t.Errorf("env refused by another rule: %s", msg)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "show-env.sh"), []byte("env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := s.bash("sh show-env.sh")
	for _, secret := range []string{"GITHUB_TOKEN", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "INNOCENT", "hunter2"} {
		if strings.Contains(r.Stdout, secret) {
			t.Errorf("%s reached the command", secret)
		}
	}
	for _, kept := range []string{"PATH=", "HOME=", "LANG=", "KEEP_ME=1", "TMPDIR="} {
		if !strings.Contains(r.Stdout, kept) {
			t.Errorf("%s was removed", kept)
		}
	}
	log := s.stderr.String()
	if !strings.Contains(log, "GITHUB_TOKEN") || strings.Contains(log, "ghp_abc") || strings.Contains(log, "hunter2") {
		t.Errorf("the log must name removed variables, never their values:\n%s", log)
	}
}

func TestTimeout(t *testing.T) {
	s := start(t, serverOpts{args: []string{"--timeout", "1"}})
	dir := s.dir
	startAt := time.Now()
	r := s.bash("echo before; sleep 300 & echo $! >" + dir + "/child; sleep 300")
	if !r.TimedOut || r.Stdout != "before\n" {
		t.Fatalf("timed out %v, stdout %q", r.TimedOut, r.Stdout)
	}
	if d := time.Since(startAt); d > 4*time.Second {
		t.Fatalf("the default --timeout 1 took %v", d)
	}
	assertDead(t, readPid(t, dir+"/child"))

	// SIGTERM first: a handler's cleanup output is kept.
	r = s.bash("trap 'echo cleanup; exit 0' TERM; echo ready; sleep 30 & wait", "timeout", 500)
	if !r.TimedOut || !strings.Contains(r.Stdout, "cleanup") || r.Signal == "SIGKILL" {
		t.Fatalf("graceful: %+v", r)
	}
	// SIGKILL after the 5 s grace period when SIGTERM is ignored.
	startAt = time.Now()
	r = s.bash("trap '' TERM; sleep 30 & wait; sleep 30", "timeout", 300)
	d := time.Since(startAt)
	if !r.TimedOut || d < 5*time.Second || d > 9*time.Second {
		t.Fatalf("ignored SIGTERM: timed out %v after %v (want SIGKILL after about 5.3 s)", r.TimedOut, d)
	}
}

func TestTimeoutArguments(t *testing.T) {
	s := start(t, serverOpts{})
	if r := s.bash("echo ok", "timeout", 900000); r.Stdout != "ok\n" {
		t.Fatalf("a timeout above the cap must be clamped, not refused: %+v", r)
	}
	bad := []map[string]any{
		{"command": "true", "timeout": -5},
		{"command": "true", "timeout": "soon"},
		{"command": "true", "mode": "background", "run_in_background": false},
		{"command": "true", "mode": "slow", "run_in_background": true},
		{"command": "true", "mode": "slow", "timeout": 1000},
		{"command": "true", "mode": "fast"},
		{"command": "true", "bogus": 1},
	}
	for _, args := range bad {
		s.toolErr("bash", args, "INVALID_ARGUMENT")
	}
	s.toolErr("bash", map[string]any{"command": "  \n"}, "EMPTY_COMMAND")
	if r := s.bash("echo slow", "mode", "slow"); r.Stdout != "slow\n" {
		t.Fatalf("mode slow: %+v", r)
	}
}

func TestTruncation(t *testing.T) {
	s := start(t, serverOpts{})
	r := s.bash("head -c 50000 /dev/zero | tr '\\0' x; head -c 10000 /dev/zero | tr '\\0' y >&2")
	if r.StdoutTruncated == nil || r.StdoutTruncated.TotalBytes != 50000 {
		t.Fatalf("stdout truncation: %+v", r.StdoutTruncated)
	}
	if !strings.HasPrefix(r.Stdout, strings.Repeat("x", 30000)+"\n\n[stockade: output truncated: 50000 bytes") {
		t.Fatalf("stdout does not keep the first 30000 characters and a notice: ...%q", r.Stdout[29990:min(len(r.Stdout), 30100)])
	}
	if full, err := os.ReadFile(r.StdoutTruncated.FullOutput); err != nil || len(full) != 50000 {
		t.Fatalf("full output file: %d bytes, %v", len(full), err)
	}
	if r.StderrTruncated != nil || len(r.Stderr) != 10000 {
		t.Fatalf("stderr must be complete: %d characters", len(r.Stderr))
	}
	r = s.bash("head -c 40000 /dev/zero | tr '\\0' e >&2; head -c 5000 /dev/zero | tr '\\0' o")
	if r.StderrTruncated == nil || r.StdoutTruncated != nil || len(r.Stdout) != 5000 {
		t.Fatalf("streams are not truncated independently")
	}
	// The cwd is tracked even when the output is long.
	if r := s.bash("head -c 100000 /dev/zero; cd /usr"); r.Cwd != "/usr" {
		t.Fatalf("cwd %q", r.Cwd)
	}
	m := start(t, serverOpts{args: []string{"--truncate=middle"}})
	r = m.bash("seq 1 20000")
	if !strings.HasPrefix(r.Stdout, "1\n2\n") || !strings.Contains(r.Stdout, "\n19999\n20000\n") {
		t.Fatalf("middle truncation keeps head and tail: %q ... %q", r.Stdout[:20], r.Stdout[len(r.Stdout)-200:])
	}
}

func TestLeftoverChildDoesNotHoldTheCall(t *testing.T) {
	s := start(t, serverOpts{})
	dir := s.dir
	startAt := time.Now()
	r := s.bash("sleep 100 & echo $! > " + dir + "/a; (setsid sleep 101 & echo $! > " + dir + "/b); echo done")
	if time.Since(startAt) > 3*time.Second || r.Stdout != "done\n" {
		t.Fatalf("took %v, stdout %q", time.Since(startAt), r.Stdout)
	}
	if r.Leftovers < 2 || !strings.Contains(strings.Join(r.Notes, " "), "run_in_background") {
		t.Fatalf("leftovers %d, notes %q", r.Leftovers, r.Notes)
	}
	assertDead(t, readPid(t, dir+"/a"))
	assertDead(t, readPid(t, dir+"/b"))
}

func TestBackgroundTasks(t *testing.T) {
	s := start(t, serverOpts{})
	before := s.bash("pwd").Stdout
	startAt := time.Now()
	r := decode(t, s.call("bash", map[string]any{"command": "cd /; echo one; sleep 1; echo two", "run_in_background": true}))
	if time.Since(startAt) > 2*time.Second || r.TaskID == "" || r.Pid == 0 || r.OutputFile == "" {
		t.Fatalf("background start: %+v after %v", r, time.Since(startAt))
	}
	st := decode(t, s.call("task_output", map[string]any{"task_id": r.TaskID}))
	if st.Status != "running" {
		t.Fatalf("status %q, want running", st.Status)
	}
	st = decode(t, s.call("task_output", map[string]any{"task_id": r.TaskID, "wait": 10000, "filter": "^t"}))
	if st.Status != "completed" || st.Output != "two\n" {
		t.Fatalf("completed: %+v", st)
	}
	log, _ := os.ReadFile(r.OutputFile)
	if !strings.Contains(string(log), "one\ntwo\n") || !strings.Contains(string(log), "exited with code 0") {
		t.Fatalf("output file %q", log)
	}
	s.toolErr("task_output", map[string]any{"task_id": r.TaskID}, "TASK_NOT_FOUND")
	s.toolErr("task_kill", map[string]any{"task_id": "task-999"}, "TASK_NOT_FOUND")
	if got := s.bash("pwd").Stdout; got != before {
		t.Fatalf("a background cd moved the session to %q", got)
	}
	// Kill stops the whole group.
	dir := s.dir
	k := decode(t, s.call("bash", map[string]any{"command": "sleep 200 & echo $! > " + dir + "/c; wait", "mode": "background"}))
	waitFor(t, dir+"/c")
	killed := decode(t, s.call("task_kill", map[string]any{"task_id": k.TaskID}))
	if killed.Status != "completed" {
		t.Fatalf("kill: %+v", killed)
	}
	assertDead(t, readPid(t, dir+"/c"))
}

func TestBackgroundTaskLimit(t *testing.T) {
	s := start(t, serverOpts{})
	for i := range 10 {
		decode(t, s.call("bash", map[string]any{"command": fmt.Sprintf("sleep %d", 100+i), "run_in_background": true}))
	}
	msg := s.toolErr("bash", map[string]any{"command": "sleep 1", "run_in_background": true}, "TASK_LIMIT")
	if !strings.Contains(msg, "sleep 100") || !strings.Contains(msg, "task-1") {
		t.Fatalf("the limit error must list the running tasks: %s", msg)
	}
}

func TestProgressNotifications(t *testing.T) {
	var mu sync.Mutex
	var got []string
	s := start(t, serverOpts{onProgress: func(p *mcp.ProgressNotificationParams) {
		mu.Lock()
		got = append(got, p.Message)
		mu.Unlock()
	}})
	params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "for i in 1 2 3; do echo line$i; sleep 0.3; done"}}
	params.SetProgressToken("tok-1")
	res, err := s.session.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	r := decode(t, res)
	if r.Stdout != "line1\nline2\nline3\n" {
		t.Fatalf("the final result must be complete on its own: %q", r.Stdout)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(got, "")
	if len(got) < 2 || !strings.Contains(all, "line1") || strings.Contains(all, "stockade-report") {
		t.Fatalf("progress messages %q", got)
	}
}

func TestCancelledCallStopsTheCommand(t *testing.T) {
	s := start(t, serverOpts{})
	dir := s.dir
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFor(t, dir+"/p")
		cancel()
	}()
	_, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep 100 & echo $! > " + dir + "/p; wait"}})
	if err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	pid := readPid(t, dir+"/p")
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	assertDead(t, pid)
}

func TestNoBash(t *testing.T) {
	s := start(t, serverOpts{args: []string{"--no-bash"}})
	tools, err := s.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 0 {
		t.Fatalf("--no-bash lists %d tools", len(tools.Tools))
	}
}

func TestPolicyDenialRunsNothing(t *testing.T) {
	s := start(t, serverOpts{})
	canary := filepath.Join(s.dir, "canary")
	os.WriteFile(canary, []byte("alive"), 0o644)
	msg := s.toolErr("bash", map[string]any{"command": "echo hi > " + canary + "; rm -rf /"}, "POLICY_DENIED")
	if !strings.Contains(msg, "rm -rf /") {
		t.Fatalf("the denial must name the offending command: %s", msg)
	}
	if b, _ := os.ReadFile(canary); string(b) != "alive" {
		t.Fatalf("a denied script ran: the canary says %q", b)
	}
}

// TestAskUsesElicitation: an ask is put to the user, who may allow it once
// or for the rest of the session; a client that cannot be asked gets the
// rule that would allow exactly that command.
func TestAskUsesElicitation(t *testing.T) {
	var asked []string
	answer := "allow once"
	s := start(t, serverOpts{elicit: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, r.Params.Message)
		schema, _ := json.Marshal(r.Params.RequestedSchema)
		if !strings.Contains(string(schema), `"allow once"`) || !strings.Contains(string(schema), `"allow for this session"`) {
			t.Errorf("the question must offer both answers: %s", schema)
		}
		if answer == "decline" {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
	}})
	const push = "git push --force origin main 2>/dev/null; echo ran"
	r := s.bash(push)
	if r.Stdout != "ran\n" || len(asked) != 1 {
		t.Fatalf("approved once: stdout %q, asked %d times", r.Stdout, len(asked))
	}
	answer = "decline"
	s.toolErr("bash", map[string]any{"command": push}, "APPROVAL_DENIED") // once was once
	if len(asked) != 2 {
		t.Fatalf("asked %d times, want 2", len(asked))
	}
	answer = "allow for this session"
	if r := s.bash(push); r.Stdout != "ran\n" {
		t.Fatalf("approved for the session: stdout %q", r.Stdout)
	}
	answer = "decline"
	if r := s.bash(push); r.Stdout != "ran\n" || len(asked) != 3 {
		t.Fatalf("approved for the session, run again: stdout %q, asked %d times, want 3", r.Stdout, len(asked))
	}
	// Only exactly that command: another one is asked about again.
	s.toolErr("bash", map[string]any{"command": "git push --force origin dev; echo ran"}, "APPROVAL_DENIED")

	plain := start(t, serverOpts{})
	msg := plain.toolErr("bash", map[string]any{"command": "git push --force origin main"}, "APPROVAL_REQUIRED")
	if !strings.Contains(msg, "override = 'git-push-force'") || !strings.Contains(msg, "script = ['git push --force origin main']") {
		t.Fatalf("the error must give the rule that allows exactly this command: %s", msg)
	}
}

func TestSessionEndStopsEveryProcess(t *testing.T) {
	dir := t.TempDir()
	s := start(t, serverOpts{dir: dir, keepProcess: true})
	decode(t, s.call("bash", map[string]any{"command": "sleep 300 & echo $! > " + dir + "/bg; wait", "run_in_background": true}))
	decode(t, s.call("bash", map[string]any{"command": "setsid sleep 301 & echo $! > " + dir + "/bg2; wait", "run_in_background": true}))
	waitFor(t, dir+"/bg")
	waitFor(t, dir+"/bg2")
	s.session.Close() // closes stdin
	assertDead(t, readPid(t, dir+"/bg"))
	assertDead(t, readPid(t, dir+"/bg2"))

	// SIGTERM to the server does the same.
	s2 := start(t, serverOpts{dir: dir, keepProcess: true})
	decode(t, s2.call("bash", map[string]any{"command": "sleep 302 & echo $! > " + dir + "/bg3; wait", "run_in_background": true}))
	waitFor(t, dir+"/bg3")
	s2.cmd.Process.Signal(syscall.SIGTERM)
	assertDead(t, s2.cmd.Process.Pid) // the client's transport reaps it
	assertDead(t, readPid(t, dir+"/bg3"))
	s2.session.Close()
}

// helpers

// readPid reads the pid a session's command wrote to path, and returns the
// host's pid of that process: where the session has a PID namespace of its
// own, the pid the command sees is the namespace's. It is looked for among
// this test's descendants (a session's processes are below its server); a
// process gone already is -1, which no process is.
func readPid(t *testing.T, path string) int {
	t.Helper()
	waitFor(t, path)
	b, _ := os.ReadFile(path)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %s: %q", path, b)
	}
	return hostPid(pid)
}

// hostPid is the pid of the live descendant of this process whose
// innermost pid (the last of NSpid) is inner; -1 when there is none.
func hostPid(inner int) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		var nspid []string
		ppid := 0
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
				nspid = strings.Fields(v)
			}
			if v, ok := strings.CutPrefix(line, "PPid:"); ok {
				ppid, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if len(nspid) == 0 || nspid[len(nspid)-1] != strconv.Itoa(inner) {
			continue
		}
		for p := ppid; p > 1; p = parentOf(p) {
			if p == os.Getpid() {
				return pid
			}
		}
	}
	return -1
}

// parentOf is the parent of pid, 0 when it is gone.
func parentOf(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

func waitFor(t *testing.T, path string) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%s never appeared", path)
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && !strings.HasPrefix(string(b[i+2:]), "Z")
}

func assertDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
		t.Fatalf("process %d outlived its command", pid)
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestKillingTheSupervisorStopsEverything(t *testing.T) {
	s := start(t, serverOpts{})
	dir := s.dir
	// The command's parent is the session's sandbox supervisor. The command
	// may not signal it (escape/attacks_threads_linux_test.go), but the OOM
	// killer or an operator may kill it: nothing the command started may
	// survive that, and the call says what happened.
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{
			"command": "setsid sleep 300 & echo $! > " + dir + "/orphan; echo $PPID > " + dir + "/supervisor; sleep 5"}})
		if err != nil {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()
	orphan := readPid(t, dir+"/orphan")
	supervisor := readPid(t, dir+"/supervisor")
	if orphan <= 0 || supervisor <= 0 {
		t.Fatalf("the orphan (%d) or the supervisor (%d) is not found", orphan, supervisor)
	}
	if p, err := os.FindProcess(supervisor); err == nil {
		p.Kill()
	}
	res := <-done
	if msg := text(res); !res.IsError || !strings.HasPrefix(msg, "[SANDBOX_FAILED]") || !strings.Contains(msg, "stopped") {
		t.Errorf("want isError [SANDBOX_FAILED] saying what happened, got isError=%v %q", res.IsError, msg)
	}
	assertDead(t, orphan)
	// The next call gets a new supervisor.
	if r := s.bash("echo again"); r.Stdout != "again\n" {
		t.Fatalf("after the supervisor died: %+v", r)
	}
}
