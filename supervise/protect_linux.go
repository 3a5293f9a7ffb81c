//go:build linux

package supervise

import (
	"io/fs"
	"syscall"
	"time"
)

func statTimes(fi fs.FileInfo) (ctime time.Time, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)), uint64(st.Ino)
	}
	return time.Time{}, 0
}
