//go:build !linux

package supervise

import (
	"io/fs"
	"os"
)

// dirEvents: without inotify, every look checks each directory's ctime.
type dirEvents struct{}

func newDirEvents() *dirEvents           { return nil }
func (*dirEvents) watch(string) bool     { return false }
func (*dirEvents) drain()                {}
func (*dirEvents) unchanged(string) bool { return false }
func (*dirEvents) looked()               {}
func (*dirEvents) close()                {}

// eachEntry calls fn with the name and type of every entry of the directory
// p (see the Linux one).
func eachEntry(p string, _ []byte, fn func(name []byte, typ fs.FileMode)) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	for _, e := range ents {
		fn([]byte(e.Name()), e.Type()&(fs.ModeDir|fs.ModeSymlink))
	}
	return err
}
