# attack: a raw IPv4 socket (root): hand-made UDP datagram to the test's
# listener on 127.0.0.1:$PORT, past any per-port rule.
# detected: the test's UDP listener counts the datagrams it receives.
"$PY" - <<'PYEOF'
import os, socket, struct
payload = b"hello from a raw socket"
udp = struct.pack(">HHHH", 40000, int(os.environ["PORT"]), 8 + len(payload), 0) + payload
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
s.sendto(udp, ("127.0.0.1", 0))
PYEOF
