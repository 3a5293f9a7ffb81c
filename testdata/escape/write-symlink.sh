# attack: make symlinks inside the workdir that point outside (to a file and to
# a directory), then write through them.
# detected: the test compares $OUT/file and looks for $OUT/new afterwards.
ln -s "$OUT/file" link-to-file
ln -s "$OUT" link-to-dir
echo pwned > link-to-file
echo pwned > link-to-dir/new
"$PY" -c 'open("link-to-file", "a").write("pwned")'
