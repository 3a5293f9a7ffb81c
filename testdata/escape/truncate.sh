# attack: empty a file outside the writable roots (truncate, O_TRUNC, ftruncate).
# detected: the test compares $OUT/file afterwards.
truncate -s 0 "$OUT/file"
: > "$OUT/file"
"$PY" -c 'import os; os.truncate(os.environ["OUT"] + "/file", 1)'
