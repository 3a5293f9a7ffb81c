# attack: read a key the test stored in the user's keyring outside the
# sandbox ($KEYDESC; Kerberos tickets live there on Fedora and RHEL) with
# keyctl(KEYCTL_SEARCH) and keyctl(KEYCTL_READ).
# detected: the key's secret value turns up in the workdir.
"$TOOL" key-read "$KEYDESC" > loot
