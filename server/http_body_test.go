package server_test

import (
	"io"
	"net/http"
	"sync/atomic"
	"testing"
)

// countingBody is a request body of n bytes that counts what the server takes.
type countingBody struct {
	n, read int64
	sent    atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.read >= b.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), b.n-b.read)
	for i := range p[:k] {
		p[i] = ' '
	}
	b.read += k
	b.sent.Add(k)
	return int(k), nil
}

// TestHTTPBodyBounded: a 300 MB request body is refused without being read
// whole, whether its length is declared or it comes in chunks.
func TestHTTPBodyBounded(t *testing.T) {
	s := startHTTP(t, "--token", "t0ken")
	const size = 300 << 20
	for _, declared := range []bool{true, false} {
		body := &countingBody{n: size}
		req, err := http.NewRequest(http.MethodPost, s.url, body)
		if err != nil {
			t.Fatal(err)
		}
		if declared {
			req.ContentLength = size
		} else {
			req.ContentLength = -1 // chunked
		}
		req.Header.Set("Authorization", "Bearer t0ken")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode < 400 {
				t.Errorf("declared=%v: status %d, want a refusal", declared, resp.StatusCode)
			}
			if declared && resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("declared length: status %d, want 413", resp.StatusCode)
			}
		}
		if sent := body.sent.Load(); sent > 64<<20 {
			t.Errorf("declared=%v: the server took %d MiB of the body before refusing it", declared, sent>>20)
		}
		t.Logf("declared=%v: %d KiB sent before the refusal (err %v)", declared, body.sent.Load()>>10, err)
	}
}
