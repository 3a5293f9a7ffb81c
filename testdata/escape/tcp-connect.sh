# attack: open a TCP connection to a listener the test runs on loopback
# ($HOST:$PORT), with bash's /dev/tcp and with python.
# detected: the test's listener counts the connections it accepts.
exec 3<>"/dev/tcp/$HOST/$PORT" && echo "hello from bash" >&3
"$PY" -c 'import os, socket; s = socket.create_connection((os.environ["HOST"], int(os.environ["PORT"])), timeout=2); s.sendall(b"hello from python")'
