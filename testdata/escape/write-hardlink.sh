# attack: make a hard link inside the workdir to a file outside, then write to
# the link: the inode is shared, so the outside file would change.
# detected: the test compares $OUT/file afterwards.
ln "$OUT/file" hard
echo pwned > hard
"$PY" -c 'import os; os.link(os.environ["OUT"] + "/file", "hard2"); open("hard2", "a").write("pwned")'
