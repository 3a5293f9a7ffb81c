# attack: mount a tmpfs (needs CAP_SYS_ADMIN; Landlock also forbids mounts) on
# a directory inside the workdir.
# detected: the test looks for $PWD/mnt in its own /proc/self/mountinfo.
mkdir -p mnt
mount -t tmpfs none "$PWD/mnt"
