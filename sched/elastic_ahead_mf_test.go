package sched

import (
	"slices"
	"testing"
)

// aheadJob is a job of the growth-ahead tables beside the elastic one.
type aheadJob struct {
	id          string
	qos         int // index into the fixture's QOS: 0 normal, 1 high
	slots, wait int
	fixed       bool // not preemptible
}

// aheadCase is one row of the growth-ahead tables: an elastic job "el"
// (8 slots, down to 2) running at 2 on p-1 (8 GPUs) beside the jobs.
type aheadCase struct {
	name    string
	pool    []poolOpt
	elQOS   int
	elPrio  int // the elastic job's 1-99 priority, which multifactor ignores
	jobs    []aheadJob
	resizes []string
	starts  map[string]int
}

// multifactorAhead builds a case's snapshot in a multifactor pool that
// weighs only the QOS: normal (0) and high (10), so a high job has
// priority 100 and a normal one 0.
func multifactorAhead(t *testing.T, tc aheadCase) *Snapshot {
	opts := append([]poolOpt{withMultifactor(Multifactor{QOS: 100})}, tc.pool...)
	c := newCluster(t).pool("p", PolicyMultifactor, opts...).nodes("p", 1, 8, "").now(1000)
	c.qosLevel("normal", 0, false)
	c.qosLevel("high", 10, false)
	el := c.job("el", slots(8), minSlots(2), qos(tc.elQOS), prio(max(tc.elPrio, 1)), preemptible(), waiting(0), submit(0))
	c.running(el, start(0), on("p-1", 2))
	for _, j := range tc.jobs {
		o := []jobOpt{qos(j.qos), slots(j.slots), waiting(j.wait), submit(100), prio(42)}
		if !j.fixed {
			o = append(o, preemptible())
		}
		c.job(j.id, o...)
	}
	return c.snapshot()
}

// checkAhead schedules s and compares the plan's resizes and starts.
func checkAhead(t *testing.T, s *Snapshot, resizes []string, starts map[string]int) Plan {
	t.Helper()
	p := mustSchedule(t, s)
	if got := resizeList(s, &p); !slices.Equal(got, resizes) {
		t.Fatalf("resizes %v, want %v\n%s", got, resizes, fmtPlan(s, &p))
	}
	got := map[string]int{}
	for _, st := range p.Starts {
		got[s.Jobs[st.Job].ID]++
	}
	if len(got) != len(starts) {
		t.Fatalf("starts %v, want %v\n%s", got, starts, fmtPlan(s, &p))
	}
	for id, n := range starts {
		if got[id] != n {
			t.Fatalf("starts %v, want %v\n%s", got, starts, fmtPlan(s, &p))
		}
	}
	return p
}

// TestElasticGrowsAheadMultifactor: a multifactor pool takes the
// priority pool's rule (TestElasticGrowsAhead) by its computed priority:
// a shrunk elastic task of a job of higher multifactor priority grows
// before jobs of strictly lower priority start on the free slots, only
// once no job of at least its priority is left waiting for slots. The
// jobs' 1-99 priorities play no part.
func TestElasticGrowsAheadMultifactor(t *testing.T) {
	const high, normal = 1, 0
	cases := []aheadCase{{
		name: "high grows before normal starts", elQOS: high,
		jobs:    []aheadJob{{"low", normal, 1, 6, false}},
		resizes: []string{"el:p-1:2>p-1:4"}, starts: map[string]int{"low": 4},
	}, {
		name: "the 1-99 priority is ignored", elQOS: high, elPrio: 99,
		jobs:    []aheadJob{{"low", normal, 1, 6, false}},
		resizes: []string{"el:p-1:2>p-1:4"}, starts: map[string]int{"low": 4},
	}, {
		name: "with EASY backfill", elQOS: high, pool: []poolOpt{withBackfill()},
		jobs:    []aheadJob{{"low", normal, 1, 6, false}},
		resizes: []string{"el:p-1:2>p-1:4"}, starts: map[string]int{"low": 4},
	}, {
		name: "lower priority starts on what is left", elQOS: high,
		jobs:    []aheadJob{{"low", normal, 4, 2, false}},
		resizes: []string{"el:p-1:2>p-1:4"}, starts: map[string]int{"low": 1},
	}, {
		name: "equal priority job waiting for slots: no growth", elQOS: high,
		jobs:   []aheadJob{{"peer", high, 8, 1, true}, {"low", normal, 1, 6, false}},
		starts: map[string]int{},
	}, {
		name: "lower priority elastic does not grow ahead of higher work", elQOS: normal,
		jobs:   []aheadJob{{"hi", high, 1, 6, false}},
		starts: map[string]int{"hi": 6},
	}, {
		name: "equal priorities: growth waits for spare slots", elQOS: normal,
		jobs:   []aheadJob{{"peer", normal, 1, 6, false}},
		starts: map[string]int{"peer": 6},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := multifactorAhead(t, tc)
			checkAhead(t, s, tc.resizes, tc.starts)
		})
	}
}

// TestGrowthBlockedByMultifactor: explain's rule for which waiting jobs
// hold an elastic job's growth back compares multifactor priorities in a
// multifactor pool, the 1-99 number in a priority pool, and nothing
// else elsewhere; a job waiting for a reason more slots do not cure
// never does.
func TestGrowthBlockedByMultifactor(t *testing.T) {
	e, w := &Job{Priority: 42}, &Job{Priority: 80}
	cases := []struct {
		name     string
		pol      Policy
		r        Reason
		eMF, wMF float64
		want     bool
	}{
		{"multifactor: lower priority waits", PolicyMultifactor, ReasonNoCapacity, 100, 0, false},
		{"multifactor: equal priority waits", PolicyMultifactor, ReasonNoCapacity, 100, 100, true},
		{"multifactor: higher priority waits", PolicyMultifactor, ReasonBehind, 0, 100, true},
		{"multifactor: the 1-99 number is ignored", PolicyMultifactor, ReasonNoCapacity, 0, 0.5, true},
		{"multifactor: waits for no slots", PolicyMultifactor, ReasonMaxConcurrent, 0, 100, false},
		{"priority: LOW waits", PolicyPriority, ReasonNoCapacity, 0, 100, false},
		{"fifo: any job waiting for slots", PolicyFIFO, ReasonNoCapacity, 100, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := GrowthBlockedBy(&Pool{Policy: tc.pol}, e, w, tc.r, tc.eMF, tc.wMF); got != tc.want {
				t.Fatalf("GrowthBlockedBy = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestElasticGrowsAheadPartly: ahead of less important jobs a task whose
// doubling does not fit on free slots grows to the largest size short of
// it that does, in place or moved, since those jobs take every slot as it
// frees and the doubling would never fit while they run one-slot work.
// Spare-slot growth, where freed slots stay free, still only doubles.
func TestElasticGrowsAheadPartly(t *testing.T) {
	cases := []struct {
		name    string
		pol     Policy
		mf      bool
		busy    int   // slots of p-1 held by a NORMAL fixed job
		busy2   int   // slots of p-2 held by it
		cur     int   // the elastic task's slots on p-1
		elStart int64 // its start; now is 1000
		minRun  int64
		low     int // one-slot LOW tasks waiting
		resizes []string
		lowRuns int
	}{{
		name: "one slot free: grows by one", pol: PolicyPriority, busy: 5, busy2: 8, cur: 2, low: 6,
		resizes: []string{"el:p-1:2>p-1:3"},
	}, {
		name: "two of four free: grows by two", pol: PolicyPriority, busy: 2, busy2: 8, cur: 4, low: 6,
		resizes: []string{"el:p-1:4>p-1:6"},
	}, {
		name: "the doubling fits: doubles, LOW takes the rest", pol: PolicyPriority, busy: 3, busy2: 8, cur: 2, low: 6,
		resizes: []string{"el:p-1:2>p-1:4"}, lowRuns: 1,
	}, {
		name: "capped at its slots", pol: PolicyPriority, busy: 0, busy2: 8, cur: 6, low: 6,
		resizes: []string{"el:p-1:6>p-1:8"},
	}, {
		name: "a larger size elsewhere beats a smaller one in place", pol: PolicyPriority, busy: 4, busy2: 3, cur: 3, low: 6,
		resizes: []string{"el:p-1:3>p-2:5"}, lowRuns: 1,
	}, {
		name: "in place where both hold as much", pol: PolicyPriority, busy: 5, busy2: 5, cur: 2, low: 6,
		resizes: []string{"el:p-1:2>p-1:3"}, lowRuns: 3,
	}, {
		name: "multifactor pool too", pol: PolicyMultifactor, mf: true, busy: 5, busy2: 8, cur: 2, low: 6,
		resizes: []string{"el:p-1:2>p-1:3"},
	}, {
		name: "younger than min_run_time: no growth", pol: PolicyPriority, busy: 5, busy2: 8, cur: 2, low: 6,
		elStart: 900, minRun: 300, lowRuns: 1,
	}, {
		name: "no job waits: spare-slot growth only doubles", pol: PolicyPriority, busy: 5, busy2: 8, cur: 2,
	}, {
		name: "fifo pool: no growth while LOW waits", pol: PolicyFIFO, busy: 5, busy2: 8, cur: 2, low: 6, lowRuns: 1,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts []poolOpt
			if tc.mf {
				opts = append(opts, withMultifactor(Multifactor{QOS: 100}))
			}
			c := newCluster(t).pool("p", tc.pol, opts...).nodes("p", 2, 8, "").now(1000)
			c.s.Pools[0].MinRunTime = tc.minRun
			c.qosLevel("normal", 0, false) // the multifactor pool's order
			c.qosLevel("high", 10, false)
			busy := c.job("busy", slots(1), waiting(0), submit(0), qos(1))
			for node, n := range map[string]int{"p-1": tc.busy, "p-2": tc.busy2} {
				if n > 0 {
					c.running(busy, start(0), on(node, n))
				}
			}
			el := c.job("el", slots(8), minSlots(2), preemptible(), waiting(0), submit(0), qos(1))
			c.running(el, start(tc.elStart), on("p-1", tc.cur))
			if tc.low > 0 {
				c.job("low", prio(80), preemptible(), waiting(tc.low), submit(100), qos(0))
			}
			starts := map[string]int{}
			if tc.lowRuns > 0 {
				starts["low"] = tc.lowRuns
			}
			checkAhead(t, c.snapshot(), tc.resizes, starts)
		})
	}
}

// TestElasticGrowsAheadReservation: a multifactor pool with backfill
// grows a task during its walk, before a blocked head of lower priority
// takes its reservation, which growth had never come before. The head's
// shadow time counts the grown task's new placement, restarted now, and
// its old slots as draining: counting the old placement as well released
// slots twice (a node fuller than its size) where the task has a time
// limit.
func TestElasticGrowsAheadReservation(t *testing.T) {
	cases := []struct {
		name string
		res  Reservations
	}{{"easy", ReserveEASY}, {"conservative", ReserveConservative}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("p", PolicyMultifactor, withMultifactor(Multifactor{QOS: 100}), withBackfill(),
				withReservations(tc.res)).nodes("p", 2, 8, "").now(1000)
			c.qosLevel("normal", 0, false)
			c.qosLevel("high", 10, false)
			busy := c.job("busy", qos(1), waiting(0), timeLimit(3600))
			c.running(busy, start(0), on("p-1", 4), on("p-2", 3))
			el := c.job("el", slots(8), minSlots(2), qos(1), preemptible(), waiting(0), timeLimit(2000))
			c.running(el, start(0), on("p-1", 3))
			big := c.job("big", slots(8), qos(0), submit(100), timeLimit(600))
			s := c.snapshot()
			p := checkAhead(t, s, []string{"el:p-1:3>p-2:5"}, map[string]int{})
			if pe := mustPending(t, s, &p, big, ReasonReserved); pe.At != 3600 {
				t.Fatalf("big reserved at %d, want 3600 (busy's end)\n%s", pe.At, fmtPlan(s, &p))
			}
		})
	}
}
