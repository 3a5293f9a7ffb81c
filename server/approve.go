package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/stockade/stockade/policy"
)

// The answers the approval question offers.
const (
	allowOnce       = "allow once"
	allowForSession = "allow for this session"
)

// approvals holds, per client session, the scripts a person allowed "for
// this session": exactly those texts run without asking again until the
// session ends.
type approvals struct {
	mu sync.Mutex
	m  map[string]map[string]bool
}

func (a *approvals) has(session, script string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m[session][script]
}

func (a *approvals) add(session, script string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string]map[string]bool{}
	}
	if a.m[session] == nil {
		a.m[session] = map[string]bool{}
	}
	a.m[session][script] = true
}

func (a *approvals) forget(session string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.m, session)
}

func sessionID(ctx context.Context) string {
	if cs := mcpserver.ClientSessionFromContext(ctx); cs != nil && cs.SessionID() != "" {
		return cs.SessionID()
	}
	return "stdio"
}

// askApproval asks the user, through MCP elicitation, whether a command the
// policy marks "ask" may run: once, or for the rest of this session. The
// call waits for the answer. It returns nil when the command may run, and
// otherwise the result to return.
func (s *Server) askApproval(ctx context.Context, command string, d policy.Decision) *mcp.CallToolResult {
	id := sessionID(ctx)
	if s.approvals.has(id, command) {
		s.log.Info("approved earlier for this session", "rule", d.Rule)
		return nil
	}
	if !clientCanElicit(ctx) {
		s.log.Info("approval needed but the client cannot be asked", "rule", d.Rule)
		msg := fmt.Sprintf("rule %q needs a person's approval: %s. This client cannot be asked (it does not support MCP elicitation), so nothing was run.", d.Rule, d.Reason)
		if advice := s.opts.Policy.ApprovalAdvice(command); advice != "" {
			msg += " " + advice
		}
		return toolError("APPROVAL_REQUIRED", "%s", msg)
	}
	msg := fmt.Sprintf("stockade: the policy asks for your approval before running this command.\n\nRule %q: %s\n\nCommand:\n%s", d.Rule, d.Reason, command)
	answer, err := s.mcp.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
		Message: msg,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"answer": map[string]any{
					"type": "string", "title": "Run this command?",
					"enum":        []string{allowOnce, allowForSession},
					"description": "allow once: run it this time; allow for this session: run exactly this command without asking again until the session ends. Decline to refuse.",
				},
			},
			"required": []string{"answer"},
		},
	}})
	if err != nil {
		return toolError("APPROVAL_REQUIRED", "rule %q needs a person's approval: %s; asking the user failed (%v), so nothing was run", d.Rule, d.Reason, err)
	}
	if content, ok := answer.Content.(map[string]any); ok && answer.Action == mcp.ElicitationResponseActionAccept {
		switch content["answer"] {
		case allowOnce:
			s.log.Info("approved by the user, once", "rule", d.Rule)
			return nil
		case allowForSession:
			s.log.Info("approved by the user for this session", "rule", d.Rule)
			s.approvals.add(id, command)
			return nil
		}
	}
	return toolError("APPROVAL_DENIED", "the user did not approve running this command (rule %q: %s); nothing was run", d.Rule, d.Reason)
}

func clientCanElicit(ctx context.Context) bool {
	info, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithClientInfo)
	return ok && info.GetClientCapabilities().Elicitation != nil
}
