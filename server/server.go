// Package server is stockade's MCP face: the tools `bash`, `task_output` and
// `task_kill` (github.com/mark3labs/mcp-go), one supervise.Session per client
// session, and the stdio and streamable HTTP transports.
//
// Every call goes through package pipeline, as `stockade run` does: it judges
// the script, runs it in the session's sandbox and builds the Result that is
// the bash tool's structuredContent. A tool failure (as
// opposed to a command that failed) is an isError result whose text starts with
// a stable code in brackets, such as [POLICY_DENIED] or [TASK_NOT_FOUND].
package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/stockade/stockade/netproxy"
	"github.com/stockade/stockade/pipeline"
	"github.com/stockade/stockade/sandbox"
	"github.com/stockade/stockade/supervise"
)

// MaxTimeout is the longest a foreground command may run.
const MaxTimeout = 600 * time.Second

// Options configure a Server.
type Options struct {
	Version string
	// Setup is the prepared pipeline: policy, workdir, sandbox spec, the
	// report of what it enforces on this host, and the scrubbed environment.
	*pipeline.Setup
	Timeout  time.Duration // default per-command timeout (default 120s)
	NoBash   bool          // list no tools at all
	MaxTasks int           // running background tasks per session (default 10)
	Truncate supervise.Truncation
	Grace    time.Duration // SIGTERM to SIGKILL (default supervise.DefaultGrace)
	Logger   *slog.Logger
	// IdleTimeout closes HTTP sessions unused for this long (default 30m).
	IdleTimeout time.Duration
}

// Server serves the tools to any number of client sessions.
type Server struct {
	opts Options
	mcp  *mcpserver.MCPServer
	log  *slog.Logger

	mu       sync.Mutex
	sessions map[string]*clientSession
	closed   bool

	approvals approvals // commands approved "for this session", per client session
}

// clientSession is one client's supervise.Session and when it was last used.
type clientSession struct {
	egress  netproxy.Recorder // what the proxy did for this session's commands
	grants  netproxy.Grants   // the hosts the policy grants single calls
	proxy   net.Listener      // the proxy's listener on the host's loopback (connect supervisor); nil: none
	once    sync.Once
	exec    *supervise.Session
	err     error
	lastUse time.Time
}

// New builds the server and registers the tools.
func New(opts Options) *Server {
	if opts.Timeout <= 0 {
		opts.Timeout = 120 * time.Second
	}
	opts.Timeout = min(opts.Timeout, MaxTimeout)
	if opts.MaxTasks <= 0 {
		opts.MaxTasks = 10
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Network == "" {
		opts.Network = "on"
		if opts.Spec.NetworkOff {
			opts.Network = "off"
		}
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 30 * time.Minute
	}
	s := &Server{opts: opts, log: opts.Logger, sessions: map[string]*clientSession{}}
	s.mcp = mcpserver.NewMCPServer("stockade", opts.Version,
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithElicitation(),
		mcpserver.WithRecovery(),
		mcpserver.WithToolFilter(s.describeForSession),
		mcpserver.WithInstructions("stockade runs shell commands in a kernel sandbox under a policy. "+
			"Use the bash tool; long-running servers and watchers go in the background (run_in_background), "+
			"then read them with task_output and stop them with task_kill."),
	)
	if !opts.NoBash {
		s.mcp.AddTool(bashTool(s.description(opts.Workdir)), s.handleBash)
		s.mcp.AddTool(taskOutputTool(), s.handleTaskOutput)
		s.mcp.AddTool(taskKillTool(), s.handleTaskKill)
	}
	return s
}

// MCP is the underlying mcp-go server, for transports.
func (s *Server) MCP() *mcpserver.MCPServer { return s.mcp }

// session returns the supervise.Session of the client that made this request,
// starting it (and its sandbox) on first use.
func (s *Server) session(ctx context.Context) (*supervise.Session, error) {
	id := sessionID(ctx)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, &supervise.Error{Kind: supervise.ErrSessionClosed, Msg: "the server is shutting down"}
	}
	cs, ok := s.sessions[id]
	if !ok {
		cs = &clientSession{}
		s.sessions[id] = cs
	}
	cs.lastUse = time.Now()
	s.mu.Unlock()
	cs.once.Do(func() {
		var egress func(net.Listener)
		if p := s.opts.Egress; p != nil {
			egress = func(ln net.Listener) { p.Serve(ln, &cs.grants, cs.egress.Record) }
		}
		// Without a network namespace, a proxy port of the session's own
		// on the host's loopback, the one address its connect supervisor
		// lets its commands reach.
		var spec sandbox.Spec
		var env []string
		if cs.proxy, spec, env, cs.err = s.opts.HostProxy(s.opts.Spec, s.opts.Env, cs.egress.Record); cs.err != nil {
			return
		}
		if cs.proxy != nil {
			cs.grants.Addr = cs.proxy.Addr().String()
			go egress(cs.proxy)
		}
		cs.exec, cs.err = supervise.NewSession(supervise.Config{
			Workdir: s.opts.Workdir, Spec: spec, Env: env, MaxTasks: s.opts.MaxTasks,
			Truncate: s.opts.Truncate, Grace: s.opts.Grace, Egress: egress,
		})
		if cs.err != nil && cs.proxy != nil {
			cs.proxy.Close()
		}
		if cs.err == nil {
			s.log.Info("session started", "session", id, "sandbox", fmt.Sprintf("%+v", cs.exec.Applied()))
		}
	})
	if cs.err != nil {
		s.mu.Lock()
		delete(s.sessions, id) // the next call tries again
		s.mu.Unlock()
		return nil, &supervise.Error{Kind: supervise.ErrSessionStart, Msg: cs.err.Error()}
	}
	return cs.exec, nil
}

// started is the session behind ctx, nil before its first call.
func (s *Server) started(ctx context.Context) *clientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[sessionID(ctx)]
}

// callEgress is what the proxy and the connect supervisor did for the
// session behind ctx since t, less what the supervisor saw its background
// tasks do (each task's process group): the foreground call that started
// at t did the rest, or a task that left its process group (whose events
// the proxy's, which name no process, the call takes too).
func (s *Server) callEgress(ctx context.Context, sess *supervise.Session, t time.Time) []netproxy.Event {
	cs := s.started(ctx)
	if cs == nil {
		return nil
	}
	tasks := map[int]bool{}
	for _, ti := range sess.Tasks() {
		tasks[ti.Pgid] = true
	}
	return slices.DeleteFunc(cs.egress.Since(t), func(e netproxy.Event) bool { return e.Pgid != 0 && tasks[e.Pgid] })
}

// taskEgress is what the connect supervisor saw background task ti do.
func (s *Server) taskEgress(ctx context.Context, ti supervise.TaskInfo) []netproxy.Event {
	cs := s.started(ctx)
	if cs == nil {
		return nil
	}
	return slices.DeleteFunc(cs.egress.Since(ti.Started), func(e netproxy.Event) bool { return e.Pgid == 0 || e.Pgid != ti.Pgid })
}

// grants are the per-call grants of the session behind ctx; nil before it
// started.
func (s *Server) grants(ctx context.Context) *netproxy.Grants {
	cs := s.started(ctx)
	if cs == nil {
		return nil
	}
	return &cs.grants
}

// currentCwd is the cwd of the session behind ctx, or the workdir before its first call.
func (s *Server) currentCwd(ctx context.Context) string {
	cs := s.started(ctx)
	if cs != nil && cs.exec != nil {
		return cs.exec.Cwd()
	}
	return s.opts.Workdir
}

// describeForSession renders the bash tool's description with the cwd of the
// session that lists the tools.
func (s *Server) describeForSession(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	for i := range tools {
		if tools[i].Name == "bash" {
			tools[i].Description = s.description(s.currentCwd(ctx))
		}
	}
	return tools
}

// closeSession stops one client's commands and sandbox.
func (s *Server) closeSession(id string) {
	s.mu.Lock()
	cs := s.sessions[id]
	delete(s.sessions, id)
	s.mu.Unlock()
	s.approvals.forget(id)
	if cs != nil && cs.exec != nil {
		cs.exec.Close()
		s.log.Info("session closed", "session", id)
	}
	if cs != nil && cs.proxy != nil {
		cs.proxy.Close()
	}
}

// closeIdle closes sessions unused for longer than the idle timeout.
func (s *Server) closeIdle() {
	s.mu.Lock()
	var idle []string
	for id, cs := range s.sessions {
		if time.Since(cs.lastUse) > s.opts.IdleTimeout {
			idle = append(idle, id)
		}
	}
	s.mu.Unlock()
	for _, id := range idle {
		s.closeSession(id)
	}
}

// Close stops every session: no process a command started outlives the server.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() { defer wg.Done(); s.closeSession(id) }()
	}
	wg.Wait()
}

// stdioWorkers is how many tool calls one stdio client may have in flight.
// mcp-go's default is 5, and a sixth call (parallel tool calls of an agent, a
// task_output that waits) would queue behind them.
const stdioWorkers = 64

// ServeStdio serves one client over in and out until in closes or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	defer s.Close()
	stdio := mcpserver.NewStdioServer(s.mcp)
	mcpserver.WithWorkerPoolSize(stdioWorkers)(stdio)
	stdio.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	return stdio.Listen(ctx, in, out)
}
