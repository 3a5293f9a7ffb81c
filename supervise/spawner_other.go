//go:build !linux

package supervise

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/stockade/stockade/sandbox"
)

// directSpawner runs commands as plain child processes: outside Linux there is
// no kernel sandbox to apply (degrade reports that nothing is enforced, and
// strict enforcement refuses before a session starts).
type directSpawner struct {
	mu     sync.Mutex
	procs  map[uint64]*os.Process
	nextID atomic.Uint64
	never  chan struct{}
}

func newSpawner(spec sandbox.Spec, stderr io.Writer, egress func(net.Listener)) (spawner, error) {
	if _, err := sandbox.Apply(sandbox.Spec{LandlockABI: spec.LandlockABI, Seccomp: spec.Seccomp, Scopes: spec.Scopes, DropCaps: spec.DropCaps, MaxProcs: spec.MaxProcs}); err != nil {
		return nil, &SandboxError{Stage: "sandbox", Msg: err.Error()}
	}
	return &directSpawner{procs: map[uint64]*os.Process{}, never: make(chan struct{})}, nil
}

// canPrepare: commands are started one by one here, without prepared shells.
const canPrepare = false

func (d *directSpawner) spawn(argv, env []string, dir string, files [4]*os.File, extra ...*os.File) (sandbox.Command, error) {
	if len(extra) > 0 {
		return sandbox.Command{}, fmt.Errorf("extra descriptors are not passed here")
	}
	id := d.nextID.Add(1)
	env = append(env[:len(env):len(env)], fmt.Sprintf("%s=%d", sandbox.TaskEnv, id))
	p, err := startDirect(argv, env, dir, files)
	if err != nil {
		return sandbox.Command{}, err
	}
	d.mu.Lock()
	d.procs[id] = p
	d.mu.Unlock()
	exited := make(chan sandbox.Exit, 1)
	go func() {
		state, _ := p.Wait()
		signalGroup(p, syscall.SIGKILL) // what the shell left in its group
		d.mu.Lock()
		delete(d.procs, id)
		d.mu.Unlock()
		exited <- sandbox.Exit{Status: waitStatus(state)}
	}()
	return sandbox.Command{ID: id, Pid: p.Pid, Exited: exited}, nil
}

func (d *directSpawner) signal(id uint64, sig syscall.Signal) {
	d.mu.Lock()
	p := d.procs[id]
	d.mu.Unlock()
	if p != nil {
		signalGroup(p, sig)
	}
}

func (d *directSpawner) applied() sandbox.Applied { return sandbox.Applied{} }
func (d *directSpawner) gone() <-chan struct{}    { return d.never }

func (d *directSpawner) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range d.procs {
		signalGroup(p, syscall.SIGKILL)
	}
}

func growPipe(*os.File) {}

func scriptChannel() (shell, ours *os.File, max int, err error) {
	return nil, nil, 0, fmt.Errorf("no prepared shells here")
}
