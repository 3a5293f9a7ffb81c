# not an attack: the victim of netns-other-session. A server on loopback at
# $PORT, as a dev server of one session; it writes $PWD/ready once listening,
# and $PWD/hit when something connects, then leaves (after 20 s at most).
"$PY" - <<'PYEOF'
import os, socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(os.environ["PORT"])))
s.listen(4)
s.settimeout(20)
open("ready", "w").close()
try:
    c, _ = s.accept()
    open("hit", "w").write("connected")
except socket.timeout:
    pass
PYEOF
