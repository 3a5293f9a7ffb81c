# attack: kill the supervisor ($PPID: stockade run, or a stand-in shell in the
# control run) and every ancestor up to the test, so that nothing is left to
# stop what the command started; then start a sleeper that should outlive it.
# detected: the test checks that the supervisor exited with a status (not
# killed by a signal), and that the sleeper (pid file) and anything carrying
# the run's marker are gone afterwards.
sleep 1000 > /dev/null 2>&1 &
echo $! > pid
kill -9 "$PPID"
p=$PPID
while [ -n "$p" ] && [ "$p" -gt 1 ] && [ "$p" != "$TESTPID" ]; do
  kill -9 "$p"
  p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)
done
sleep 0.5
echo "still running after killing the supervisor"
