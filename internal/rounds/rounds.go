// Package rounds times commands the way make bench compares them: in
// interleaved rounds, each round running every command once in a rotating
// order, so that a busy machine slows all of them alike and none always goes
// first. The ratios it reports are to the first command, measured in the
// same run.
package rounds

import (
	"slices"
	"time"
)

// Run calls each of fns once per round for n rounds, after warmup calls
// spread over them, and returns each one's durations, in the order of fns.
func Run(n, warmup int, fns []func()) [][]time.Duration {
	return RunPaced(n, warmup, 0, fns)
}

// RunPaced is Run with a pause, not timed, before each call: what a call
// leaves to do in the background then does not slow the next one, as when
// an agent reads each result before it calls again.
func RunPaced(n, warmup int, pause time.Duration, fns []func()) [][]time.Duration {
	for i := range warmup {
		fns[i%len(fns)]()
	}
	series := make([][]time.Duration, len(fns))
	for i := range n {
		for j := range fns {
			k := (i + j) % len(fns)
			time.Sleep(pause)
			start := time.Now()
			fns[k]()
			series[k] = append(series[k], time.Since(start))
		}
	}
	return series
}

// Pct is the p-th percentile of d.
func Pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// Ratio is d's p50 over base's.
func Ratio(d, base []time.Duration) float64 {
	return float64(Pct(d, 50)) / float64(Pct(base, 50))
}
