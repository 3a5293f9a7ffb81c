package main

// cmdRun implements `stockade run`.
func cmdRun(args []string, io stdio) int { return fail(io.err, errNotYet) }
