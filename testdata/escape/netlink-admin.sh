# attack: change the network configuration over netlink (needs CAP_NET_ADMIN):
# add an address to the loopback device. Both runs are in a network namespace
# of their own, so the host's configuration never changes.
# detected: after the command, a process outside the sandbox in the same
# namespace writes `ip addr show lo` to $PWD/.after-addr for the test.
ip addr add 127.77.0.1/32 dev lo
