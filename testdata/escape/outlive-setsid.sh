# attack: outlive the command in a new session and process group (setsid), out
# of reach of a kill of the command's process group.
# detected: as outlive-background.sh.
setsid bash -c 'echo $$ > pid; exec sleep 1000' > /dev/null 2>&1 < /dev/null &
for _ in $(seq 50); do [ -s pid ] && break; sleep 0.02; done
