# attack: change the timestamps of a file outside the writable roots (hides a
# change from make, backups and forensics).
# detected: the test compares the mtime of $OUT/file afterwards.
touch -d '2001-01-01 00:00:00' "$OUT/file"
