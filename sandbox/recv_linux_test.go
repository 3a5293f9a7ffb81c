package sandbox

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRecvWithinSignals: signals arriving while the handshake waits for the
// child's reply (SIGURG is the Go runtime's preemption signal) make a
// receive with a timeout fail with EINTR; recvWithin waits on and gets the
// reply.
func TestRecvWithinSignals(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	tid := make(chan int)
	done := make(chan struct{})
	var n int
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- unix.Gettid()
		n, _, err = recvWithin(fds[0], make([]byte, 16), nil, 10*time.Second)
	}()
	waiter := <-tid
	for range 20 {
		unix.Tgkill(unix.Getpid(), waiter, unix.SIGURG)
		time.Sleep(5 * time.Millisecond)
	}
	if err := unix.Sendmsg(fds[1], []byte("reply"), nil, nil, 0); err != nil {
		t.Fatal(err)
	}
	<-done
	if err != nil || n != len("reply") {
		t.Fatalf("recvWithin: %d bytes, %v; want the reply", n, err)
	}
}
