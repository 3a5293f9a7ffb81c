# attack: outlive the command with a double fork: the middle process exits, so
# the sleeper is orphaned and reparented away from the command.
# detected: as outlive-background.sh.
( sleep 1000 > /dev/null 2>&1 & echo $! > pid ) &
wait
