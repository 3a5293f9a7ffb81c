# attack: listen on a TCP port ($HOST:$PORT) for a second, as a server that
# something outside could reach.
# detected: the test keeps dialling $HOST:$PORT while the command runs.
"$PY" - <<'PYEOF'
import os, socket, time
fam = socket.AF_INET6 if ":" in os.environ["HOST"] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((os.environ["HOST"], int(os.environ["PORT"])))
s.listen(16)
time.sleep(1)
PYEOF
