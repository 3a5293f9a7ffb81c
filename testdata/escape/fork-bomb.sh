# attack: a real fork bomb. Only ever run sandboxed, with a max_processes bound
# (bounded.toml) and a timeout; fork-bounded.sh is its control.
# detected: the test checks that the host can still start processes while the
# bomb runs, that stockade stops it at the timeout, and that no process of it
# is left.
b() { b | b & }
b
