# attack: connect to a unix socket a process outside the sandbox listens on
# ($SOCK: a path, or @name for an abstract socket): docker.sock, ssh-agent and
# dbus are reached this way.
# detected: the test's listener counts the connections it accepts.
"$PY" - <<'PYEOF'
import os, socket
addr = os.environ["SOCK"]
if addr.startswith("@"):
    addr = "\0" + addr[1:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(addr)
s.sendall(b"hello")
PYEOF
