# attack: outlive the command with a plain background job.
# detected: the test checks, after the command returned, whether the pid in
# $PWD/pid is alive (and scans /proc for anything carrying the run's marker).
sleep 1000 > /dev/null 2>&1 &
echo $! > pid
