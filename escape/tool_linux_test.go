//go:build linux

package escape

// escape-tool: the system calls a shell cannot make. TestMain copies the test
// binary to $TOOL (a directory every uid may read) and runs runTool when it is
// started under that name, so attacks need no compiler or python, also in the
// kernel matrix's guests. Each subcommand makes real system calls and prints
// what it got; it exits 0 when the call did what the attack wanted, 1 with the
// errno on stderr otherwise.

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const usageTool = `usage: escape-tool CMD ARGS
  prlimit PID          lower the open-files limit of PID to 7
  renice PID           setpriority(PRIO_PROCESS, PID, 19)
  renice-user          setpriority(PRIO_USER, 0, 19): every process of the uid
  ioprio PID           ioprio_set(IOPRIO_WHO_PROCESS, PID, idle class)
  sched PID            sched_setscheduler(PID, SCHED_IDLE)
  key-read DESC        print the "user" key DESC found in the user keyring
  key-add DESC VALUE   add the "user" key DESC to the user keyring
  key-unlink DESC      unlink the "user" key DESC from the user keyring
  shm-read KEY         attach the SysV segment KEY, print it, overwrite it
  shm-create KEY       create a SysV segment KEY (mode 0600) and leave it
  shm-self             a private SysV segment: create, attach, write, read, remove
  rlimit-self          lower its own open-files limit with prlimit(0) and setrlimit
  spawn N NAME         start N sleepers named NAME, hold them a second, stop them
  connect-race A B N   N connects to A while a thread flips the address to B; 0 when one reached B`

// Values from the kernel's uapi headers.
const (
	ioprioWhoProcess = 1
	ioprioClassIdle  = 3
	ioprioClassShift = 13
	schedIdle        = 5
)

func runTool(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, usageTool)
		return 2
	}
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		fmt.Fprintln(os.Stderr, usageTool)
		os.Exit(2)
		return ""
	}
	num := func(i int) int {
		n, err := strconv.Atoi(arg(i))
		if err != nil {
			fmt.Fprintln(os.Stderr, "escape-tool:", err)
			os.Exit(2)
		}
		return n
	}
	err := func() error {
		switch args[0] {
		case "prlimit":
			lim := unix.Rlimit{Cur: 7, Max: 7}
			return unix.Prlimit(num(1), unix.RLIMIT_NOFILE, &lim, nil)
		case "renice":
			return unix.Setpriority(unix.PRIO_PROCESS, num(1), 19)
		case "renice-user":
			return unix.Setpriority(unix.PRIO_USER, 0, 19)
		case "ioprio":
			return errnoErr(unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(num(1)), ioprioClassIdle<<ioprioClassShift))
		case "sched":
			var param [1]int32
			return errnoErr(unix.Syscall(unix.SYS_SCHED_SETSCHEDULER, uintptr(num(1)), schedIdle, uintptr(unsafe.Pointer(&param[0]))))
		case "key-read":
			id, err := unix.KeyctlSearch(unix.KEY_SPEC_USER_KEYRING, "user", arg(1), 0)
			if err != nil {
				return fmt.Errorf("search: %w", err)
			}
			buf := make([]byte, 4096)
			n, err := unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0)
			if err != nil {
				return fmt.Errorf("read: %w", err)
			}
			fmt.Printf("%s\n", buf[:min(n, len(buf))])
			return nil
		case "key-add":
			id, err := unix.AddKey("user", arg(1), []byte(arg(2)), unix.KEY_SPEC_USER_KEYRING)
			if err == nil {
				fmt.Println(id)
			}
			return err
		case "key-unlink":
			id, err := unix.KeyctlSearch(unix.KEY_SPEC_USER_KEYRING, "user", arg(1), 0)
			if err != nil {
				return err
			}
			_, err = unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_USER_KEYRING, 0, 0)
			return err
		case "shm-read":
			id, err := unix.SysvShmGet(num(1), 0, 0)
			if err != nil {
				return fmt.Errorf("shmget: %w", err)
			}
			b, err := unix.SysvShmAttach(id, 0, 0)
			if err != nil {
				return fmt.Errorf("shmat: %w", err)
			}
			defer unix.SysvShmDetach(b)
			end := 0
			for end < len(b) && b[end] != 0 {
				end++
			}
			fmt.Printf("%s\n", b[:end])
			copy(b, "OVERWRITTEN\x00")
			return nil
		case "shm-create":
			_, err := unix.SysvShmGet(num(1), 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
			return err
		case "spawn":
			return spawn(num(1), arg(2))
		case "shm-self":
			return shmSelf()
		case "connect-race":
			return connectRace(arg(1), arg(2), num(3))
		case "rlimit-self":
			var old unix.Rlimit
			if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
				return err
			}
			lim := unix.Rlimit{Cur: old.Cur / 2, Max: old.Max}
			if err := unix.Prlimit(0, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
				return fmt.Errorf("prlimit(0): %w", err)
			}
			lim = unix.Rlimit{Cur: old.Cur / 4, Max: old.Max - 1}
			if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
				return fmt.Errorf("setrlimit: %w", err)
			}
			var got unix.Rlimit
			if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &got); err != nil || got != lim {
				return fmt.Errorf("getrlimit: %+v, %v", got, err)
			}
			fmt.Println("ok")
			return nil
		}
		fmt.Fprintln(os.Stderr, usageTool)
		os.Exit(2)
		return nil
	}()
	if err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			fmt.Fprintf(os.Stderr, "escape-tool %s: %v (%s)\n", args[0], err, unix.ErrnoName(errno))
		} else {
			fmt.Fprintf(os.Stderr, "escape-tool %s: %v\n", args[0], err)
		}
		return 1
	}
	return 0
}

func errnoErr(_, _ uintptr, e unix.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}

// shmSelf uses a private SysV segment the way a program does with itself.
func shmSelf() error {
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		return fmt.Errorf("shmget: %w", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		return fmt.Errorf("shmat: %w", err)
	}
	copy(b, "hello")
	again, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		return fmt.Errorf("second shmat: %w", err)
	}
	ok := string(again[:5]) == "hello"
	unix.SysvShmDetach(again)
	unix.SysvShmDetach(b)
	if !ok {
		return errors.New("the segment did not keep what was written")
	}
	fmt.Println("ok")
	return nil
}

// spawn starts n sleepers named name as fast as it can, reports how many
// started and the first error, holds them a second (the test counts them from
// /proc) and stops them.
func spawn(n int, name string) error {
	var pids []int
	var first error
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}}
	for range n {
		// They sleep until stopped: on a loaded machine starting them all
		// takes longer than any fixed sleep.
		pid, err := syscall.ForkExec("/bin/sleep", []string{name, "1000"}, attr)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		pids = append(pids, pid)
	}
	fmt.Printf("started %d of %d (first error: %v)\n", len(pids), n, first)
	time.Sleep(time.Second)
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
		syscall.Wait4(pid, nil, 0, nil)
	}
	return nil
}
