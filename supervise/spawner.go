package supervise

import (
	"os"
	"syscall"

	"github.com/stockade/stockade/sandbox"
)

// spawner starts commands inside the session's sandbox: a zygote on Linux,
// plain child processes elsewhere. files become the command's descriptors 0
// to 3; extra, 4 and up, where canPrepare (a prepared shell's script).
type spawner interface {
	spawn(argv, env []string, dir string, files [4]*os.File, extra ...*os.File) (sandbox.Command, error)
	signal(id uint64, sig syscall.Signal)
	applied() sandbox.Applied
	gone() <-chan struct{} // closed when the supervisor of running commands is gone
	close()
}
