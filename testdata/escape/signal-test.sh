# attack: send SIGUSR1 to the test process ($TESTPID), a process outside the
# sandbox running as the same user (root).
# detected: the test counts the SIGUSR1s it receives (signal.Notify).
kill -USR1 "$TESTPID"
"$PY" -c 'import os, signal; os.kill(int(os.environ["TESTPID"]), signal.SIGUSR1)'
