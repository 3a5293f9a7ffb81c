//go:build race

package policy

// raceEnabled: the race detector's bookkeeping allocates too, so allocation
// budgets are asserted only without it (make test runs them both ways).
const raceEnabled = true
