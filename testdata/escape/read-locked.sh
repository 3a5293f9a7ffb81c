# attack: read a file of another user with mode 000 ($OUT/locked): root reads
# it only with CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH, which the sandbox drops.
# Then the same through a setuid-root copy of cat ($OUT/suid-cat), which must
# not bring the capabilities back, and that copy's own CapEff.
# detected: the test looks for the secret in $PWD/loot*, and reads the CapEff
# line the setuid program's /proc/self/status gave.
cat "$OUT/locked" > loot-cat
"$OUT/suid-cat" "$OUT/locked" > loot-suid
"$OUT/suid-cat" /proc/self/status > suid-status
grep Cap suid-status
