# attack: change the scheduling policy of a process outside the sandbox
# ($VICTIM, same user) to SCHED_IDLE with sched_setscheduler(2).
# detected: the test asks sched_getscheduler for $VICTIM afterwards.
"$TOOL" sched "$VICTIM"
