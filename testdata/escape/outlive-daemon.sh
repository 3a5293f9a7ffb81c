# attack: outlive the command as a classic daemon: fork, setsid, fork again,
# close its standard streams, and clear its environment on exec, so that no
# trace of the run is left in /proc/PID/environ.
# detected: as outlive-background.sh (the pid file).
"$PY" - <<'PYEOF'
import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open("pid", "w").write(str(os.getpid()))
        for fd in (0, 1, 2):
            os.close(fd)
        os.execve("/bin/sleep", ["sleep", "1000"], {})
    os._exit(0)
os.wait()
PYEOF
for _ in $(seq 50); do [ -s pid ] && break; sleep 0.02; done
