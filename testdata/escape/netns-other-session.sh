# attack: connect to a server another session runs on loopback ($PORT), as a
# command of one agent would reach another agent's dev server or database.
# detected: the victim writes $VICTIM/hit when something connects.
"$PY" -c 'import os, socket; socket.create_connection(("127.0.0.1", int(os.environ["PORT"])), timeout=2).sendall(b"hello")'
