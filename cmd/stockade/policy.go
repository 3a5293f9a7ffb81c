package main

import "errors"

var errNotYet = errors.New("not implemented yet")

// cmdPolicy implements `stockade policy`. Placeholder until the policy work lands.
func cmdPolicy(args []string, io stdio) int { return fail(io.err, errNotYet) }
