package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
)

// TestRevsChangeNothing replays the traces under every preset with the
// snapshot entries' Revs (sched.Job.Rev, given by revise) and without,
// and compares the results byte for byte: a change to an entry that did
// not give it a new Rev would let the core keep a stale answer.
func TestRevsChangeNothing(t *testing.T) {
	for _, f := range replayTraces(t) {
		for _, policy := range []string{"fcfs", "easy", "conservative", "fair_share", "priority"} {
			t.Run(filepath.Base(f)+"/"+policy, func(t *testing.T) {
				a := replayJSON(t, f, policy, Options{Until: -1, Timeline: true})
				b := replayJSON(t, f, policy, Options{Until: -1, Timeline: true, noRevs: true})
				if !bytes.Equal(a, b) {
					t.Errorf("results differ without Revs:\n%s\n%s", a, b)
				}
			})
		}
	}
}

// TestRevsChangeNothingLongQueue does the same on a queue long enough for
// the core to keep its answers (over 512 jobs), under every policy, with
// priority and weight changes and kills among the events.
func TestRevsChangeNothingLongQueue(t *testing.T) {
	pools := []sched.Pool{
		{Policy: sched.PolicyFIFO},
		{Policy: sched.PolicyBackfill, Reservations: sched.ReserveEASY},
		{Policy: sched.PolicyBackfill, Reservations: sched.ReserveConservative},
		{Policy: sched.PolicyPriority, Preemption: true, Backfill: true},
		{Policy: sched.PolicyFairShare, Preemption: true},
		{Policy: sched.PolicyQuota},
	}
	for _, pl := range pools {
		t.Run(fmt.Sprintf("%s-%s", pl.Policy, pl.Reservations), func(t *testing.T) {
			var out [2][]byte
			for i, off := range []bool{false, true} {
				res, err := Run(longQueue(pl), Options{Until: -1, Timeline: true, noRevs: off})
				if err != nil {
					t.Fatal(err)
				}
				if out[i], err = json.Marshal(res); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Error("results differ without Revs")
			}
		})
	}
}

// longQueue is 4 nodes of 8 slots and 900 jobs submitted in the first
// minutes, so that hundreds wait at once, with events that change jobs.
func longQueue(pl sched.Pool) *Input {
	rng := rand.New(rand.NewPCG(4, 2))
	pl.Name, pl.Placement = "p", sched.PlaceBinpack
	pool := Pool{Pool: pl}
	for i := range 4 {
		pool.Nodes = append(pool.Nodes, sched.Node{Name: fmt.Sprintf("n%d", i), Slots: 8, ZeroSlotLimit: 10})
	}
	in := &Input{Pools: []Pool{pool}}
	for p := range 3 {
		in.Projects = append(in.Projects, Project{Project: sched.Project{Name: fmt.Sprintf("proj%d", p),
			Parent: -1, Quota: 10, OverQuotaWeight: 1}})
	}
	var jobs []JobSpec
	for i := range 900 {
		jobs = append(jobs, JobSpec{Name: fmt.Sprintf("j%d", i), Kind: sched.KindExperiment, Submit: int64(i / 5),
			Tasks: 1 + rng.IntN(2), MaxConcurrent: 2, Slots: []int{1, 1, 2, 4, 8}[rng.IntN(5)],
			Duration: int64(20 + rng.IntN(300)), Priority: 1 + rng.IntN(9), Weight: 1, Preemptible: true,
			Project: fmt.Sprintf("proj%d", rng.IntN(3))})
	}
	in.Jobs = NewSliceSource(jobs)
	for range 60 {
		ev := Event{At: int64(rng.IntN(400)), Job: fmt.Sprintf("j%d", rng.IntN(900))}
		switch rng.IntN(3) {
		case 0:
			ev.Kind, ev.Priority = EventSetPriority, 1+rng.IntN(9)
		case 1:
			ev.Kind, ev.Weight = EventSetWeight, float64(1+rng.IntN(3))
		default:
			ev.Kind = EventKill
		}
		in.Events = append(in.Events, ev)
	}
	slices.SortStableFunc(in.Events, func(a, b Event) int { return int(a.At - b.At) })
	return in
}
