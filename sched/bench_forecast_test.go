package sched

import (
	"fmt"
	"testing"
)

// BenchmarkForecast: one forecast (what the master runs every 10 seconds
// for the estimates of every waiting job) over the realistic cluster, at
// a size where a forecast's many passes stay within a benchmark's time.
func BenchmarkForecast(b *testing.B) {
	for _, pol := range realPolicies {
		s := realSnapshot(500, 2_000, 1, pol.pool)
		b.Run(fmt.Sprintf("policy=%s", pol.name), func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = len(Forecast(s))
			}
			b.ReportMetric(float64(n), "estimates")
		})
	}
}
