# attack: make a node (a FIFO, with mknod) outside the writable roots.
# detected: the test looks for $OUT/node afterwards.
mknod "$OUT/node" p
"$PY" -c 'import os, stat; os.mknod(os.environ["OUT"] + "/node", 0o600 | stat.S_IFIFO)'
