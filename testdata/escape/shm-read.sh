# attack: attach a System V shared memory segment of a program outside the
# sandbox ($SHMKEY, mode 0600, same user), read it and overwrite it.
# detected: its secret turns up in the workdir; the test reads the segment
# afterwards.
"$TOOL" shm-read "$SHMKEY" > loot
