# attack: reopen a file the test process holds open ($FD, a denied secret)
# through /proc/TESTPID/fd, without walking the secret's path.
# detected: the test looks for the secret's contents in $PWD/loot.
cat "/proc/$TESTPID/fd/$FD" > loot
"$PY" -c 'import os; open("loot2", "w").write(open("/proc/%s/fd/%s" % (os.environ["TESTPID"], os.environ["FD"])).read())'
