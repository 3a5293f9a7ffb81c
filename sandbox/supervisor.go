package sandbox

import "errors"

// Command is a command a Supervisor started.
type Command struct {
	ID  uint64 // names it to Signal
	Pid int    // its first process, the leader of its process group
	// Exited receives how it ended, once; never if the zygote is gone first
	// (see Supervisor.Done).
	Exited <-chan Exit
}

// Exit is how a command ended.
type Exit struct {
	Status    int // the raw wait status
	Leftovers int // processes still running when it exited, which were killed
}

// ErrSupervisorGone is returned for calls in flight when the zygote exits,
// for example because a command killed it.
var ErrSupervisorGone = errors.New("the sandbox supervisor exited")
