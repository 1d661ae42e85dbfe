package metrics

import "testing"

// BenchmarkCollectorProjects is the steady state of a replay: 64 projects
// whose jobs queue, start and end, each event moving the clock, so that
// every op recomputes the entitlements once. One op is one event.
func BenchmarkCollectorProjects(b *testing.B) {
	c := NewCollector(1024, true)
	ps := make([]int32, 64)
	for i := range ps {
		ps[i] = c.Project(string(rune('a' + i)))
	}
	c.Advance(0)
	b.ReportAllocs()
	t := int64(0)
	i := 0
	for b.Loop() {
		p := ps[i%len(ps)]
		t += 7
		c.Advance(t)
		if i/len(ps)%2 == 0 {
			c.Demand(p, 8)
			c.Hold(p, 8)
		} else {
			c.Hold(p, -8)
			c.Demand(p, -8)
		}
		i++
	}
}
