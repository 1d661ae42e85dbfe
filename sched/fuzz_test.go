package sched

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fuzzBytes hands out small numbers from the fuzzer's input; once the input
// runs out every read returns zero, so any input decodes.
type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) next() int {
	if f.i >= len(f.b) {
		return 0
	}
	f.i++
	return int(f.b[f.i-1])
}

// n returns a number in [0, k).
func (f *fuzzBytes) n(k int) int { return f.next() % k }

func (f *fuzzBytes) bit() bool { return f.next()&1 == 1 }

// decodeSnapshot builds a small snapshot from fuzz bytes: up to 3 pools, 8
// nodes of 0..8 slots, 10 jobs and 12 allocations. Allocations are placed
// within the nodes' free slots, except that the input may ask for one that
// over-commits its node or holds a negative number of slots, and for a zero
// weight, which the snapshot must then be rejected for. Tasks may run past
// their time limit (the kill is on its way).
// It reports whether the snapshot is valid.
func decodeSnapshot(data []byte) (*Snapshot, bool) {
	f := &fuzzBytes{b: data}
	s := &Snapshot{Now: int64(f.n(200))}
	valid := true
	np := 1 + f.n(3)
	for i := range np {
		p := Pool{Name: fmt.Sprintf("p%d", i), Policy: policies[f.n(len(policies))],
			Preemption: f.bit(), Backfill: f.bit(), Serial: f.bit(),
			Reservations: ReserveEASY, Placement: PlaceBinpack}
		if f.bit() {
			p.Reservations = ReserveConservative
		}
		if f.bit() {
			p.Placement = PlaceSpread
		}
		if p.Policy == PolicyMultifactor {
			p.Multifactor = Multifactor{Age: float64(f.n(3)), FairShare: float64(f.n(3)), JobSize: float64(f.n(2)),
				QOS: float64(f.n(3)), MaxAge: int64(1 + f.n(100)), FavorSmall: f.bit()}
			if p.Multifactor.Age+p.Multifactor.FairShare+p.Multifactor.JobSize+p.Multifactor.QOS == 0 {
				p.Multifactor.Age = 1
			}
			if p.Multifactor.FairShare > 0 {
				p.Multifactor.FairShareMode = FairShareClassic
				if f.bit() {
					p.Multifactor.FairShareMode = FairShareTree
				}
			}
		}
		s.Pools = append(s.Pools, p)
	}
	leaves := decodeAccounts(f, s)
	nn := 1 + f.n(8)
	for i := range nn {
		n := Node{Name: fmt.Sprintf("n%d", i), Pool: f.n(np), Slots: f.n(9), ZeroSlotLimit: f.n(3)}
		if g := f.n(3); g > 0 {
			n.GPU = gpuTypes[g-1]
		}
		s.Nodes = append(s.Nodes, n)
	}
	nj := f.n(11)
	for i := range nj {
		j := Job{ID: fmt.Sprintf("j%d", i), Pool: f.n(np), Kind: KindExperiment,
			Submit: int64(f.n(8)), Seq: int64(f.n(8)), Priority: f.n(5), Weight: float64(1 + f.n(4)),
			Preemptible: f.bit(), Slots: f.n(19), Waiting: f.n(5), MaxRunning: f.n(6)}
		if f.n(8) == 0 {
			j.Weight = 0 // invalid
			valid = false
		}
		if f.bit() {
			j.TimeLimit = int64(1 + f.n(300))
		}
		if g := f.n(4); g > 0 && g <= len(gpuTypes) {
			j.GPU = gpuTypes[g-1]
		}
		if !decodeJobExtras(f, s, &j, leaves) {
			valid = false
		}
		if j.Slots > 0 && f.n(4) == 0 {
			j.MinSlots = 1 + f.n(j.Slots)
			j.Interactive = f.n(4) == 0
		}
		s.Jobs = append(s.Jobs, j)
	}
	if nj == 0 {
		return s, valid
	}
	free := make([]int, nn)
	zero := make([]int, nn)
	for i := range s.Nodes {
		free[i] = s.Nodes[i].Slots
	}
	na := f.n(13)
	for range na {
		a := Alloc{Job: f.n(nj), Start: s.Now - int64(f.n(300)), Preempting: f.bit(), Backfilled: f.bit()}
		a.Moving = a.Preempting && f.n(4) == 0
		parts := 1 + f.n(3)
		for range parts {
			n := f.n(nn)
			k := f.n(9)
			if k > free[n] {
				if f.n(16) != 0 {
					k = free[n] // stay valid
				} else {
					valid = false // over-commit on purpose
				}
			}
			if f.n(32) == 0 {
				k = -1 - f.n(4) // negative: invalid
				valid = false
			}
			free[n] -= k
			if k == 0 {
				zero[n]++
			}
			if slices.ContainsFunc(a.Nodes, func(x NodeSlots) bool { return x.Node == int32(n) }) {
				valid = false // a node listed twice
			}
			a.Nodes = append(a.Nodes, NodeSlots{Node: int32(n), Slots: int32(k)})
		}
		s.Allocs = append(s.Allocs, a)
	}
	return s, valid
}

// decodeAccounts adds accounts, QOS and licenses, and returns the leaf
// accounts.
func decodeAccounts(f *fuzzBytes, s *Snapshot) []int {
	na := 1 + f.n(4)
	for i := range na {
		parent := -1
		if i > 0 && f.bit() {
			parent = f.n(i)
		}
		s.Accounts = append(s.Accounts, Account{Name: fmt.Sprintf("a%d", i), Parent: parent,
			Shares: float64(f.n(3)), Usage: float64(f.n(4)) / 4})
	}
	var leaves []int
	for i := range s.Accounts {
		if !slices.ContainsFunc(s.Accounts, func(a Account) bool { return a.Parent == i }) {
			leaves = append(leaves, i)
		}
	}
	if f.bit() {
		s.QOS = []QOS{{Name: "normal"}, {Name: "high", Priority: 10}, {Name: "emergency", Priority: 100, Preempt: true}}
	}
	for i := range f.n(3) {
		s.Licenses = append(s.Licenses, License{Name: fmt.Sprintf("l%d", i), Total: f.n(5)})
	}
	return leaves
}

// decodeJobExtras sets a job's account, QOS, nice and licenses; now and
// then an account or license use is invalid on purpose, and it then
// reports false.
func decodeJobExtras(f *fuzzBytes, s *Snapshot, j *Job, leaves []int) bool {
	valid := true
	j.Account = leaves[f.n(len(leaves))]
	if f.n(32) == 0 {
		j.Account = len(s.Accounts) + 1
		mf := &s.Pools[j.Pool].Multifactor
		if s.Pools[j.Pool].Policy == PolicyMultifactor && mf.FairShare > 0 {
			valid = false
		}
	}
	if len(s.QOS) > 0 {
		j.QOS = f.n(3)
	}
	j.Nice = f.n(5) - 2
	if len(s.Licenses) > 0 && f.bit() {
		u := LicenseUse{License: f.n(len(s.Licenses)), Count: 1 + f.n(3)}
		if f.n(32) == 0 {
			u.Count = -f.n(2) // invalid
			valid = false
		}
		j.Licenses = append(j.Licenses, u)
	}
	return valid
}

// FuzzSchedule checks that Schedule never panics, rejects the inconsistent
// snapshots the decoder makes on purpose, and that every plan it returns
// keeps the invariants the property tests check, with a fresh and a reused
// Scheduler agreeing.
func FuzzSchedule(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 2, 8, 0, 0, 3, 0, 0, 1, 0, 1, 2, 4, 2, 1, 3, 0, 5, 1, 1, 1, 2, 3, 4})
	f.Add([]byte("priority preemption backfill gangs and zero-slot tasks on small nodes"))
	f.Add([]byte{3, 1, 1, 1, 0, 0, 0, 2, 1, 1, 1, 0, 1, 8, 8, 8, 8, 8, 8, 8, 8, 2, 2, 2, 2, 9, 9, 9, 16, 17, 18, 4, 4, 4, 4, 4})
	f.Add([]byte{1, 3, 0, 0, 0, 0, 1, 7, 8, 1, 1, 8, 2, 0, 9, 5, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	var reused Scheduler
	f.Fuzz(func(t *testing.T, data []byte) {
		s, valid := decodeSnapshot(data)
		before := cloneSnapshot(s)
		p, err := reused.Schedule(s)
		if !snapshotsEqual(before, s) {
			t.Fatal("Schedule modified the snapshot")
		}
		if !valid {
			if err == nil {
				t.Fatalf("inconsistent snapshot accepted:\n%s", fmtSnapshot(s))
			}
			return
		}
		if err != nil {
			t.Fatalf("valid snapshot rejected: %v\n%s", err, fmtSnapshot(s))
		}
		plan := clonePlan(p)
		if bad := planProblems(s, &plan); len(bad) > 0 {
			t.Fatalf("%s\nsnapshot:\n%splan:\n%s", strings.Join(bad, "\n"), fmtSnapshot(s), fmtPlan(s, &plan))
		}
		fresh, err := Schedule(s)
		if err != nil || !plansEqual(&plan, fresh) {
			t.Fatalf("fresh Scheduler differs (err %v)\nreused:\n%sfresh:\n%s", err, fmtPlan(s, &plan), fmtPlan(s, fresh))
		}
	})
}
