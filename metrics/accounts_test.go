package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestWeightedFill(t *testing.T) {
	cases := []struct {
		name     string
		capacity float64
		demands  []float64
		weights  []float64
		want     []float64
	}{
		{"60/40 both demanding", 10, []float64{100, 100}, []float64{60, 40}, []float64{6, 4}},
		{"one idle gives its share away", 10, []float64{100, 0}, []float64{60, 40}, []float64{10, 0}},
		{"a small demand gives the rest by weight", 10, []float64{2, 100, 100}, []float64{60, 20, 20}, []float64{2, 4, 4}},
		{"everyone satisfied", 10, []float64{1, 2, 3}, []float64{60, 30, 10}, []float64{1, 2, 3}},
		{"satisfied above its weight's part", 10, []float64{100, 3}, []float64{60, 40}, []float64{7, 3}},
		{"no weight takes what is left", 10, []float64{3, 100}, []float64{1, 0}, []float64{3, 7}},
		{"no weight gets nothing while others want it", 10, []float64{100, 5}, []float64{1, 0}, []float64{10, 0}},
		{"no weights at all split equally", 10, []float64{2, 100, 100}, []float64{0, 0, 0}, []float64{2, 4, 4}},
		{"nothing to share", 0, []float64{5, 5}, []float64{1, 1}, []float64{0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := WeightedFill(c.capacity, c.demands, c.weights)
			for i := range got {
				if math.Abs(got[i]-c.want[i]) > 1e-9 {
					t.Fatalf("WeightedFill(%v, %v, %v) = %v, want %v", c.capacity, c.demands, c.weights, got, c.want)
				}
			}
		})
	}
}

// tree is examples/multifactor.yaml's accounts with two users under
// phys-part: physics 60, biology 40; leaves markov, ann, bio-env, bio-epi.
var tree = struct {
	names   []string
	parents []int32
	shares  []float64
}{
	names:   []string{"physics", "biology", "phys-part", "bio-env", "bio-epi", "phys-part/markov", "phys-part/ann"},
	parents: []int32{-1, -1, 0, 1, 1, 2, 2},
	shares:  []float64{60, 40, 1, 1, 1, 1, 1},
}

// entitled runs one hour on 32 slots with the given demand per account
// and returns each account's entitled slot-hours, by name.
func entitled(t *testing.T, demand map[string]int) map[string]float64 {
	t.Helper()
	c := NewCollector(32, false)
	c.Accounts(tree.names, tree.parents, tree.shares)
	c.AccountSlots(32)
	c.Advance(0)
	for i, n := range tree.names {
		c.AccountDemand(int32(i), demand[n])
	}
	c.Advance(3600)
	out := map[string]float64{}
	for _, a := range c.Summarize(3600).Accounts {
		out[a.Name] = a.EntitledSlotHours
	}
	return out
}

func TestAccountEntitlement(t *testing.T) {
	cases := []struct {
		name   string
		demand map[string]int
		want   map[string]float64
	}{
		{"every leaf demands: capacity × normalised share",
			map[string]int{"phys-part/markov": 32, "phys-part/ann": 32, "bio-env": 32, "bio-epi": 32},
			map[string]float64{"physics": 19.2, "biology": 12.8, "phys-part": 19.2, "phys-part/markov": 9.6, "phys-part/ann": 9.6, "bio-env": 6.4, "bio-epi": 6.4}},
		{"an idle user's share stays in its account",
			map[string]int{"phys-part/markov": 32, "bio-env": 32, "bio-epi": 32},
			map[string]float64{"physics": 19.2, "biology": 12.8, "phys-part": 19.2, "phys-part/markov": 19.2, "bio-env": 6.4, "bio-epi": 6.4}},
		{"an idle department gives its share to the other",
			map[string]int{"phys-part/markov": 32, "phys-part/ann": 32},
			map[string]float64{"physics": 32, "phys-part": 32, "phys-part/markov": 16, "phys-part/ann": 16}},
		{"a small demand gives its sibling the rest",
			map[string]int{"phys-part/markov": 32, "phys-part/ann": 32, "bio-env": 32, "bio-epi": 2},
			map[string]float64{"physics": 19.2, "biology": 12.8, "phys-part": 19.2, "phys-part/markov": 9.6, "phys-part/ann": 9.6, "bio-env": 10.8, "bio-epi": 2}},
		{"a satisfied department gives the other the rest",
			map[string]int{"phys-part/markov": 32, "bio-env": 4},
			map[string]float64{"physics": 28, "biology": 4, "phys-part": 28, "phys-part/markov": 28, "bio-env": 4}},
		{"demand below capacity is all entitled",
			map[string]int{"phys-part/markov": 8, "bio-epi": 8},
			map[string]float64{"physics": 8, "biology": 8, "phys-part": 8, "phys-part/markov": 8, "bio-epi": 8}},
		{"an account's own jobs count as one more child of 1 share",
			map[string]int{"phys-part": 32, "phys-part/markov": 32, "bio-env": 32},
			map[string]float64{"physics": 19.2, "biology": 12.8, "phys-part": 19.2, "phys-part/markov": 9.6, "bio-env": 12.8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := entitled(t, c.demand)
			if len(got) != len(c.want) {
				t.Fatalf("entitled %v, want %v", got, c.want)
			}
			for n, w := range c.want {
				if math.Abs(got[n]-w) > 1e-3 {
					t.Errorf("%s entitled to %v slot-hours, want %v (all: %v)", n, got[n], w, got)
				}
			}
		})
	}
}

// TestAccountFairness: on 10 slots, physics (60) and biology (40) both
// demand 10 for 100 s; physics holds all 10. Physics gets 1000 of 600
// entitled slot-seconds, biology 0 of 400: Jain over (5/3, 0) is 0.5.
// Then biology alone holds 10 for 100 s while physics holds none and
// still demands: biology gets 1000 of 400, so both end at 1000 of 1200 and
// 1000 of 800.
func TestAccountFairness(t *testing.T) {
	c := NewCollector(10, false)
	c.Accounts([]string{"physics", "biology"}, []int32{-1, -1}, []float64{60, 40})
	c.AccountSlots(10)
	c.Advance(0)
	c.AccountDemand(0, 10)
	c.AccountDemand(1, 10)
	c.AccountHold(0, 10)
	c.Advance(100)
	if got := c.acc.summariesAt(t, 100); got != 0.5 {
		t.Errorf("Jain after phase 1 = %v, want 0.5", got)
	}
	c.AccountHold(0, -10)
	c.AccountHold(1, 10)
	c.Advance(200)
	s := c.Summarize(200)
	want := []AccountSummary{
		{Name: "physics", NormShares: 0.6, SlotHours: Round(1000.0/3600, 3), EntitledSlotHours: Round(1200.0/3600, 3), ShareRatio: Round(1000.0/1200, 4), Charged: true},
		{Name: "biology", NormShares: 0.4, SlotHours: Round(1000.0/3600, 3), EntitledSlotHours: Round(800.0/3600, 3), ShareRatio: 1.25, Charged: true},
	}
	if !reflect.DeepEqual(s.Accounts, want) {
		t.Errorf("accounts %+v, want %+v", s.Accounts, want)
	}
	x, y := 1000.0/1200, 1.25
	if wantJain := Round((x+y)*(x+y)/(2*(x*x+y*y)), 4); s.JainAccounts != wantJain {
		t.Errorf("Jain over accounts = %v, want %v", s.JainAccounts, wantJain)
	}
}

// summariesAt is the Jain index over accounts as of now, leaving the
// accounts' integrals as they are.
func (f *accountFair) summariesAt(t *testing.T, now int64) float64 {
	t.Helper()
	saved := append([]account(nil), f.accts...)
	_, jain, _ := f.summaries(now)
	copy(f.accts, saved)
	return jain
}

func TestNoAccountsNoSummary(t *testing.T) {
	c := NewCollector(4, false)
	p := c.Project("p")
	c.Advance(0)
	c.Demand(p, 4)
	c.Hold(p, 4)
	c.Advance(10)
	if s := c.Summarize(10); s.Accounts != nil || s.JainAccounts != 0 {
		t.Errorf("a run without accounts has accounts' fairness %v %+v", s.JainAccounts, s.Accounts)
	}
}

// TestAccountEntitlementProperties checks random trees and demands: the
// entitlements use min(capacity, demand) of the slots; no account is
// entitled to more than its subtree demands; each account's entitlement
// is its sub-accounts' and own jobs' together; siblings both short of
// their demand get entitlements in proportion to their shares; and when
// every leaf demands the whole capacity, each leaf gets capacity × its
// normalised share.
func TestAccountEntitlementProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			n := 1 + r.IntN(12)
			names, parents, shares := make([]string, n), make([]int32, n), make([]float64, n)
			for i := range n {
				names[i] = fmt.Sprint("a", i)
				parents[i] = -1
				if i > 0 && r.IntN(3) > 0 {
					parents[i] = int32(r.IntN(i))
				}
				shares[i] = float64(1 + r.IntN(5))
			}
			slots := 1 + r.IntN(64)
			saturate := trial%4 == 0
			c := NewCollector(slots, false)
			c.Accounts(names, parents, shares)
			c.AccountSlots(slots)
			c.Advance(0)
			f := &c.acc
			total := 0
			for i := range n {
				d := r.IntN(3) * r.IntN(40)
				if saturate && !f.accts[i].kids {
					d = slots
				}
				if saturate && f.accts[i].kids {
					d = 0
				}
				c.AccountDemand(int32(i), d)
				total += d
			}
			c.Advance(1)
			checkEntitlements(t, f, float64(slots), float64(total), saturate)
		})
	}
}

func checkEntitlements(t *testing.T, f *accountFair, slots, total float64, saturate bool) {
	t.Helper()
	const eps = 1e-9
	top := 0.0
	for _, a := range f.roots {
		top += f.accts[a].ent
	}
	if math.Abs(top-min(slots, total)) > eps {
		t.Errorf("top accounts entitled to %v of %v slots for a demand of %v", top, slots, total)
	}
	for i := range f.accts {
		x := &f.accts[i]
		if x.ent > float64(x.sub)+eps || x.ownEnt > float64(x.own)+eps {
			t.Errorf("%s entitled to %v (own %v) for a demand of %d (own %d)", x.name, x.ent, x.ownEnt, x.sub, x.own)
		}
		parts := x.ownEnt
		for _, k := range f.kids(int32(i)) {
			parts += f.accts[k].ent
			for _, l := range f.kids(int32(i)) {
				a, b := &f.accts[k], &f.accts[l]
				if a.ent < float64(a.sub)-eps && b.ent < float64(b.sub)-eps && math.Abs(a.ent/a.shares-b.ent/b.shares) > eps {
					t.Errorf("siblings %s and %s both short: %v for %v shares, %v for %v", a.name, b.name, a.ent, a.shares, b.ent, b.shares)
				}
			}
		}
		if math.Abs(parts-x.ent) > eps {
			t.Errorf("%s entitled to %v, its parts to %v", x.name, x.ent, parts)
		}
		if saturate && !x.kids && math.Abs(x.ent-slots*x.norm) > eps {
			t.Errorf("%s entitled to %v with every leaf demanding, want %v × %v", x.name, x.ent, slots, x.norm)
		}
	}
}

// TestAccountCallsDoNotAllocate: the steady state of the accounts'
// fairness (demand, holds, the recomputation at Advance) allocates
// nothing.
func TestAccountCallsDoNotAllocate(t *testing.T) {
	c := NewCollector(32, false)
	c.Accounts(tree.names, tree.parents, tree.shares)
	c.AccountSlots(32)
	c.Advance(0)
	now := int64(0)
	allocs := testing.AllocsPerRun(200, func() {
		for _, a := range []int32{5, 6, 3, 4} {
			now++
			c.AccountDemand(a, 8)
			c.AccountHold(a, 8)
			c.Advance(now)
		}
		for _, a := range []int32{5, 6, 3, 4} {
			now++
			c.AccountHold(a, -8)
			c.AccountDemand(a, -8)
			c.Advance(now)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per cycle, want 0", allocs)
	}
}
