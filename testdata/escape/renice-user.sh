# attack: lower the scheduling priority of every process of the user with
# setpriority(PRIO_USER, 0, 19), the victim outside the sandbox included.
# detected: the test reads the nice value of $VICTIM afterwards.
"$TOOL" renice-user
