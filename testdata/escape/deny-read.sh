# attack: read a secret under $HOME that the policy denies ($SECRET, relative
# to HOME), by every plain route: cat, cp, a symlink made in the workdir,
# /proc/self/root, python, and listing its directory.
# detected: the test looks for the secret's contents in the files written to
# the workdir (the secret is random and known only to the test).
cat "$HOME/$SECRET" > loot-cat
cp "$HOME/$SECRET" loot-cp
ln -s "$HOME/$SECRET" secret-link
cat secret-link > loot-link
cat "/proc/self/root$HOME/$SECRET" > loot-procroot
"$PY" -c 'import os; open("loot-py", "w").write(open(os.environ["HOME"] + "/" + os.environ["SECRET"]).read())'
ls -la "$(dirname "$HOME/$SECRET")"
