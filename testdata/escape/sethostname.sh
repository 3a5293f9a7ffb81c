# attack: set the host name (needs CAP_SYS_ADMIN). Both runs are in a UTS
# namespace of their own, so the host's name never changes.
# detected: after the command, a process outside the sandbox in the same
# namespace writes the host name to $PWD/.after-hostname for the test.
hostname "$MARK"
"$PY" -c 'import os, socket; socket.sethostname(os.environ["MARK"])'
