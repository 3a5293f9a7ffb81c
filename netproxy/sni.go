package netproxy

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// peekServerName looks at what the client sends first, without consuming
// it: when it is a TLS ClientHello, it returns the server name it asks for.
// A TLS record that cannot be read whole is an error (refused, never passed
// unchecked).
func peekServerName(br *bufio.Reader) (sni string, isTLS bool, err error) {
	first, err := br.Peek(1)
	if err != nil {
		return "", false, err
	}
	if first[0] != 0x16 { // not a TLS handshake record
		return "", false, nil
	}
	hdr, err := br.Peek(5)
	if err != nil {
		return "", true, fmt.Errorf("reading the TLS record header: %w", err)
	}
	n := int(hdr[3])<<8 | int(hdr[4])
	rec, err := br.Peek(5 + n)
	if err != nil {
		return "", true, fmt.Errorf("reading the TLS ClientHello: %w", err)
	}
	errSeen := errors.New("seen")
	var name string
	seen := false
	conn := tls.Server(readOnlyConn{r: bytes.NewReader(rec)}, &tls.Config{
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			name, seen = h.ServerName, true
			return nil, errSeen
		},
	})
	conn.Handshake()
	if !seen {
		return "", true, errors.New("the TLS ClientHello could not be read")
	}
	return name, true, nil
}

// readOnlyConn feeds recorded bytes to crypto/tls and swallows its answers.
type readOnlyConn struct{ r io.Reader }

func (c readOnlyConn) Read(p []byte) (int, error)         { return c.r.Read(p) }
func (c readOnlyConn) Write(p []byte) (int, error)        { return len(p), nil }
func (c readOnlyConn) Close() error                       { return nil }
func (c readOnlyConn) LocalAddr() net.Addr                { return nil }
func (c readOnlyConn) RemoteAddr() net.Addr               { return nil }
func (c readOnlyConn) SetDeadline(t time.Time) error      { return nil }
func (c readOnlyConn) SetReadDeadline(t time.Time) error  { return nil }
func (c readOnlyConn) SetWriteDeadline(t time.Time) error { return nil }
