# attack: a packet socket (root) on the loopback device, to sniff the traffic
# of other processes: the test sends datagrams holding a secret over loopback
# while the command runs.
# detected: the test looks for that secret in $PWD/loot.
"$PY" - <<'PYEOF'
import socket, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))  # ETH_P_ALL
s.bind(("lo", 0))
s.settimeout(0.2)
end = time.time() + 1
with open("loot", "wb") as out:
    while time.time() < end:
        try:
            out.write(s.recv(65536))
        except socket.timeout:
            pass
PYEOF
