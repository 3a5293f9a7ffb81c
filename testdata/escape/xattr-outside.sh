# attack: set an extended attribute on a file outside the writable roots.
# detected: the test reads the user.escape attribute of $OUT/file afterwards.
"$PY" -c 'import os; os.setxattr(os.environ["OUT"] + "/file", "user.escape", b"pwned")'
