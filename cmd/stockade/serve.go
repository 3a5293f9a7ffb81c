package main

// cmdServe implements `stockade serve`.
func cmdServe(args []string, io stdio) int { return fail(io.err, errNotYet) }
