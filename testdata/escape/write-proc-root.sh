# attack: reach the outside file through another process's root directory,
# /proc/TESTPID/root, a magic link that path-based checks might not follow.
# detected: the test compares $OUT/file afterwards.
echo pwned > "/proc/$TESTPID/root$OUT/file"
echo pwned > "/proc/self/root$OUT/file"
