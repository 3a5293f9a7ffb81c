# attack: lower the scheduling priority of a process outside the sandbox
# ($VICTIM, same user) with setpriority(PRIO_PROCESS, $VICTIM, 19).
# detected: the test reads the nice value of $VICTIM afterwards.
"$TOOL" renice "$VICTIM"
