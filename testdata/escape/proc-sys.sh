# attack: write a kernel setting under /proc/sys (kernel.domainname; root may
# write it without capabilities, only the file-system rules stand in the way).
# Both runs are in a UTS namespace of their own, so the host's value never
# changes.
# detected: after the command, a process outside the sandbox in the same
# namespace writes the value to $PWD/.after-domainname for the test.
echo "$MARK" > /proc/sys/kernel/domainname
