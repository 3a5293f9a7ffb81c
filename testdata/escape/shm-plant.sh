# attack: create a System V shared memory segment ($SHMKEY) that outlives the
# command, for programs outside to attach.
# detected: the test looks the key up afterwards.
"$TOOL" shm-create "$SHMKEY"
