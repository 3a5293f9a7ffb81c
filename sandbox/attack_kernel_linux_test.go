//go:build linux

package sandbox

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttackKernelObjects: the filter and the IPC namespace after the real
// Apply, on this kernel: another process's limits, the keyrings, a System V
// segment of the parent.
func TestAttackKernelObjects(t *testing.T) {
	spec := func(ipcNS bool) func(map[string]string) Spec {
		return func(map[string]string) Spec {
			s := strictSpec("", "")
			s.FS, s.LandlockABI, s.Scopes = FSOff, 0, false // the filter alone
			s.IPCNamespace = ipcNS
			return s
		}
	}
	// segment: the parent's own 0600 segment, for the child to find by key.
	segment := func(t *testing.T) map[string]string {
		key := 0x5a000000 + os.Getpid()%100000
		id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
		return map[string]string{"key": strconv.Itoa(key)}
	}
	attachParent := func(t *testing.T, v map[string]string) error {
		key, _ := strconv.Atoi(v["key"])
		id, err := unix.SysvShmGet(key, 0, 0)
		if err != nil {
			return err
		}
		b, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
		if err == nil {
			unix.SysvShmDetach(b)
		}
		return err
	}
	cases := map[string]attack{
		"prlimit of the parent": {spec: spec(false), want: unix.EPERM, do: func(t *testing.T, v map[string]string) error {
			var old unix.Rlimit // a read: the plain run changes nothing
			return unix.Prlimit(os.Getppid(), unix.RLIMIT_NOFILE, nil, &old)
		}},
		"add_key": {spec: spec(false), want: unix.EPERM, do: func(t *testing.T, v map[string]string) error {
			_, err := unix.AddKey("user", "stockade-test", []byte("x"), unix.KEY_SPEC_PROCESS_KEYRING)
			return err
		}},
		"shmat of the parent's segment, filter": {spec: spec(false), want: unix.EPERM, setup: segment, do: attachParent},
	}
	if os.Geteuid() == 0 {
		// In an IPC namespace of its own the parent's key is not there.
		cases["shmat of the parent's segment, namespace"] = attack{spec: spec(true), want: unix.ENOENT, setup: segment, do: attachParent}
	}
	for name, a := range cases {
		t.Run(name, a.run)
	}
}
