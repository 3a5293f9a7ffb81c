# attack (bounded, the fork bomb's control): start 300 sleepers named $MARK at
# once, more than the policy's max_processes = 200. (python, because bash
# sleeps and retries when fork fails.)
# detected: the test counts, from /proc, the processes named $MARK while the
# command runs.
"$PY" - <<'PYEOF'
import os, time
started = 0
for _ in range(300):
    try:
        pid = os.fork()
    except OSError as e:
        continue
    if pid == 0:
        try:
            os.execv("/bin/sleep", [os.environ["MARK"], "15"])
        finally:
            os._exit(1)
    started += 1
print("started", started)
time.sleep(1.5)
PYEOF
