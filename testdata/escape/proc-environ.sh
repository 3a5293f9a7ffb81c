# attack: read the environment of the test process (/proc/TESTPID/environ),
# which holds a canary value the command's own environment does not.
# detected: the test looks for its canary in $PWD/loot.
cat "/proc/$TESTPID/environ" > loot
tr '\0' '\n' < "/proc/$TESTPID/environ" >> loot
