package supervise

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCallEnvNotCarried: a variable set for one call is there for that call
// (foreground and background), and the next call has the session's value
// again, even though the call exported it; a value the call itself set is
// the session's from then on, as any export is.
func TestCallEnvNotCarried(t *testing.T) {
	s := newTestSession(t, Config{})
	run(t, s, "export PROXY=session")
	call := func(script string, env ...string) string {
		t.Helper()
		res, err := s.Run(context.Background(), Request{Script: script, Timeout: 10 * time.Second, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(res.Stdout.Text)
	}
	if got := call(`echo "$PROXY $GRANT"; export PROXY GRANT`, "PROXY=call", "GRANT=token"); got != "call token" {
		t.Errorf("the call saw %q, want the per-call values", got)
	}
	if got := call(`echo "$PROXY ${GRANT-unset}"`); got != "session unset" {
		t.Errorf("the next call saw %q, want the session's values back", got)
	}
	if got := call(`export PROXY=mine GRANT=mine; echo ok`, "PROXY=call", "GRANT=token"); got != "ok" {
		t.Fatal(got)
	}
	if got := call(`echo "$PROXY $GRANT"`); got != "mine mine" {
		t.Errorf("what a call exported itself: %q, want it kept", got)
	}

	ended := make(chan struct{})
	info, err := s.Start(Request{Script: `echo "task $PROXY"`, Env: []string{"PROXY=task"}, Ended: func() { close(ended) }})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("Ended was not called when the task ended")
	}
	st, err := s.Output(context.Background(), info.ID, nil, 0)
	if err != nil || !strings.Contains(st.Output.Text, "task task") {
		t.Errorf("the task's output: %q %v", st.Output.Text, err)
	}
}
