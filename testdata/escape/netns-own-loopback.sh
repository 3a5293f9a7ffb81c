# not an attack: ordinary work. A server on the session's own loopback
# (127.0.0.1 and ::1) and a client of it in the same command.
"$PY" - <<'PYEOF'
import socket, threading
for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.bind((host, 0))
    s.listen(1)
    def serve(s=s):
        c, _ = s.accept()
        c.sendall(b"pong")
        c.close()
    threading.Thread(target=serve).start()
    c = socket.create_connection((host, s.getsockname()[1]), timeout=5)
    print(host, c.recv(4).decode())
PYEOF
