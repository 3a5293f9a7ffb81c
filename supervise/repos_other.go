//go:build !linux

package supervise

// dirEvents: without inotify, every look checks each directory's ctime.
type dirEvents struct{}

func newDirEvents() *dirEvents           { return nil }
func (*dirEvents) watch(string) bool     { return false }
func (*dirEvents) drain()                {}
func (*dirEvents) unchanged(string) bool { return false }
func (*dirEvents) looked()               {}
func (*dirEvents) close()                {}
