# attack: outlive the command with nohup (SIGHUP ignored).
# detected: as outlive-background.sh.
nohup sleep 1000 > /dev/null 2>&1 &
echo $! > pid
