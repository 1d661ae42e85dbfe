package sched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// This file holds an independent oracle for multifactor priorities, written
// straight from the definitions (recursion, no shared code with the core),
// the random parts of snapshots that multifactor pools and licenses read,
// and the property tests for them.

// oraclePriorities returns each job's multifactor priority (0 outside
// multifactor pools).
func oraclePriorities(s *Snapshot) []float64 {
	out := make([]float64, len(s.Jobs))
	capacity := make([]int, len(s.Pools))
	for _, n := range s.Nodes {
		capacity[n.Pool] += n.Slots
	}
	poolMax, qosMax := 0.0, 0
	for _, p := range s.Pools {
		if p.Policy == PolicyMultifactor {
			poolMax = math.Max(poolMax, p.Multifactor.PoolPriority)
		}
	}
	for _, q := range s.QOS {
		qosMax = max(qosMax, q.Priority)
	}
	for ji, j := range s.Jobs {
		pl := s.Pools[j.Pool]
		if pl.Policy != PolicyMultifactor {
			continue
		}
		mf := pl.Multifactor
		prio := -float64(j.Nice)
		if mf.MaxAge > 0 {
			age := math.Min(math.Max(float64(s.Now-j.Submit), 0), float64(mf.MaxAge))
			prio += mf.Age * age / float64(mf.MaxAge)
		}
		if mf.FairShare > 0 {
			prio += mf.FairShare * oracleFairShare(s, mf.FairShareMode, j.Account)
		}
		if capacity[j.Pool] > 0 {
			size := math.Min(float64(j.Slots)/float64(capacity[j.Pool]), 1)
			if mf.FavorSmall {
				size = 1 - size
			}
			prio += mf.JobSize * size
		} else if mf.FavorSmall {
			prio += mf.JobSize
		}
		if qosMax > 0 {
			prio += mf.QOS * float64(s.QOS[j.QOS].Priority) / float64(qosMax)
		}
		if poolMax > 0 {
			prio += mf.Pool * mf.PoolPriority / poolMax
		}
		out[ji] = prio
	}
	return out
}

func oracleKids(s *Snapshot, parent int) []int {
	var kids []int
	for i, a := range s.Accounts {
		if a.Parent == parent {
			kids = append(kids, i)
		}
	}
	return kids
}

func oracleSubtreeUsage(s *Snapshot, a int) float64 {
	u := s.Accounts[a].Usage
	for _, k := range oracleKids(s, a) {
		u += oracleSubtreeUsage(s, k)
	}
	return u
}

// oracleSibShare is a's shares over the shares of it and its siblings.
func oracleSibShare(s *Snapshot, a int) float64 {
	sum := 0.0
	for _, k := range oracleKids(s, s.Accounts[a].Parent) {
		sum += s.Accounts[k].Shares
	}
	if sum == 0 {
		return 0
	}
	return s.Accounts[a].Shares / sum
}

func oracleFairShare(s *Snapshot, mode FairShareMode, a int) float64 {
	if mode == FairShareClassic {
		share := 1.0
		for at := a; at >= 0; at = s.Accounts[at].Parent {
			share *= oracleSibShare(s, at)
		}
		return math.Min(math.Max(share-oracleSubtreeUsage(s, a), 0), 1)
	}
	// Fair tree: rank users depth first, siblings by S/U among siblings
	// (then by shares); a user is an account without children that a job
	// (of a pool that weighs fair share) charges or that has usage.
	// Slurm's ties: tied users share a rank, tied accounts are merged,
	// and an account tied with the user before it starts tied with it.
	lf, sh := oracleLevels(s)
	tied := func(x, y int) bool { return lf[x] == lf[y] && sh[x] == sh[y] }
	type reach struct {
		a    int
		tied bool
	}
	var order []reach
	var walk func(list []int, tiedStart bool)
	walk = func(list []int, tiedStart bool) {
		list = slices.DeleteFunc(list, func(k int) bool { return !oracleHasUser(s, k) })
		isUser := func(k int) bool { return len(oracleKids(s, k)) == 0 }
		slices.SortStableFunc(list, func(x, y int) int {
			switch {
			case lf[x] != lf[y]:
				return cmpDesc(lf[x], lf[y])
			case sh[x] != sh[y]:
				return cmpDesc(sh[x], sh[y])
			case isUser(x) != isUser(y):
				if isUser(x) {
					return -1
				}
				return 1
			}
			return 0
		})
		for i := 0; i < len(list); i++ {
			k := list[i]
			t := tiedStart
			if i > 0 {
				t = tied(list[i-1], k)
			}
			if isUser(k) {
				order = append(order, reach{k, t})
				continue
			}
			merged := slices.Clone(oracleKids(s, k))
			for i+1 < len(list) && tied(k, list[i+1]) {
				i++
				merged = append(merged, oracleKids(s, list[i])...)
			}
			walk(merged, t)
		}
	}
	walk(oracleKids(s, -1), false)
	n := len(order)
	rank := n
	for i, r := range order {
		if !r.tied {
			rank = n - i
		}
		if r.a == a {
			return float64(rank) / float64(n)
		}
	}
	return 0
}

// oracleLevels is every account's level fair share and share among its
// siblings.
func oracleLevels(s *Snapshot) (lf, sh []float64) {
	lf, sh = make([]float64, len(s.Accounts)), make([]float64, len(s.Accounts))
	for a := range s.Accounts {
		sumU := 0.0
		for _, k := range oracleKids(s, s.Accounts[a].Parent) {
			sumU += oracleSubtreeUsage(s, k)
		}
		u := 0.0
		if sumU > 0 {
			u = oracleSubtreeUsage(s, a) / sumU
		}
		sh[a] = oracleSibShare(s, a)
		switch {
		case sh[a] == 0:
			lf[a] = 0
		case u == 0:
			lf[a] = math.Inf(1)
		default:
			lf[a] = sh[a] / u
		}
	}
	return lf, sh
}

// oracleHasUser reports whether a user (oracleUser) is at or under a.
func oracleHasUser(s *Snapshot, a int) bool {
	kids := oracleKids(s, a)
	if len(kids) == 0 {
		return oracleUser(s, a)
	}
	return slices.ContainsFunc(kids, func(k int) bool { return oracleHasUser(s, k) })
}

// oracleUser reports whether account a stands for a user: it has usage
// or a job in a multifactor pool with a fair-share weight charges it.
func oracleUser(s *Snapshot, a int) bool {
	if s.Accounts[a].Usage > 0 {
		return true
	}
	for _, j := range s.Jobs {
		if j.Account == a && j.Pool >= 0 && j.Pool < len(s.Pools) &&
			s.Pools[j.Pool].Policy == PolicyMultifactor && s.Pools[j.Pool].Multifactor.FairShare > 0 {
			return true
		}
	}
	return false
}

// randMultifactor fills in what multifactor pools and licenses read: pool
// weights, an account tree, QOS, licenses, and each job's account, QOS,
// nice and license uses. Jobs in other pools get the same fields, which
// their policies must ignore (QOS preemption aside).
func randMultifactor(rng *rand.Rand, s *Snapshot) {
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	for i := range s.Pools {
		if s.Pools[i].Policy != PolicyMultifactor {
			continue
		}
		mf := Multifactor{Age: pick(0, 1, 10), FairShare: pick(0, 1, 100), JobSize: pick(0, 1, 5),
			QOS: pick(0, 10, 1000), Pool: pick(0, 1), PoolPriority: pick(0, 1, 5), FavorSmall: rng.IntN(2) == 0}
		if mf.Age+mf.FairShare+mf.JobSize+mf.QOS+mf.Pool == 0 {
			mf.Age = 1
		}
		if mf.Age > 0 || rng.IntN(2) == 0 {
			mf.MaxAge = int64(1 + rng.IntN(300))
		}
		if mf.FairShare > 0 {
			mf.FairShareMode = []FairShareMode{FairShareClassic, FairShareTree}[rng.IntN(2)]
		}
		s.Pools[i].Multifactor = mf
	}
	na := 1 + rng.IntN(6)
	for i := range na {
		parent := -1
		if i > 0 && rng.IntN(3) > 0 {
			parent = rng.IntN(i)
		}
		s.Accounts = append(s.Accounts, Account{Name: fmt.Sprintf("acct%d", i), Parent: parent,
			Shares: pick(0, 1, 1, 2, 3), Usage: pick(0, 0, 0.1, 0.25, 0.5, 1.5)})
	}
	var leaves []int
	for i := range s.Accounts {
		if len(oracleKids(s, i)) == 0 {
			leaves = append(leaves, i)
		}
	}
	if rng.IntN(2) == 0 {
		s.QOS = []QOS{{Name: "normal"}, {Name: "high", Priority: 10}, {Name: "emergency", Priority: 100, Preempt: rng.IntN(3) > 0}}
	}
	if rng.IntN(2) == 0 {
		for i := range 1 + rng.IntN(2) {
			s.Licenses = append(s.Licenses, License{Name: fmt.Sprintf("lic%d", i), Total: rng.IntN(7)})
		}
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		j.Account = leaves[rng.IntN(len(leaves))]
		if len(s.QOS) > 0 {
			j.QOS = []int{0, 0, 0, 1, 2}[rng.IntN(5)]
		}
		if rng.IntN(4) == 0 {
			j.Nice = rng.IntN(11) - 5
		}
		if len(s.Licenses) > 0 && rng.IntN(3) == 0 {
			for l := range s.Licenses {
				if l == 0 || rng.IntN(2) == 0 {
					j.Licenses = append(j.Licenses, LicenseUse{License: l, Count: 1 + rng.IntN(3)})
				}
			}
		}
	}
}

// trimLicenses drops allocations until no license is held beyond its
// total, except now and then, when a total was lowered under running work.
func trimLicenses(rng *rand.Rand, s *Snapshot) {
	if len(s.Licenses) == 0 || rng.IntN(8) == 0 {
		return
	}
	held := make([]int, len(s.Licenses))
	keep := s.Allocs[:0]
	for _, a := range s.Allocs {
		ok := true
		for _, u := range s.Jobs[a.Job].Licenses {
			ok = ok && held[u.License]+u.Count <= s.Licenses[u.License].Total
		}
		if !ok {
			continue
		}
		for _, u := range s.Jobs[a.Job].Licenses {
			held[u.License] += u.Count
		}
		keep = append(keep, a)
	}
	s.Allocs = keep
}

// multifactorProblems checks what the plan says about priorities against
// the oracle, and the preemptions and order of multifactor pools.
func multifactorProblems(s *Snapshot, p *Plan) []string {
	var bad []string
	prio := oraclePriorities(s)
	got, err := PriorityFactors(s)
	if err != nil {
		return []string{"PriorityFactors: " + err.Error()}
	}
	for ji := range s.Jobs {
		if math.Abs(got[ji].Priority-prio[ji]) > eps(prio[ji]) {
			bad = append(bad, fmt.Sprintf("job %s: priority %v, oracle %v", s.Jobs[ji].ID, got[ji].Priority, prio[ji]))
		}
	}
	for _, pe := range p.Pending {
		if math.Abs(pe.Priority-prio[pe.Job]) > eps(prio[pe.Job]) {
			bad = append(bad, fmt.Sprintf("job %s: pending priority %v, oracle %v", s.Jobs[pe.Job].ID, pe.Priority, prio[pe.Job]))
		}
	}
	for _, st := range p.Starts {
		// A start carries the priority its job starts with: the
		// oracle's in a multifactor pool, 0 elsewhere.
		if math.Abs(st.Priority-prio[st.Job]) > eps(prio[st.Job]) {
			bad = append(bad, fmt.Sprintf("job %s: start priority %v, oracle %v", s.Jobs[st.Job].ID, st.Priority, prio[st.Job]))
		}
	}
	for _, pr := range p.Preemptions {
		a := &s.Allocs[pr.Alloc]
		if s.Pools[s.Jobs[pr.For].Pool].Policy == PolicyMultifactor && prio[a.Job] > prio[pr.For]-eps(prio[pr.For]) {
			bad = append(bad, fmt.Sprintf("alloc %d (priority %v) preempted for %s of priority %v",
				pr.Alloc, prio[a.Job], s.Jobs[pr.For].ID, prio[pr.For]))
		}
	}
	// Order: no job of lower priority than a blocked job starts, except
	// as a backfill where the pool backfills.
	for pi, pl := range s.Pools {
		if pl.Policy != PolicyMultifactor || (pl.Backfill && pl.Reservations == ReserveConservative) {
			continue
		}
		top := math.Inf(-1) // highest priority of a blocked slot job
		var blocker int
		for _, pe := range p.Pending {
			j := &s.Jobs[pe.Job]
			if j.Pool == pi && j.Slots > 0 && blocks(s, pe) && prio[pe.Job] > top {
				top, blocker = prio[pe.Job], pe.Job
			}
		}
		for _, st := range p.Starts {
			j := &s.Jobs[st.Job]
			if j.Pool != pi || j.Slots == 0 || prio[st.Job] >= top-eps(top) || (st.Backfill && pl.Backfill) {
				continue
			}
			bad = append(bad, fmt.Sprintf("multifactor pool %s: %s (priority %v) starts while %s (priority %v) is blocked",
				pl.Name, j.ID, prio[st.Job], s.Jobs[blocker].ID, top))
		}
	}
	return bad
}

// reasonProblems checks the fields of the reasons added with licenses,
// GPU types and multifactor priorities.
func reasonProblems(s *Snapshot, p *Plan) []string {
	var bad []string
	fail := func(f string, args ...any) { bad = append(bad, fmt.Sprintf(f, args...)) }
	for _, pe := range p.Pending {
		j := &s.Jobs[pe.Job]
		if pe.Reason == ReasonGPUType && slices.ContainsFunc(s.Nodes, func(n Node) bool { return n.Pool == j.Pool && n.GPU == j.GPU }) {
			fail("job %s: gpu_type, but the pool has a node of type %q", j.ID, j.GPU)
		}
		if pe.Reason == ReasonLicense && !slices.ContainsFunc(j.Licenses, func(u LicenseUse) bool {
			return u.License == pe.License && u.Count == pe.LicenseNeed
		}) {
			fail("job %s: license reason names license %d need %d, which the job does not use", j.ID, pe.License, pe.LicenseNeed)
		}
		if s.Pools[j.Pool].Policy != PolicyMultifactor && pe.Priority != 0 {
			fail("job %s: priority %v outside a multifactor pool", j.ID, pe.Priority)
		}
	}
	for _, st := range p.Starts {
		for _, u := range s.Jobs[st.Job].Licenses {
			if u.Count > s.Licenses[u.License].Total {
				fail("job %s starts needing %d of license %d, which has %d", s.Jobs[st.Job].ID, u.Count, u.License, s.Licenses[u.License].Total)
			}
		}
	}
	return bad
}

// eps is the rounding allowed between the oracle and the core, which sum
// and multiply in other orders.
func eps(x float64) float64 { return 1e-9 * math.Max(1, math.Abs(x)) }

// blocks reports a pending entry that holds back the jobs after it: a
// task that did not fit or waits for a license it may yet get.
func blocks(s *Snapshot, pe Pending) bool {
	switch pe.Reason {
	case ReasonNoCapacity, ReasonFragmented, ReasonReserved:
		return true
	case ReasonLicense:
		return pe.LicenseNeed <= s.Licenses[pe.License].Total
	}
	return false
}

// licensesSpanPools reports whether jobs of two pools use one license:
// then pool order decides who gets it, and permuting pools may change the
// plan.
func licensesSpanPools(s *Snapshot) bool {
	first := make([]int, len(s.Licenses))
	for i := range first {
		first[i] = -1
	}
	for _, j := range s.Jobs {
		for _, u := range j.Licenses {
			if first[u.License] >= 0 && first[u.License] != j.Pool {
				return true
			}
			first[u.License] = j.Pool
		}
	}
	return false
}

// TestPropertyMultifactorMonotone: improving one input of a job's priority
// (an earlier submission, a lower nice, a higher QOS, less usage on its
// account) never lowers its priority and never lets more jobs outrank it;
// and the priorities are the same from run to run.
func TestPropertyMultifactorMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	g := defaultGen
	checked := 0
	for c := range 2000 {
		s := randSnapshot(rng, g)
		var cands []int
		for ji, j := range s.Jobs {
			if s.Pools[j.Pool].Policy == PolicyMultifactor {
				cands = append(cands, ji)
			}
		}
		if len(cands) == 0 {
			continue
		}
		j := cands[rng.IntN(len(cands))]
		before := mustFactors(t, s)
		if again := mustFactors(t, s); !slices.Equal(before, again) {
			t.Fatalf("case %d: priorities differ between runs", c)
		}
		better := cloneSnapshot(s)
		var what string
		switch k := rng.IntN(4); {
		case k == 0:
			what = "earlier submission"
			better.Jobs[j].Submit -= int64(1 + rng.IntN(200))
		case k == 1:
			what = "lower nice"
			better.Jobs[j].Nice -= 1 + rng.IntN(5)
		case k == 2 && len(s.QOS) > 0 && s.Jobs[j].QOS < len(s.QOS)-1:
			what = "higher qos"
			better.Jobs[j].QOS++
		default:
			what = "less usage"
			better.Accounts[s.Jobs[j].Account].Usage /= 2
		}
		after := mustFactors(t, better)
		if after[j].Priority < before[j].Priority {
			t.Fatalf("case %d: %s lowered %s's priority from %v to %v\n%s", c, what, s.Jobs[j].ID,
				before[j].Priority, after[j].Priority, fmtSnapshot(s))
		}
		outranks := func(f []Factors) int {
			n := 0
			for k := range f {
				if k != j && s.Jobs[k].Pool == s.Jobs[j].Pool && f[k].Priority > f[j].Priority {
					n++
				}
			}
			return n
		}
		if b, a := outranks(before), outranks(after); a > b {
			t.Fatalf("case %d: %s let %d jobs outrank %s, %d before\n%s", c, what, a, s.Jobs[j].ID, b, fmtSnapshot(s))
		}
		checked++
	}
	if checked < 500 {
		t.Fatalf("only %d cases had a multifactor job", checked)
	}
}

// TestPropertyLicenses: over random snapshots where licenses are scarce,
// no plan takes more of a license than is free, and settling never does
// either.
func TestPropertyLicenses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	var sc Scheduler
	waits := 0
	for c := range 1500 {
		s := randSnapshot(rng, defaultGen)
		for round := 0; round < 20; round++ {
			p, err := sc.Schedule(s)
			if err != nil {
				t.Fatalf("case %d: %v\n%s", c, err, fmtSnapshot(s))
			}
			if bad := licenseProblems(s, p); len(bad) > 0 {
				t.Fatalf("case %d round %d: %s\n%s\nplan:\n%s", c, round, strings.Join(bad, "\n"), fmtSnapshot(s), fmtPlan(s, p))
			}
			for _, pe := range p.Pending {
				if pe.Reason == ReasonLicense {
					waits++
				}
			}
			if len(p.Starts) == 0 && len(p.Preemptions) == 0 {
				break
			}
			s = finishCheckpoints(applyPlan(s, p))
		}
	}
	if waits == 0 {
		t.Fatal("no job ever waited for a license")
	}
}
