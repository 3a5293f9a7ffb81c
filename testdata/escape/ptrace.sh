# attack: attach to the test process ($TESTPID) with ptrace (PTRACE_SEIZE, which
# does not stop it), and stay attached for a second.
# detected: the test watches TracerPid in its own /proc/self/status.
"$PY" - <<'PYEOF'
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE = 0x4206
if libc.ptrace(PTRACE_SEIZE, int(os.environ["TESTPID"]), 0, 0) != 0:
    raise SystemExit("ptrace: " + os.strerror(ctypes.get_errno()))
time.sleep(1)
PYEOF
