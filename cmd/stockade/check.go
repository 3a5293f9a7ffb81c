package main

// cmdCheck implements `stockade check`. Placeholder until the policy work lands.
func cmdCheck(args []string, io stdio) int { return fail(io.err, errNotYet) }
