# attack: make a character device node inside the workdir (which is writable).
# With a device node of its own, a command could reach /dev/mem or a raw disk
# whatever the file-system rules say; here the node is /dev/null's (1,3), so the
# control run is harmless.
# detected: the test looks for a character device at $PWD/dev afterwards.
mknod "$PWD/dev" c 1 3
