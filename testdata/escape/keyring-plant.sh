# attack: plant a key in the user's keyring with add_key(2); it would outlive
# the command, for the user's later programs to find.
# detected: the test searches the user's keyring for $KEYDESC afterwards.
"$TOOL" key-add "$KEYDESC" planted
