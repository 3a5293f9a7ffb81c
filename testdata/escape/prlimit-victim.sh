# attack: change the resource limits of a process outside the sandbox
# ($VICTIM, a sleep the test started, same user) with prlimit(2). Here the
# open-files limit is lowered to 7; RLIMIT_CPU {1,1} would make the kernel kill
# it, or the stockade server itself.
# detected: the test reads /proc/$VICTIM/limits afterwards.
"$TOOL" prlimit "$VICTIM"
