package supervise

import (
	"context"
	"syscall"
	"time"
)

// One supervision path for every command, whoever forks it (a session's
// zygote, or stockade run's own restricted thread): wait for it to end; when
// the timeout passes or the caller gives up first, stop it: SIGTERM to its
// process group, the grace period, then SIGKILL to the group and what it left
// behind. A command that timed out with no failing status of its own exits 124.

// command is a started command as supervision sees it; T is what its end
// delivers.
type command[T any] struct {
	exited <-chan T               // receives (or is closed) once it has ended
	gone   <-chan struct{}        // closed if whoever runs it died first; nil: never
	signal func(s syscall.Signal) // to its process group; SIGKILL also stops what it left
}

// ending is how supervision of a command ended.
type ending[T any] struct {
	exit      T    // what exited delivered; killed if it died with its supervisor while being stopped
	timedOut  bool // it was stopped because the timeout passed
	cancelled bool // it was stopped because ctx ended
	gone      bool // its supervisor died while it ran
}

// await supervises c until it ends; timeout 0 means none.
func await[T any](ctx context.Context, c command[T], timeout, grace time.Duration, killed T) ending[T] {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	var e ending[T]
	select {
	case e.exit = <-c.exited:
		return e
	case <-c.gone:
		e.gone = true
		return e
	case <-expired:
		e.timedOut = true
	case <-ctx.Done():
		e.cancelled = true
	}
	e.exit = stop(c, grace, killed)
	return e
}

// DefaultGrace is the time between SIGTERM and SIGKILL when none is given.
const DefaultGrace = 5 * time.Second

// stop ends c: SIGTERM, then SIGKILL once grace (0: DefaultGrace) has passed.
// It returns what c's end delivered, or killed when its supervisor died first.
func stop[T any](c command[T], grace time.Duration, killed T) T {
	if grace <= 0 {
		grace = DefaultGrace
	}
	c.signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case exit := <-c.exited:
		return exit
	case <-c.gone:
		return killed
	case <-t.C:
	}
	c.signal(syscall.SIGKILL)
	select {
	case exit := <-c.exited:
		return exit
	case <-c.gone:
		return killed
	}
}

// exitCode is the exit code and signal name of a raw wait status, as a
// shell reports them (128+N for death by signal N); a command that timed out
// and exited 0 exits 124.
func exitCode(status int, timedOut bool) (int, string) {
	code, sig := decodeStatus(status)
	if timedOut && code == 0 {
		code = 124
	}
	return code, sig
}
