package main

// cmdDoctor implements `stockade doctor`. Placeholder until the degrade work lands.
func cmdDoctor(args []string, io stdio) int { return fail(io.err, errNotYet) }
