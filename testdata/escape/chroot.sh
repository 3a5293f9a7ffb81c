# attack: chroot (needs CAP_SYS_CHROOT), proven by a file written by a program
# that only runs if the chroot worked.
# detected: the test looks for $PWD/chrooted.
chroot / /bin/sh -c 'echo chrooted > "$W/chrooted"'
