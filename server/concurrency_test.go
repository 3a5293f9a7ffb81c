package server_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestManyCallsInFlight: one stdio client's calls run side by side. Each of n
// commands announces itself with a file, then waits until all n have: if the
// server ran fewer than n at once, the first ones would wait for the others
// until their own timeout and fail.
func TestManyCallsInFlight(t *testing.T) {
	const n = 12 // more than mcp-go's default of 5 workers
	s := start(t, serverOpts{})
	script := fmt.Sprintf(`touch "here.$RANDOM$RANDOM"; for i in $(seq 200); do [ "$(ls here.* | wc -l)" -ge %d ] && exit 0; sleep 0.1; done; exit 3`, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": script}})
			if err == nil && (res.IsError || fmt.Sprint(res.StructuredContent.(map[string]any)["exit_code"]) != "0") {
				err = fmt.Errorf("the call did not see all %d calls running: %s", n, text(res))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
