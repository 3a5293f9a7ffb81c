# attack: kill a process outside the sandbox ($VICTIM, a sleep the test
# started, same user).
# detected: the test checks that its victim is still alive afterwards.
kill -9 "$VICTIM"
