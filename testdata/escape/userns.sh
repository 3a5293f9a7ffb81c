# attack: regain capabilities in a new user namespace that maps root to root
# (unshare -U -r), then use CAP_DAC_OVERRIDE there to read a root-owned file
# of mode 000 ($OUT/root-locked), which root without capabilities cannot read.
# detected: the test looks for the file's contents in $PWD/loot.
unshare -U -r cat "$OUT/root-locked" > loot
unshare -U -r grep CapEff /proc/self/status
