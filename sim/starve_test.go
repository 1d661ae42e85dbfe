package sim_test

import (
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// TestStarvationRun: one slot, FIFO, a run stopped at 240 s with
// StarveAfter 100 s. a runs 0–100; b waits exactly 100 s (not starved);
// c waits 190 s and starts; d, submitted at 20, would start at 250 and
// is counted by its wait until the run stopped, 220 s, never started.
func TestStarvationRun(t *testing.T) {
	pool := engPool(0, sched.PolicyFIFO, 1, 1, 0, nil)
	jobs := []sim.JobSpec{engSpec("a", 0, 1, 100), engSpec("b", 0, 1, 100), engSpec("c", 10, 1, 50), engSpec("d", 20, 1, 10)}
	run := func(after int64) *sim.Result {
		in := &sim.Input{Pools: []sim.Pool{pool}, Jobs: sim.NewSliceSource(jobs)}
		res, err := sim.Run(in, sim.Options{Until: 240, StarveAfter: after, OmitJobs: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	st := run(100).Metrics.Starvation
	if st == nil {
		t.Fatal("no starvation counted with StarveAfter set")
	}
	if st.After != 100 || st.Jobs != 2 || st.NeverStarted != 1 {
		t.Errorf("starvation %+v, want 2 jobs over 100 s, 1 never started (c and d)", *st)
	}
	if l := st.Longest; l == nil || *l != (sim.LongestWait{Job: "d", Wait: 220, Started: false}) {
		t.Errorf("longest %+v, want d, 220 s, never started", l)
	}
	if st := run(0).Metrics.Starvation; st != nil {
		t.Errorf("starvation %+v without StarveAfter, want none (allot sim's JSON unchanged)", *st)
	}
}
