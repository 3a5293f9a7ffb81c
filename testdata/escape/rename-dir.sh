# attack: move a directory from outside into the workdir (where it would then
# be writable), and rename it where it stands.
# detected: the test checks that $OUT/dir and $OUT/dir/f are still there.
mv "$OUT/dir" "$PWD/stolen"
"$PY" -c 'import os; o = os.environ["OUT"]; os.rename(o + "/dir", o + "/renamed")'
