# attack: start 1100 processes (sleepers named $MARK) under a policy that sets
# no max_processes, more than the default bound of 1024.
# detected: the test counts, from /proc, the processes named $MARK while the
# command runs.
"$TOOL" spawn 1100 "$MARK"
