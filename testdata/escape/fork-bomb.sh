# attack: a real fork bomb. Only ever run sandboxed, with a max_processes bound
# (bounded.toml) and a timeout; fork-bounded.sh is its control.
# detected: the test checks that the host can still start processes while the
# bomb runs, that stockade stops it at the timeout, and that no process of it
# is left. The shell waits, so the bomb runs until the timeout: stockade stops
# everything a command left as soon as its shell exits.
b() { b | b & }
b
sleep 30
