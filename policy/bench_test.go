package policy

import "testing"

// BenchmarkDefault is the cost of loading the built-in policy, which every
// `stockade run` and `stockade check` pays once at start-up.
func BenchmarkDefault(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loadDefault(); err != nil {
			b.Fatal(err)
		}
	}
}
