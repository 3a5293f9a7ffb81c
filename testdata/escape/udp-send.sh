# attack: send UDP datagrams to a listener the test runs on loopback
# ($HOST:$PORT), with bash's /dev/udp and with python.
# detected: the test's listener counts the datagrams it receives.
echo "hello from bash" > "/dev/udp/$HOST/$PORT"
"$PY" -c 'import os, socket; h = os.environ["HOST"]; s = socket.socket(socket.AF_INET6 if ":" in h else socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"hello from python", (h, int(os.environ["PORT"])))'
