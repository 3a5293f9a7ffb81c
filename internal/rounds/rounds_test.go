package rounds

import (
	"slices"
	"testing"
	"time"
)

func TestRunRotatesAndCounts(t *testing.T) {
	var calls []int
	fns := []func(){func() { calls = append(calls, 0) }, func() { calls = append(calls, 1) }, func() { calls = append(calls, 2) }}
	series := Run(4, 2, fns)
	want := []int{0, 1, 0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2} // warm-up, then rounds starting at 0, 1, 2, 0
	if !slices.Equal(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
	for k, d := range series {
		if len(d) != 4 {
			t.Errorf("series %d has %d durations, want 4", k, len(d))
		}
	}
}

func TestPct(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if got := Pct(d, 50); got != 51*time.Millisecond {
		t.Errorf("p50 %v", got)
	}
	if got := Pct(d, 99); got != 100*time.Millisecond {
		t.Errorf("p99 %v", got)
	}
	if d[0] != 100*time.Millisecond {
		t.Errorf("Pct sorted its argument")
	}
	if r := Ratio(d, d[:50]); r != 51.0/76.0 {
		t.Errorf("ratio %v", r)
	}
}
