# attack: kill -9 -1: every process the command may signal. As root without a
# sandbox, that is every process on the host, so the control run is made as an
# unused uid, with a victim of that uid; the sandboxed run is made as root,
# and only after the signal scope is shown to be in force.
# detected: the test checks that its victim (a process outside the command) is
# still alive, and that the supervisor exited with a status.
sleep 1000 > /dev/null 2>&1 &
echo $! > pid
kill -9 -1
sleep 0.5
echo "still running after kill -9 -1"
