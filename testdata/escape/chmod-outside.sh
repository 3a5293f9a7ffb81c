# attack: change the mode of a file outside the writable roots: make it
# world-writable and setuid (chmod needs no capability for the file's owner,
# and the command runs as root, who owns it).
# detected: the test compares the mode of $OUT/file afterwards.
chmod 4777 "$OUT/file"
"$PY" -c 'import os; os.chmod(os.environ["OUT"] + "/file", 0o6777)'
