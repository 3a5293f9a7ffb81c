package supervise

import (
	"os"
	"slices"
	"strings"
	"time"

	"github.com/stockade/stockade/sandbox"
)

// A prepared shell takes bash's start-up off a call's critical path. When a
// foreground command has ended (and when the session starts), the session
// starts the next command's shell at once, the way it would start it for the
// call: spawned by the zygote into the same sandbox, with the environment and
// cwd the next command gets, stdin /dev/null, stdout, stderr and the report on
// fresh pipes. bash reads the init file (BASH_ENV), then runs preparedStub,
// which waits for the script on descriptor 4 (scriptChannel). A call whose environment and cwd
// are the ones the shell was prepared with writes its script there; any other
// call, or one that finds no shell ready, starts a fresh shell as before. A
// session keeps at most one prepared shell, and drops it after preparedIdle
// without a call, so an idle session holds no shell.

// preparedIdle is how long a prepared shell waits for a call: longer than an
// agent usually thinks between two calls, so that the next call finds it;
// then it is dropped, and with it the memory it holds (about 0.5 MiB PSS).
const preparedIdle = 30 * time.Second

// maxPreparedScript bounds the scripts a prepared shell runs: they are
// written in one go to its descriptor 4, which must hold them (bigger ones
// start a fresh shell; bash -c takes at most 128 KiB anyway).
const maxPreparedScript = 64 << 10

// scriptMark starts what is written to a prepared shell: its script, after
// the mark; nothing at all (the pipe closed) tells the shell to leave.
const scriptMark = ":"

// preparedStub is what a prepared shell runs: on one line, so that the
// script, evaluated there, has the line numbers it has under bash -c. It reads
// the script from descriptor 4 to its end (read -N reads a socket in blocks,
// a read up to a NUL, byte by byte), closes the descriptor, and leaves quietly when
// it got nothing. Before it evaluates the script, it makes the shell look as
// bash -c SCRIPT would: BASH_EXECUTION_STRING is the script, SECONDS counts
// from now, its variable is gone, and $_ (the last argument of the previous
// command) is what the init file left there.
func preparedStub() string {
	return `IFS= read -r -N 999999999 -u 4 __stockade_script; exec 4<&-; ` +
		`[ -n "$__stockade_script" ] || { trap - EXIT; exit 0; }; ` +
		`BASH_EXECUTION_STRING=${__stockade_script#?}; SECONDS=0; unset -v __stockade_script; ` +
		`: ` + initLastArg + `; eval "$BASH_EXECUTION_STRING"`
}

// preparable says whether a shell with environment env may be prepared: not
// when the environment changes how bash runs the stub itself (exported
// functions that could replace a builtin it calls, options such as xtrace
// that would show it, a read timeout, POSIX mode, a compatibility level).
func preparable(env []string) bool {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "BASH_FUNC_"),
			name == "SHELLOPTS", name == "BASHOPTS", name == "TMOUT",
			name == "POSIXLY_CORRECT", name == "BASH_COMPAT":
			return false
		}
	}
	return true
}

// preparedShell is a shell waiting for its script.
type preparedShell struct {
	cmd     sandbox.Command
	env     []string
	dir     string
	dirInfo os.FileInfo
	out     [3]*os.File // the read ends of stdout, stderr and the report
	script  *os.File    // our end of its descriptor 4
	max     int         // the longest script written there at once
	idle    *time.Timer
}

// close drops the shell: it reads nothing and leaves without reporting.
func (ps *preparedShell) close() {
	ps.script.Close()
	for _, f := range ps.out {
		f.Close()
	}
}

// prepareNext starts preparing, in the background, the shell for the next
// command, unless one is ready or on its way.
func (s *Session) prepareNext() {
	idle := s.cfg.preparedIdle
	if idle == 0 {
		idle = preparedIdle
	}
	if !canPrepare || !s.cfg.Shell.isBash || idle < 0 {
		return
	}
	_, extra := s.init.argv(s.cfg.Shell, "")
	s.mu.Lock()
	if s.closed || s.prep != nil || s.preparing != nil {
		s.mu.Unlock()
		return
	}
	env := append(slices.Clone(s.env), extra...)
	dir := s.cwd
	if !preparable(env) {
		s.mu.Unlock()
		return
	}
	done := make(chan struct{})
	s.preparing = done
	s.prepWG.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.prepWG.Done()
		ps := s.startPrepared(env, dir)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.preparing = nil
		close(done)
		if ps == nil {
			return
		}
		if s.closed {
			ps.close()
			return
		}
		s.prep = ps
		ps.idle = time.AfterFunc(idle, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.prep == ps {
				s.prep = nil
				ps.close()
			}
		})
	}()
}

// startPrepared starts a shell that waits for its script; nil if it could not.
func (s *Session) startPrepared(env []string, dir string) *preparedShell {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil
	}
	var p pipes
	ok := false
	defer func() {
		if !ok {
			p.closeAll()
		}
	}()
	var out, in [3]*os.File
	for i := range out {
		if out[i], in[i], err = p.pipe(); err != nil {
			return nil
		}
	}
	scriptR, scriptW, max, err := scriptChannel()
	if err != nil {
		return nil
	}
	defer scriptR.Close()
	p.writers = append(p.writers, scriptW)
	argv := []string{s.cfg.Shell.Path, "-c", preparedStub()}
	cmd, err := s.spawner.spawn(argv, env, dir, [4]*os.File{s.devnull, in[0], in[1], in[2]}, scriptR)
	if err != nil {
		return nil
	}
	for _, w := range in {
		w.Close()
	}
	ok = true
	return &preparedShell{cmd: cmd, env: env, dir: dir, dirInfo: fi, out: out, script: scriptW,
		max: min(max-len(scriptMark), maxPreparedScript)}
}

// runPrepared runs script in the prepared shell when there is one for env
// and dir, and returns its command and the read ends of its stdout, stderr
// and report; ok is false when the call must start a fresh shell.
func (s *Session) runPrepared(script string, env []string, dir string) (cmd sandbox.Command, out [3]*os.File, ok bool) {
	if !canPrepare || strings.IndexByte(script, 0) >= 0 {
		// A NUL cannot be in bash -c's argument: a fresh start reports it.
		return cmd, out, false
	}
	s.mu.Lock()
	wait := s.preparing
	s.mu.Unlock()
	if wait != nil {
		// The zygote is starting it now: a fresh shell would start after it.
		<-wait
	}
	s.mu.Lock()
	ps := s.prep
	s.prep = nil
	if ps != nil {
		ps.idle.Stop()
	}
	s.mu.Unlock()
	if ps == nil {
		return cmd, out, false
	}
	fi, err := os.Stat(dir)
	if len(script) > ps.max || !slices.Equal(ps.env, env) || ps.dir != dir || err != nil || !os.SameFile(fi, ps.dirInfo) {
		ps.close()
		return cmd, out, false
	}
	_, err = ps.script.WriteString(scriptMark + script)
	ps.script.Close()
	if err != nil {
		// The shell is gone (a command may kill it): start a fresh one.
		for _, f := range ps.out {
			f.Close()
		}
		return cmd, out, false
	}
	s.preparedRuns.Add(1)
	return ps.cmd, ps.out, true
}

// dropPrepared drops the prepared shell, if any; s.mu is held.
func (s *Session) dropPrepared() {
	if s.prep != nil {
		s.prep.idle.Stop()
		s.prep.close()
		s.prep = nil
	}
}
