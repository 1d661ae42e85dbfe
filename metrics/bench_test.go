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

// BenchmarkCollectorAccounts is BenchmarkCollectorProjects with the jobs
// charging the leaves of a fair tree of 2 departments × 4 groups × 8
// users (74 accounts): each event also changes an account's demand and
// holdings, so every op recomputes the accounts' entitlements too.
func BenchmarkCollectorAccounts(b *testing.B) {
	c := NewCollector(1024, true)
	var names []string
	var parents []int32
	var shares []float64
	add := func(parent int32, s float64) int32 {
		names, parents, shares = append(names, string(rune('A'+len(names)))), append(parents, parent), append(shares, s)
		return int32(len(names) - 1)
	}
	var leaves []int32
	for d := range 2 {
		dept := add(-1, float64(60-20*d))
		for range 4 {
			g := add(dept, 1)
			for range 8 {
				leaves = append(leaves, add(g, 1))
			}
		}
	}
	c.Accounts(names, parents, shares)
	c.AccountSlots(1024)
	ps := make([]int32, 64)
	for i := range ps {
		ps[i] = c.Project(string(rune('a' + i)))
	}
	c.Advance(0)
	b.ReportAllocs()
	t := int64(0)
	i := 0
	for b.Loop() {
		p, a := ps[i%len(ps)], leaves[i%len(leaves)]
		t += 7
		c.Advance(t)
		if i/len(ps)%2 == 0 {
			c.Demand(p, 8)
			c.Hold(p, 8)
			c.AccountDemand(a, 8)
			c.AccountHold(a, 8)
		} else {
			c.Hold(p, -8)
			c.Demand(p, -8)
			c.AccountHold(a, -8)
			c.AccountDemand(a, -8)
		}
		i++
	}
}
