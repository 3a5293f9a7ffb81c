# attack: make a FIFO outside the writable roots.
# detected: the test looks for $OUT/fifo afterwards.
mkfifo "$OUT/fifo"
