// Package httptest is ordinary work for the escape suite: a Go test that
// serves and calls its own loopback with net/http/httptest, as many projects'
// tests do. The suite builds it outside the sandbox and runs it inside.
package httptest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "pong") }))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if string(b) != "pong" {
		t.Fatalf("got %q", b)
	}
}
