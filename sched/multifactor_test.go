package sched

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// mfPool is a multifactor pool option with the given weights.
func mfPool(mf Multifactor) poolOpt { return withMultifactor(mf) }

func mustFactors(t *testing.T, s *Snapshot) []Factors {
	t.Helper()
	f, err := PriorityFactors(s)
	if err != nil {
		t.Fatalf("PriorityFactors: %v", err)
	}
	return f
}

func TestMultifactorFactors(t *testing.T) {
	type want struct {
		age, fs, size, qos, pool, prio float64
	}
	tests := []struct {
		name string
		mf   Multifactor
		opts []jobOpt
		want want
	}{
		{"age grows with the wait", Multifactor{Age: 10, MaxAge: 400}, []jobOpt{submit(800)},
			want{age: 0.5, size: 1.0 / 32, prio: 5}},
		{"age stops at max_age", Multifactor{Age: 10, MaxAge: 400}, []jobOpt{submit(0)},
			want{age: 1, size: 1.0 / 32, prio: 10}},
		{"a job from the future has age 0", Multifactor{Age: 10, MaxAge: 400}, []jobOpt{submit(2000)},
			want{size: 1.0 / 32}},
		{"size favours large jobs", Multifactor{JobSize: 8}, []jobOpt{submit(1000), slots(8)},
			want{size: 0.25, prio: 2}},
		{"a gang larger than the pool scores 1", Multifactor{JobSize: 8}, []jobOpt{submit(1000), slots(64)},
			want{size: 1, prio: 8}},
		{"favour small", Multifactor{JobSize: 8, FavorSmall: true}, []jobOpt{submit(1000), slots(8)},
			want{size: 0.75, prio: 6}},
		{"qos over the highest qos", Multifactor{QOS: 100}, []jobOpt{submit(1000), qos(1)},
			want{size: 1.0 / 32, qos: 0.1, prio: 10}},
		{"emergency qos is 1", Multifactor{QOS: 100}, []jobOpt{submit(1000), qos(2)},
			want{size: 1.0 / 32, qos: 1, prio: 100}},
		{"pool factor over the highest pool", Multifactor{Pool: 10, PoolPriority: 5}, []jobOpt{submit(1000)},
			want{size: 1.0 / 32, pool: 0.5, prio: 5}},
		{"nice lowers priority", Multifactor{QOS: 100}, []jobOpt{submit(1000), qos(2), nice(30)},
			want{size: 1.0 / 32, qos: 1, prio: 70}},
		{"negative nice raises it", Multifactor{QOS: 100}, []jobOpt{submit(1000), nice(-7)},
			want{size: 1.0 / 32, prio: 7}},
		{"fair share is S - U", Multifactor{FairShare: 100, FairShareMode: FairShareClassic},
			[]jobOpt{submit(1000), acct(1)}, want{fs: 0.75 - 0.5, size: 1.0 / 32, prio: 25}},
		{"every factor at once", Multifactor{Age: 1, MaxAge: 1000, FairShare: 2, FairShareMode: FairShareClassic,
			JobSize: 4, QOS: 8, Pool: 16, PoolPriority: 10}, []jobOpt{submit(500), acct(1), slots(16), qos(1), nice(1)},
			want{age: 0.5, fs: 0.25, size: 0.5, qos: 0.1, pool: 1, prio: 0.5 + 0.5 + 2 + 0.8 + 16 - 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).now(1000).pool("p", PolicyMultifactor, mfPool(tc.mf)).nodes("p", 4, 8, "")
			b.pool("other", PolicyMultifactor, mfPool(Multifactor{Pool: 1, PoolPriority: 10})).nodes("other", 1, 8, "")
			b.account("jack", -1, 1, 0)
			b.account("jill", -1, 3, 0.5)
			b.qosLevel("normal", 0, false)
			b.qosLevel("high", 10, false)
			b.qosLevel("emergency", 100, true)
			j := b.job("j", append([]jobOpt{inPool("p")}, tc.opts...)...)
			s := b.snapshot()
			f := mustFactors(t, s)[j]
			got := want{f.Age, f.FairShare, f.JobSize, f.QOS, f.Pool, f.Priority}
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"age", got.age, tc.want.age}, {"fair share", got.fs, tc.want.fs}, {"size", got.size, tc.want.size},
				{"qos", got.qos, tc.want.qos}, {"pool", got.pool, tc.want.pool}, {"priority", got.prio, tc.want.prio}} {
				if math.Abs(c.got-c.want) > 1e-9 {
					t.Errorf("%s = %v, want %v (%+v)", c.name, c.got, c.want, f)
				}
			}
			// The pass reports the same priority for the job, which waits
			// on a full pool.
			hog := b.job("hog", inPool("p"), slots(32), waiting(0))
			b.running(hog, on("p-1", 8), on("p-2", 8), on("p-3", 8), on("p-4", 8))
			s = b.snapshot()
			p := mustSchedule(t, s)
			pe, ok := pendingOf(&p, j)
			if !ok || math.Abs(pe.Priority-tc.want.prio) > 1e-9 {
				t.Errorf("pending priority %v (found %v), want %v", pe.Priority, ok, tc.want.prio)
			}
		})
	}
}

// fairTreeCluster: physics (3 shares: alice and bob, 1 each) and biology
// (1 share: carol), so S = 0.375, 0.375 and 0.25. Alice used 0.375 of the
// cluster, bob 0.125, carol nothing.
func fairTreeCluster(t *testing.T, mode FairShareMode) (*cluster, map[string]int) {
	b := newCluster(t).pool("p", PolicyMultifactor, mfPool(Multifactor{FairShare: 1, FairShareMode: mode})).nodes("p", 1, 1, "")
	phys := b.account("physics", -1, 3, 0)
	bio := b.account("biology", -1, 1, 0)
	ids := map[string]int{}
	ids["alice"] = b.job("alice", acct(b.account("alice", phys, 1, 0.375)))
	ids["bob"] = b.job("bob", acct(b.account("bob", phys, 1, 0.125)))
	ids["carol"] = b.job("carol", acct(b.account("carol", bio, 1, 0)))
	return b, ids
}

func TestFairShareModes(t *testing.T) {
	tests := []struct {
		mode  FairShareMode
		want  map[string]float64
		order string
	}{
		// Classic: S − U = 0.375 − 0.375, 0.375 − 0.125, 0.25 − 0. Bob
		// and carol tie at 0.25 and bob has the larger share.
		{FairShareClassic, map[string]float64{"alice": 0, "bob": 0.25, "carol": 0.25}, "bob,carol,alice"},
		// Fair tree: biology used nothing (LF infinite) so carol ranks
		// first; inside physics bob used 0.25 of the siblings' usage
		// for half the shares (LF 2), alice 0.75 (LF 2/3).
		{FairShareTree, map[string]float64{"alice": 1.0 / 3, "bob": 2.0 / 3, "carol": 1}, "carol,bob,alice"},
	}
	for _, tc := range tests {
		t.Run(string(tc.mode), func(t *testing.T) {
			b, ids := fairTreeCluster(t, tc.mode)
			s := b.snapshot()
			f := mustFactors(t, s)
			for name, want := range tc.want {
				if got := f[ids[name]].FairShare; math.Abs(got-want) > 1e-12 {
					t.Errorf("%s: fair-share factor %v, want %v", name, got, want)
				}
			}
			// One slot: the order shows as who starts, and who waits
			// behind whom.
			var order []string
			for range 3 {
				p := mustSchedule(t, s)
				if len(p.Starts) != 1 {
					t.Fatalf("want one start\n%s", fmtPlan(s, &p))
				}
				order = append(order, s.Jobs[p.Starts[0].Job].ID)
				s = applyPlan(s, &p)
				s.Allocs = nil
			}
			if got := strings.Join(order, ","); got != tc.order {
				t.Errorf("order %s, want %s", got, tc.order)
			}
		})
	}
}

// TestFairTreeSeed003: under fair tree the seed's second job goes to jack:
// once jill has used anything, jack's level fair share (no usage) is
// infinite, while classic P = S − U still favours jill.
func TestFairTreeSeed003(t *testing.T) {
	for _, tc := range []struct {
		mode FairShareMode
		want string
	}{{FairShareClassic, "jill"}, {FairShareTree, "jack"}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			b, _, jill, _, _ := piCluster(t)
			b.s.Pools[0].Multifactor.FairShareMode = tc.mode
			s := b.snapshot()
			s.Accounts[jill].Usage = 0.25
			p := mustSchedule(t, s)
			if len(p.Starts) != 1 || s.Jobs[p.Starts[0].Job].ID[:4] != tc.want {
				t.Fatalf("want %s to run\n%s", tc.want, fmtPlan(s, &p))
			}
		})
	}
}

// qosCluster: a multifactor pool of one 4-slot node full of preemptible
// normal-QOS work, and the QOS list normal, high, emergency.
func qosCluster(t *testing.T, opts ...poolOpt) (*cluster, int) {
	b := newCluster(t).now(1000).pool("p", PolicyMultifactor,
		append([]poolOpt{mfPool(Multifactor{QOS: 1000, Age: 1, MaxAge: 1000})}, opts...)...).nodes("p", 1, 4, "")
	b.qosLevel("normal", 0, false)
	b.qosLevel("high", 10, false)
	b.qosLevel("emergency", 100, true)
	run := b.job("run", waiting(0), preemptible(), submit(0))
	b.fill(run, "p-1", 4, 100)
	return b, run
}

func TestQOSPreemption(t *testing.T) {
	tests := []struct {
		name     string
		pool     []poolOpt
		job      []jobOpt
		victim   []jobOpt // replaces the running job's options when set
		preempts int
		reason   Reason
	}{
		{name: "emergency preempts without pool preemption", job: []jobOpt{qos(2), slots(2)}, preempts: 2,
			reason: ReasonCheckpointing},
		{name: "high qos does not preempt without pool preemption", job: []jobOpt{qos(1), slots(2)},
			reason: ReasonNoCapacity},
		{name: "high qos preempts with pool preemption", pool: []poolOpt{withPreemption()}, job: []jobOpt{qos(1), slots(2)},
			preempts: 2, reason: ReasonCheckpointing},
		{name: "same qos never preempts, whatever the priority", pool: []poolOpt{withPreemption()},
			job: []jobOpt{nice(-100000), slots(1)}, reason: ReasonNoCapacity},
		{name: "emergency does not preempt emergency", job: []jobOpt{qos(2), slots(1)},
			victim: []jobOpt{qos(2)}, reason: ReasonNoCapacity},
		{name: "emergency does not preempt higher computed priority", job: []jobOpt{qos(2), slots(1)},
			victim: []jobOpt{nice(-1000000)}, reason: ReasonNoCapacity},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, run := qosCluster(t, tc.pool...)
			for _, o := range tc.victim {
				o(b, &b.s.Jobs[run])
			}
			j := b.job("new", append([]jobOpt{submit(900)}, tc.job...)...)
			s := b.snapshot()
			p := mustSchedule(t, s)
			if len(p.Preemptions) != tc.preempts {
				t.Fatalf("%d preemptions, want %d\n%s", len(p.Preemptions), tc.preempts, fmtPlan(s, &p))
			}
			for _, pr := range p.Preemptions {
				if pr.For != j {
					t.Errorf("preemption for %d, want %d", pr.For, j)
				}
			}
			mustPending(t, s, &p, j, tc.reason)
		})
	}
	t.Run("non-preemptible work is never a victim", func(t *testing.T) {
		b, run := qosCluster(t)
		b.s.Jobs[run].Preemptible = false
		j := b.job("new", qos(2))
		s := b.snapshot()
		p := mustSchedule(t, s)
		if len(p.Preemptions) != 0 {
			t.Fatalf("preempted non-preemptible work\n%s", fmtPlan(s, &p))
		}
		mustPending(t, s, &p, j, ReasonNoCapacity)
	})
	t.Run("victims: lowest qos first, then lowest priority, then newest", func(t *testing.T) {
		b := newCluster(t).now(1000).pool("p", PolicyMultifactor, mfPool(Multifactor{QOS: 1000, Age: 1, MaxAge: 1000})).nodes("p", 1, 3, "")
		b.qosLevel("normal", 0, false)
		b.qosLevel("high", 10, false)
		b.qosLevel("emergency", 100, true)
		high := b.job("high", qos(1), waiting(0), preemptible(), submit(0))
		old := b.job("old", waiting(0), preemptible(), submit(0))
		young := b.job("young", waiting(0), preemptible(), submit(500))
		b.running(high, start(900), on("p-1", 1))
		b.running(old, start(100), on("p-1", 1))
		aYoung := b.running(young, start(10), on("p-1", 1))
		j := b.job("e", qos(2), slots(1))
		s := b.snapshot()
		p := mustSchedule(t, s)
		// young has the lower priority (less age) and goes first.
		if got := preempted(&p); !slices.Equal(got, []int{aYoung}) {
			t.Fatalf("preempted %v, want [%d]\n%s", got, aYoung, fmtPlan(s, &p))
		}
		mustPending(t, s, &p, j, ReasonCheckpointing)
	})
}

// TestQOSPreemptionInPriorityPool: a priority pool without preemption lets
// an emergency-QOS job preempt less important work of a lower QOS.
func TestQOSPreemptionInPriorityPool(t *testing.T) {
	tests := []struct {
		name     string
		job      []jobOpt
		preempts int
	}{
		{"emergency preempts less important work", []jobOpt{prio(1), qos(2)}, 1},
		{"emergency does not preempt more important work", []jobOpt{prio(50), qos(2)}, 0},
		{"a normal job does not preempt", []jobOpt{prio(1), qos(0)}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyPriority).nodes("p", 1, 2, "")
			b.qosLevel("normal", 0, false)
			b.qosLevel("high", 10, false)
			b.qosLevel("emergency", 100, true)
			run := b.job("run", prio(42), waiting(0), preemptible())
			b.fill(run, "p-1", 2, 0)
			j := b.job("new", tc.job...)
			s := b.snapshot()
			p := mustSchedule(t, s)
			if len(p.Preemptions) != tc.preempts {
				t.Fatalf("%d preemptions, want %d\n%s", len(p.Preemptions), tc.preempts, fmtPlan(s, &p))
			}
			if tc.preempts > 0 {
				mustPending(t, s, &p, j, ReasonCheckpointing)
			}
		})
	}
}

func TestMultifactorQueue(t *testing.T) {
	// Two 4-slot nodes. "big" (QOS high) needs 8 slots; 4 are held by a
	// task ending at t=1100. "short" ends by then, "long" does not.
	build := func(t *testing.T, opts ...poolOpt) (*Snapshot, map[string]int) {
		b := newCluster(t).now(1000).pool("p", PolicyMultifactor,
			append([]poolOpt{mfPool(Multifactor{QOS: 100, Age: 1, MaxAge: 10000})}, opts...)...).nodes("p", 2, 4, "")
		b.qosLevel("normal", 0, false)
		b.qosLevel("high", 10, false)
		run := b.job("run", waiting(0), timeLimit(200))
		b.running(run, start(900), on("p-1", 4))
		ids := map[string]int{
			"long":  b.job("long", slots(2), timeLimit(500), submit(0)),
			"big":   b.job("big", slots(8), qos(1), timeLimit(100), submit(999)),
			"short": b.job("short", slots(2), timeLimit(50), submit(10)),
		}
		return b.snapshot(), ids
	}
	t.Run("without backfill the blocked head blocks the rest", func(t *testing.T) {
		s, ids := build(t)
		p := mustSchedule(t, s)
		if len(p.Starts) != 0 {
			t.Fatalf("started\n%s", fmtPlan(s, &p))
		}
		mustPending(t, s, &p, ids["big"], ReasonNoCapacity)
		pe := mustPending(t, s, &p, ids["long"], ReasonBehind)
		if pe.Blocker != ids["big"] {
			t.Errorf("long blocked by %d, want big", pe.Blocker)
		}
		mustPending(t, s, &p, ids["short"], ReasonBehind)
	})
	t.Run("EASY backfills what ends by the shadow time", func(t *testing.T) {
		s, ids := build(t, withBackfill())
		p := mustSchedule(t, s)
		pe := mustPending(t, s, &p, ids["big"], ReasonReserved)
		if pe.At != 1100 {
			t.Errorf("big reserved at %d, want 1100", pe.At)
		}
		// long has the higher priority (older) but would delay big.
		mustPending(t, s, &p, ids["long"], ReasonWouldDelay)
		if len(startsOf(&p, ids["short"])) != 1 {
			t.Fatalf("short did not backfill\n%s", fmtPlan(s, &p))
		}
	})
	t.Run("conservative reserves in priority order", func(t *testing.T) {
		s, ids := build(t, withBackfill(), withReservations(ReserveConservative))
		p := mustSchedule(t, s)
		if pe := mustPending(t, s, &p, ids["big"], ReasonReserved); pe.At != 1100 {
			t.Errorf("big reserved at %d, want 1100", pe.At)
		}
		// long (2 slots for 500 s) would overlap big's reservation.
		if pe := mustPending(t, s, &p, ids["long"], ReasonReserved); pe.At != 1200 {
			t.Errorf("long reserved at %d, want 1200", pe.At)
		}
		if len(startsOf(&p, ids["short"])) != 1 {
			t.Fatalf("short did not start\n%s", fmtPlan(s, &p))
		}
	})
}

func TestMultifactorZeroSlotOrder(t *testing.T) {
	b := newCluster(t).pool("p", PolicyMultifactor, mfPool(Multifactor{QOS: 10})).nodes("p", 1, 1, "", zeroLimit(1))
	b.qosLevel("normal", 0, false)
	b.qosLevel("high", 10, false)
	lo := b.job("lo", slots(0), submit(0))
	hi := b.job("hi", slots(0), qos(1), submit(5))
	s := b.snapshot()
	p := mustSchedule(t, s)
	if len(startsOf(&p, hi)) != 1 {
		t.Fatalf("the high-QOS zero-slot job should start first\n%s", fmtPlan(s, &p))
	}
	if pe := mustPending(t, s, &p, lo, ReasonZeroSlotFull); pe.Priority != 0 {
		t.Errorf("lo priority %v, want 0", pe.Priority)
	}
}

func TestMultifactorInvalid(t *testing.T) {
	base := func(t *testing.T) *cluster {
		b := newCluster(t).pool("p", PolicyMultifactor,
			mfPool(Multifactor{FairShare: 1, FairShareMode: FairShareTree, Age: 1, MaxAge: 10})).nodes("p", 1, 4, "")
		dept := b.account("dept", -1, 1, 0)
		user := b.account("user", dept, 1, 0.1)
		b.qosLevel("normal", 0, false)
		b.license("matlab", 4)
		b.job("j", acct(user), lic(0, 1))
		return b
	}
	tests := []struct {
		name   string
		mutate func(s *Snapshot)
		want   string
	}{
		{"no positive weight", func(s *Snapshot) { s.Pools[0].Multifactor = Multifactor{} }, "at least one positive weight"},
		{"negative weight", func(s *Snapshot) { s.Pools[0].Multifactor.QOS = -1 }, "weight qos"},
		{"NaN weight", func(s *Snapshot) { s.Pools[0].Multifactor.Age = math.NaN() }, "weight age"},
		{"infinite weight", func(s *Snapshot) { s.Pools[0].Multifactor.JobSize = math.Inf(1) }, "weight job_size"},
		{"age without max_age", func(s *Snapshot) { s.Pools[0].Multifactor.MaxAge = 0 }, "max_age"},
		{"negative max_age", func(s *Snapshot) { s.Pools[0].Multifactor.MaxAge = -5 }, "max_age"},
		{"fair share without a mode", func(s *Snapshot) { s.Pools[0].Multifactor.FairShareMode = "" }, "fair-share mode"},
		{"unknown mode", func(s *Snapshot) { s.Pools[0].Multifactor.FairShareMode = "lottery" }, "unknown fair-share mode"},
		{"account index out of range", func(s *Snapshot) { s.Jobs[0].Account = 2 }, "account index 2 is out of range"},
		{"negative account index", func(s *Snapshot) { s.Jobs[0].Account = -1 }, "account index -1"},
		{"fair tree job on a parent account", func(s *Snapshot) { s.Jobs[0].Account = 0 }, "sub-accounts"},
		{"account parent out of range", func(s *Snapshot) { s.Accounts[1].Parent = 7 }, "parent index 7"},
		{"account cycle", func(s *Snapshot) { s.Accounts[0].Parent = 1 }, "cycle"},
		{"negative shares", func(s *Snapshot) { s.Accounts[1].Shares = -1 }, "shares"},
		{"NaN usage", func(s *Snapshot) { s.Accounts[1].Usage = math.NaN() }, "usage"},
		{"qos index out of range", func(s *Snapshot) { s.Jobs[0].QOS = 1 }, "qos index 1 out of range"},
		{"qos index with no qos list", func(s *Snapshot) { s.QOS = nil; s.Jobs[0].QOS = 1 }, "lists no QOS"},
		{"negative qos priority", func(s *Snapshot) { s.QOS[0].Priority = -1 }, "qos \"normal\""},
		{"license index out of range", func(s *Snapshot) { s.Jobs[0].Licenses[0].License = 1 }, "license index 1"},
		{"license count zero", func(s *Snapshot) { s.Jobs[0].Licenses[0].Count = 0 }, "count must be positive"},
		{"license count negative", func(s *Snapshot) { s.Jobs[0].Licenses[0].Count = -2 }, "count must be positive"},
		{"license listed twice", func(s *Snapshot) {
			s.Jobs[0].Licenses = append(s.Jobs[0].Licenses, LicenseUse{License: 0, Count: 1})
		}, "listed twice"},
		{"negative license total", func(s *Snapshot) { s.Licenses[0].Total = -1 }, "total"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base(t).snapshot()
			tc.mutate(s)
			before := cloneSnapshot(s)
			p, err := Schedule(s)
			if err == nil {
				t.Fatalf("no error; plan:\n%s", fmtPlan(s, p))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if !snapshotsEqual(before, s) {
				t.Error("Schedule modified the snapshot")
			}
			if _, err := PriorityFactors(s); err == nil {
				t.Error("PriorityFactors accepted it")
			}
		})
	}
	t.Run("the base snapshot is valid", func(t *testing.T) {
		if _, err := Schedule(base(t).snapshot()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("other pools ignore accounts", func(t *testing.T) {
		b := newCluster(t).pool("p", PolicyFIFO).nodes("p", 1, 1, "")
		b.job("j", acct(9))
		if _, err := Schedule(b.snapshot()); err != nil {
			t.Fatal(err)
		}
	})
}
