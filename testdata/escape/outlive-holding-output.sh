# attack: outlive the command, and its --timeout, with a process in a session
# of its own (out of reach of a kill of the process group) that keeps the
# command's standard output open: a supervisor that waits for the end of the
# output waits for it.
# detected: the test checks that stockade returned in time and, after it
# returned, whether the pid in $PWD/pid is alive.
setsid sleep 30 &
echo $! > pid
