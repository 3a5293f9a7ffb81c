# attack: write outside the writable roots by absolute path: overwrite a file,
# append to it, and create a new one in a directory outside the workdir.
# detected: the test compares $OUT/file and looks for $OUT/new afterwards.
echo pwned > "$OUT/file"
echo pwned >> "$OUT/file"
echo pwned > "$OUT/new"
"$PY" -c 'import os, sys; open(os.environ["OUT"] + "/new", "w").write("pwned")'
