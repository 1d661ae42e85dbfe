package sched

import (
	"slices"
	"testing"
)

// TestElasticGrowsAhead: in a priority pool a shrunk elastic task of a
// NORMAL job (priority 42) doubles before LOW jobs (80) start on the
// free slots, where before it never grew while LOW jobs waited for
// slots. It grows only on free slots, only once every job at least as
// important had its turn and none of them is left waiting for slots; in
// pools not ordered by priority growth waits for spare slots as before.
func TestElasticGrowsAhead(t *testing.T) {
	type job struct {
		id            string
		prio, slots   int
		waiting       int
		nonPreemptive bool
	}
	cases := []struct {
		name    string
		pool    []poolOpt
		pol     Policy
		elPrio  int   // the elastic job's priority
		elStart int64 // the elastic task's start (now is 1000)
		minRun  int64 // the pool's min_run_time
		jobs    []job
		resizes []string
		starts  map[string]int // tasks started per job
		settled int            // the elastic job's slots once settled
	}{{
		name: "NORMAL grows before LOW starts", pol: PolicyPriority, pool: []poolOpt{withPreemption()}, elPrio: 42,
		jobs:    []job{{"low", 80, 1, 6, false}},
		resizes: []string{"el:p-1:2>p-1:4"}, starts: map[string]int{"low": 4}, settled: 4,
	}, {
		name: "with backfill too", pol: PolicyPriority, pool: []poolOpt{withPreemption(), withBackfill()}, elPrio: 42,
		jobs:    []job{{"low", 80, 1, 6, false}},
		resizes: []string{"el:p-1:2>p-1:4"}, starts: map[string]int{"low": 4}, settled: 4,
	}, {
		name: "LOW starts on what is left", pol: PolicyPriority, pool: []poolOpt{withPreemption()}, elPrio: 42,
		jobs:    []job{{"low", 80, 4, 2, false}},
		resizes: []string{"el:p-1:2>p-1:4"}, starts: map[string]int{"low": 1}, settled: 4,
	}, {
		name: "equal priority job waiting for slots: no growth", pol: PolicyPriority, pool: []poolOpt{withPreemption()}, elPrio: 42,
		jobs:   []job{{"peer", 42, 8, 1, true}, {"low", 80, 1, 6, false}},
		starts: map[string]int{}, settled: 2,
	}, {
		name: "more important job waiting for slots: no growth, LOW backfills", pol: PolicyPriority, pool: []poolOpt{withBackfill()}, elPrio: 42,
		jobs:   []job{{"high", 10, 8, 1, true}, {"low", 80, 1, 6, false}},
		starts: map[string]int{"low": 6}, settled: 2,
	}, {
		name: "LOW elastic does not grow ahead of NORMAL work", pol: PolicyPriority, pool: []poolOpt{withPreemption()}, elPrio: 80,
		jobs:   []job{{"normal", 42, 1, 6, false}},
		starts: map[string]int{"normal": 6}, settled: 2,
	}, {
		name: "younger than min_run_time: no growth", pol: PolicyPriority, pool: []poolOpt{withPreemption()}, elPrio: 42, elStart: 900, minRun: 300,
		jobs:   []job{{"low", 80, 1, 6, false}},
		starts: map[string]int{"low": 6}, settled: 2,
	}, {
		name: "fifo pool: growth waits for spare slots as before", pol: PolicyFIFO, elPrio: 42,
		jobs:   []job{{"low", 80, 1, 6, false}},
		starts: map[string]int{"low": 6}, settled: 2,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t).pool("p", tc.pol, tc.pool...).nodes("p", 1, 8, "").now(1000)
			c.s.Pools[0].MinRunTime = tc.minRun
			el := c.job("el", slots(8), minSlots(2), prio(tc.elPrio), preemptible(), waiting(0), submit(0))
			c.running(el, start(tc.elStart), on("p-1", 2))
			for _, j := range tc.jobs {
				opts := []jobOpt{prio(j.prio), slots(j.slots), waiting(j.waiting), submit(100)}
				if !j.nonPreemptive {
					opts = append(opts, preemptible())
				}
				c.job(j.id, opts...)
			}
			s := c.snapshot()
			p := mustSchedule(t, s)
			if got := resizeList(s, &p); !slices.Equal(got, tc.resizes) {
				t.Fatalf("resizes %v, want %v\n%s", got, tc.resizes, fmtPlan(s, &p))
			}
			got := map[string]int{}
			for _, st := range p.Starts {
				got[s.Jobs[st.Job].ID]++
			}
			if len(got) != len(tc.starts) {
				t.Fatalf("starts %v, want %v\n%s", got, tc.starts, fmtPlan(s, &p))
			}
			for id, n := range tc.starts {
				if got[id] != n {
					t.Fatalf("starts %v, want %v\n%s", got, tc.starts, fmtPlan(s, &p))
				}
			}
			s2, last, _ := settle(t, s, 10)
			held := 0
			for _, al := range s2.Allocs {
				if al.Job == el {
					held += Slots(al.Nodes)
				}
			}
			if held != tc.settled {
				t.Fatalf("settled: el holds %d, want %d\n%s", held, tc.settled, fmtPlan(s2, &last))
			}
		})
	}
}
