# attack: put a process outside the sandbox ($VICTIM, same user) in the idle
# I/O class with ioprio_set(IOPRIO_WHO_PROCESS, $VICTIM, ...).
# detected: the test asks ioprio_get for $VICTIM afterwards.
"$TOOL" ioprio "$VICTIM"
