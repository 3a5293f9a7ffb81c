package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stockade/stockade/policy"
)

// Approvals for `stockade run`. On a terminal, a command the policy asks
// about is put to the person at the terminal: y runs it once, n refuses,
// a ("always for this session") runs it and every later run of exactly the
// same command from the same shell. Without a terminal stockade run cannot
// ask, and exits 126 with the advice of policy.ApprovalAdvice.

// answer is the person's answer at the terminal.
type answer int

const (
	answerNo answer = iota
	answerOnce
	answerSession
)

// askTerminal puts the question on the controlling terminal and reads the
// answer there, not on stdin, which belongs to the command. ok is false
// when there is no terminal to ask on.
//
// stockade run asks only when its standard input is a terminal too: a run
// in a pipeline or a CI job is not a person at a keyboard.
func askTerminal(d policy.Decision, script string) (a answer, ok bool) {
	if !isTerminal(os.Stdin) {
		return answerNo, false
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return answerNo, false
	}
	defer tty.Close()
	if !isTerminal(tty) {
		return answerNo, false
	}
	fmt.Fprintf(tty, "stockade: rule %q asks for your approval: %s\n  command: %s\n", d.Rule, d.Reason, script)
	fmt.Fprint(tty, "Run it? [y]es once / [n]o / [a]lways for this session: ")
	line, _ := bufio.NewReader(tty).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return answerOnce, true
	case "a", "always", "always for this session":
		return answerSession, true
	}
	return answerNo, true
}

// sessionFile is where the approvals "for this session" are kept: one file
// per shell that runs stockade (its parent process, told apart from a later
// process with the same pid by its start time), in a directory only this
// user can write, outside anything the sandbox lets a command write.
func sessionFile() string {
	ppid := os.Getppid()
	start := ""
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(ppid) + "/stat"); err == nil {
		// Field 22 is the start time; the command name (field 2) may hold spaces.
		if i := strings.LastIndexByte(string(b), ')'); i > 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 19 {
				start = f[19]
			}
		}
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" || !filepath.IsAbs(dir) {
		dir = os.TempDir()
	}
	return filepath.Join(dir, fmt.Sprintf("stockade-%d", os.Getuid()), fmt.Sprintf("approvals-%d-%s", ppid, start))
}

func scriptKey(script string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(script)))
	return hex.EncodeToString(sum[:])
}

// approvedForSession reports whether exactly script was approved "always
// for this session" before.
func approvedForSession(script string) bool {
	f := sessionFile()
	fi, err := os.Lstat(f)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		return false
	}
	if !ownedByMe(fi) {
		return false
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return false
	}
	key := scriptKey(script)
	for _, l := range strings.Split(string(b), "\n") {
		if l == key {
			return true
		}
	}
	return false
}

func approveForSession(script string) error {
	f := sessionFile()
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return err
	}
	if fi, err := os.Lstat(f); err == nil && (!fi.Mode().IsRegular() || !ownedByMe(fi)) {
		return fmt.Errorf("%s is not a file of this user", f)
	}
	w, err := os.OpenFile(f, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer w.Close()
	_, err = fmt.Fprintln(w, scriptKey(script))
	return err
}
