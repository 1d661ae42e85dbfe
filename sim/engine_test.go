package sim_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// Focused tests of the engine on tiny hand-made inputs, with every expected
// time worked out by hand.

// engPool is a pool of n nodes of the given size.
func engPool(index int, policy sched.Policy, n, size int, checkpoint int64, mod func(*sched.Pool)) sim.Pool {
	p := sim.Pool{
		Pool: sched.Pool{Name: fmt.Sprintf("pool%d", index), Policy: policy,
			Reservations: sched.ReserveEASY, Placement: sched.PlaceBinpack},
		CheckpointCost: checkpoint,
	}
	if mod != nil {
		mod(&p.Pool)
	}
	for i := range n {
		p.Nodes = append(p.Nodes, sched.Node{Name: fmt.Sprintf("%s-n%d", p.Name, i), Pool: index, Slots: size, ZeroSlotLimit: 10})
	}
	return p
}

// engSpec is a one-task job of the given slots and duration with defaults
// for the rest.
func engSpec(name string, submit int64, slots int, dur int64) sim.JobSpec {
	return sim.JobSpec{Name: name, Kind: sched.KindExperiment, Submit: submit, Tasks: 1, MaxConcurrent: 1,
		Slots: slots, Duration: dur, Priority: 42, Weight: 1}
}

func engRun(t *testing.T, pools []sim.Pool, jobs []sim.JobSpec, events []sim.Event, until int64) *sim.Result {
	t.Helper()
	in := &sim.Input{Pools: pools, Jobs: sim.NewSliceSource(jobs), Events: events}
	res, err := sim.Run(in, sim.Options{Until: until, Timeline: true})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func engJob(t *testing.T, res *sim.Result, name string) sim.JobResult {
	t.Helper()
	for _, j := range res.Jobs {
		if j.Name == name {
			return j
		}
	}
	t.Fatalf("no job %q in the result", name)
	return sim.JobResult{}
}

// engTimes checks a job's start and end; -1 means nil.
func engTimes(t *testing.T, res *sim.Result, name string, state sim.State, start, end int64) {
	t.Helper()
	j := engJob(t, res, name)
	got := func(p *int64) int64 {
		if p == nil {
			return -1
		}
		return *p
	}
	if j.State != state || got(j.Start) != start || got(j.End) != end {
		t.Fatalf("job %s: state %s start %d end %d, want %s %d %d\ntimeline: %v",
			name, j.State, got(j.Start), got(j.End), state, start, end, engTimeline(res))
	}
	if j.Start != nil && (j.Wait == nil || *j.Wait != *j.Start-j.Submit) {
		t.Fatalf("job %s: wait %v, want start - submit", name, j.Wait)
	}
}

// engTimeline renders the timeline compactly.
func engTimeline(res *sim.Result) string {
	var s string
	for _, e := range res.Timeline {
		s += fmt.Sprintf(" %d:%v", e.Time, e.Slots)
	}
	return s
}

// engHeld is what each job holds after the changes at time t.
func engHeld(res *sim.Result, t int64) map[string]int {
	out := map[string]int{}
	for _, e := range res.Timeline {
		if e.Time > t {
			break
		}
		out = e.Slots
	}
	return out
}

func engTimelineTimes(res *sim.Result) []int64 {
	var out []int64
	for _, e := range res.Timeline {
		out = append(out, e.Time)
	}
	return out
}

// TestEngineCheckpointCost: a priority 1 job preempts a running priority 5
// task on a one-slot node. The victim keeps its slot for the checkpoint
// cost, the preemptor starts when the checkpoint is done, and the victim
// later resumes with only the work it had left.
func TestEngineCheckpointCost(t *testing.T) {
	tests := []struct {
		name       string
		cost       int64
		hiStart    int64
		loEnd      int64
		timelineAt []int64
	}{
		// low runs 0..100 (100 done, 900 left); high waits for the
		// checkpoint, runs 500; low resumes and runs its last 900.
		{"cost 60", 60, 160, 160 + 500 + 900, []int64{0, 160, 660, 1560}},
		{"cost 0", 0, 100, 100 + 500 + 900, []int64{0, 100, 600, 1500}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pool := engPool(0, sched.PolicyPriority, 1, 1, tc.cost, func(p *sched.Pool) { p.Preemption = true })
			lo := engSpec("low", 0, 1, 1000)
			lo.Priority, lo.Preemptible = 5, true
			hi := engSpec("high", 100, 1, 500)
			hi.Priority = 1
			res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{lo, hi}, nil, -1)
			engTimes(t, res, "high", sim.StateCompleted, tc.hiStart, tc.hiStart+500)
			engTimes(t, res, "low", sim.StateCompleted, 0, tc.loEnd)
			if p := engJob(t, res, "low").Preemptions; p != 1 {
				t.Fatalf("low preempted %d times, want 1", p)
			}
			if p := engJob(t, res, "high").Preemptions; p != 0 {
				t.Fatalf("high preempted %d times", p)
			}
			if res.Metrics.Preemptions != 1 {
				t.Fatalf("metrics count %d preemptions", res.Metrics.Preemptions)
			}
			// The preemption request at 100 changes no holdings: while it
			// checkpoints, low still holds its slot.
			if got := engTimelineTimes(res); !slices.Equal(got, tc.timelineAt) {
				t.Fatalf("timeline at %v, want %v:%s", got, tc.timelineAt, engTimeline(res))
			}
			if tc.cost > 0 {
				if h := engHeld(res, 100); !maps.Equal(h, map[string]int{"low": 1}) {
					t.Fatalf("holdings while checkpointing %v", h)
				}
			}
			if h := engHeld(res, tc.hiStart); !maps.Equal(h, map[string]int{"high": 1}) {
				t.Fatalf("holdings at %d: %v", tc.hiStart, h)
			}
		})
	}
}

// TestEngineResumeSeveralTasks: two tasks of one job are preempted at
// different progress; each resumes with its own remaining work.
func TestEngineResumeSeveralTasks(t *testing.T) {
	pool := engPool(0, sched.PolicyPriority, 1, 2, 0, func(p *sched.Pool) { p.Preemption = true })
	lo := engSpec("low", 0, 1, 1000)
	lo.Tasks, lo.MaxConcurrent, lo.Priority, lo.Preemptible = 2, 2, 5, true
	hi := engSpec("high", 400, 2, 100)
	hi.Priority = 1
	res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{lo, hi}, nil, -1)
	// Both low tasks run 0..400 (600 left each), high runs 400..500, low
	// resumes both at 500 and ends at 1100.
	engTimes(t, res, "high", sim.StateCompleted, 400, 500)
	engTimes(t, res, "low", sim.StateCompleted, 0, 1100)
	if p := engJob(t, res, "low").Preemptions; p != 2 {
		t.Fatalf("low preempted %d times, want 2", p)
	}
}

func TestEngineTimeLimit(t *testing.T) {
	pool := engPool(0, sched.PolicyFIFO, 1, 1, 0, nil)
	long := engSpec("long", 0, 1, 500)
	long.TimeLimit = 100
	next := engSpec("next", 0, 1, 50)
	forever := engSpec("forever", 0, 1, sim.Unbounded)
	forever.TimeLimit = 200
	fits := engSpec("fits", 0, 1, 80)
	fits.TimeLimit = 80 // exactly its duration: completes
	res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{long, next, forever, fits}, nil, -1)
	engTimes(t, res, "long", sim.StateKilled, 0, 100)
	engTimes(t, res, "next", sim.StateCompleted, 100, 150)
	engTimes(t, res, "forever", sim.StateKilled, 150, 350)
	engTimes(t, res, "fits", sim.StateCompleted, 350, 430)
	if res.Metrics.TimeLimitKills != 2 || res.Metrics.Killed != 2 || res.Metrics.Completed != 2 {
		t.Fatalf("metrics: %d limit kills, %d killed, %d completed; want 2, 2, 2",
			res.Metrics.TimeLimitKills, res.Metrics.Killed, res.Metrics.Completed)
	}
}

func TestEngineKill(t *testing.T) {
	t.Run("a kill releases slots at once", func(t *testing.T) {
		pool := engPool(0, sched.PolicyFIFO, 1, 8, 0, nil)
		hog := engSpec("hog", 0, 8, sim.Unbounded)
		wait := engSpec("wait", 0, 8, 100)
		ev := []sim.Event{{At: 300, Kind: sim.EventKill, Job: "hog"}}
		res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{hog, wait}, ev, -1)
		engTimes(t, res, "hog", sim.StateKilled, 0, 300)
		engTimes(t, res, "wait", sim.StateCompleted, 300, 400)
		if h := engHeld(res, 300); !maps.Equal(h, map[string]int{"wait": 8}) {
			t.Fatalf("holdings at 300: %v", h)
		}
		if res.Metrics.TimeLimitKills != 0 {
			t.Fatalf("a kill event counted as a time-limit kill")
		}
	})
	t.Run("a kill before submit kills at submit", func(t *testing.T) {
		pool := engPool(0, sched.PolicyFIFO, 1, 8, 0, nil)
		late := engSpec("late", 200, 1, 100)
		other := engSpec("other", 200, 1, 100)
		ev := []sim.Event{{At: 50, Kind: sim.EventKill, Job: "late"}}
		res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{late, other}, ev, -1)
		engTimes(t, res, "late", sim.StateKilled, -1, 200)
		engTimes(t, res, "other", sim.StateCompleted, 200, 300)
		if n := len(res.Jobs); n != 2 {
			t.Fatalf("%d job results, want 2", n)
		}
	})
	t.Run("a kill at submit time kills the new job", func(t *testing.T) {
		pool := engPool(0, sched.PolicyFIFO, 1, 8, 0, nil)
		j := engSpec("j", 200, 1, 100)
		res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{j}, []sim.Event{{At: 200, Kind: sim.EventKill, Job: "j"}}, -1)
		engTimes(t, res, "j", sim.StateKilled, -1, 200)
	})
	t.Run("a kill after the end changes nothing", func(t *testing.T) {
		pool := engPool(0, sched.PolicyFIFO, 1, 8, 0, nil)
		j := engSpec("j", 0, 1, 100)
		res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{j}, []sim.Event{{At: 500, Kind: sim.EventKill, Job: "j"}}, -1)
		engTimes(t, res, "j", sim.StateCompleted, 0, 100)
	})
	t.Run("a kill while checkpointing frees the slots before the checkpoint ends", func(t *testing.T) {
		pool := engPool(0, sched.PolicyPriority, 1, 1, 60, func(p *sched.Pool) { p.Preemption = true })
		lo := engSpec("low", 0, 1, 1000)
		lo.Priority, lo.Preemptible = 5, true
		hi := engSpec("high", 100, 1, 500)
		hi.Priority = 1
		ev := []sim.Event{{At: 130, Kind: sim.EventKill, Job: "low"}}
		res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{lo, hi}, ev, -1)
		engTimes(t, res, "low", sim.StateKilled, 0, 130)
		engTimes(t, res, "high", sim.StateCompleted, 130, 630)
	})
	t.Run("a kill of a waiting job", func(t *testing.T) {
		pool := engPool(0, sched.PolicyFIFO, 1, 1, 0, nil)
		a := engSpec("a", 0, 1, 100)
		b := engSpec("b", 0, 1, 100)
		c := engSpec("c", 0, 1, 100)
		res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{a, b, c}, []sim.Event{{At: 50, Kind: sim.EventKill, Job: "b"}}, -1)
		engTimes(t, res, "b", sim.StateKilled, -1, 50)
		engTimes(t, res, "c", sim.StateCompleted, 100, 200)
	})
}

func TestEngineSetPriority(t *testing.T) {
	t.Run("reorders the queue", func(t *testing.T) {
		for _, reorder := range []bool{false, true} {
			pool := engPool(0, sched.PolicyPriority, 1, 1, 0, nil)
			r := engSpec("r", 0, 1, 100)
			a := engSpec("a", 10, 1, 100)
			a.Priority = 5
			b := engSpec("b", 20, 1, 100)
			b.Priority = 10
			var ev []sim.Event
			if reorder {
				ev = []sim.Event{{At: 50, Kind: sim.EventSetPriority, Job: "b", Priority: 1}}
			}
			res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{r, a, b}, ev, -1)
			if reorder {
				engTimes(t, res, "b", sim.StateCompleted, 100, 200)
				engTimes(t, res, "a", sim.StateCompleted, 200, 300)
			} else {
				engTimes(t, res, "a", sim.StateCompleted, 100, 200)
				engTimes(t, res, "b", sim.StateCompleted, 200, 300)
			}
		}
	})
	t.Run("lowering a running task's priority lets a waiting job preempt it", func(t *testing.T) {
		pool := engPool(0, sched.PolicyPriority, 1, 1, 0, func(p *sched.Pool) { p.Preemption = true })
		r := engSpec("r", 0, 1, 1000)
		r.Priority, r.Preemptible = 2, true
		w := engSpec("w", 10, 1, 100)
		w.Priority = 3
		ev := []sim.Event{{At: 300, Kind: sim.EventSetPriority, Job: "r", Priority: 9}}
		res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{r, w}, ev, -1)
		// r runs 0..300 (700 left), w 300..400, r resumes 400..1100.
		engTimes(t, res, "w", sim.StateCompleted, 300, 400)
		engTimes(t, res, "r", sim.StateCompleted, 0, 1100)
		if p := engJob(t, res, "r").Preemptions; p != 1 {
			t.Fatalf("r preempted %d times, want 1", p)
		}
	})
	t.Run("set_priority before submit applies at submit", func(t *testing.T) {
		pool := engPool(0, sched.PolicyPriority, 1, 1, 0, nil)
		r := engSpec("r", 0, 1, 100)
		a := engSpec("a", 10, 1, 100)
		a.Priority = 5
		b := engSpec("b", 20, 1, 100)
		b.Priority = 10
		ev := []sim.Event{{At: 5, Kind: sim.EventSetPriority, Job: "b", Priority: 1}}
		res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{r, a, b}, ev, -1)
		engTimes(t, res, "b", sim.StateCompleted, 100, 200)
	})
}

// TestEngineSetWeight: two equal jobs share 8 slots 4 and 4; tripling one
// weight moves the shares to 6 and 2, the other job giving back two tasks.
func TestEngineSetWeight(t *testing.T) {
	pool := engPool(0, sched.PolicyFairShare, 1, 8, 0, func(p *sched.Pool) { p.Preemption = true })
	a := engSpec("a", 0, 1, 1000)
	a.Tasks, a.MaxConcurrent, a.Preemptible = 8, 8, true
	b := a
	b.Name = "b"
	for _, change := range []bool{false, true} {
		var ev []sim.Event
		if change {
			ev = []sim.Event{{At: 100, Kind: sim.EventSetWeight, Job: "a", Weight: 3}}
		}
		res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{a, b}, ev, -1)
		if h := engHeld(res, 0); !maps.Equal(h, map[string]int{"a": 4, "b": 4}) {
			t.Fatalf("holdings at 0: %v", h)
		}
		want := map[string]int{"a": 4, "b": 4}
		if change {
			want = map[string]int{"a": 6, "b": 2}
		}
		if h := engHeld(res, 100); !maps.Equal(h, want) {
			t.Fatalf("weight change %v: holdings at 100 %v, want %v", change, h, want)
		}
		if pb := engJob(t, res, "b").Preemptions; change && pb != 2 || !change && pb != 0 {
			t.Fatalf("b preempted %d times", pb)
		}
	}
}

// TestEngineUntil: a run stopped early leaves jobs running or pending with
// no end, and explains why the waiting ones wait.
func TestEngineUntil(t *testing.T) {
	pool := engPool(0, sched.PolicyFIFO, 1, 4, 0, nil)
	done := engSpec("done", 0, 1, 100)
	run := engSpec("run", 0, 3, 1000)
	wait := engSpec("wait", 10, 4, 100)
	later := engSpec("later", 900, 1, 100)
	res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{done, run, wait, later}, nil, 500)
	engTimes(t, res, "done", sim.StateCompleted, 0, 100)
	engTimes(t, res, "run", sim.StateRunning, 0, -1)
	engTimes(t, res, "wait", sim.StatePending, -1, -1)
	if r := engJob(t, res, "wait").Reason; r == "" {
		t.Fatal("no reason for the waiting job")
	}
	if r := engJob(t, res, "run").Reason; r != "" {
		t.Fatalf("running job with a reason %q", r)
	}
	for _, j := range res.Jobs {
		if j.Name == "later" {
			t.Fatal("a job submitted after Until appears in the result")
		}
	}
	if res.End != 500 {
		t.Fatalf("run ended at %d, want 500", res.End)
	}
	if res.Metrics.Unfinished != 2 || res.Metrics.Completed != 1 {
		t.Fatalf("metrics: %d unfinished, %d completed", res.Metrics.Unfinished, res.Metrics.Completed)
	}
	// The whole run, for comparison, finishes everything.
	full := engRun(t, []sim.Pool{pool}, []sim.JobSpec{done, run, wait, later}, nil, -1)
	engTimes(t, full, "wait", sim.StateCompleted, 1000, 1100)
	engTimes(t, full, "later", sim.StateCompleted, 1100, 1200)
}

// TestEngineTimeline: entries come only at instants where holdings change
// (not for a preemption request, nor for a scripted event that changes
// nothing), and zero-slot jobs never appear.
func TestEngineTimeline(t *testing.T) {
	pool := engPool(0, sched.PolicyFairShare, 1, 4, 0, nil)
	train := engSpec("train", 0, 1, 100)
	train.Tasks, train.MaxConcurrent = 4, 4
	cpu := engSpec("cpu", 10, 0, 50)
	ev := []sim.Event{{At: 30, Kind: sim.EventSetWeight, Job: "train", Weight: 2}}
	res := engRun(t, []sim.Pool{pool}, []sim.JobSpec{train, cpu}, ev, -1)
	engTimes(t, res, "cpu", sim.StateCompleted, 10, 60)
	for _, e := range res.Timeline {
		if _, ok := e.Slots["cpu"]; ok {
			t.Fatalf("zero-slot job in the timeline at %d: %v", e.Time, e.Slots)
		}
		if e.Time == 30 {
			t.Fatalf("entry for a scripted event that changed nothing:%s", engTimeline(res))
		}
		for name, n := range e.Slots {
			if n <= 0 {
				t.Fatalf("job %s listed with %d slots", name, n)
			}
		}
	}
	if h := engHeld(res, 0); !maps.Equal(h, map[string]int{"train": 4}) {
		t.Fatalf("holdings at 0: %v", h)
	}
	last := res.Timeline[len(res.Timeline)-1]
	if last.Time != 100 || len(last.Slots) != 0 {
		t.Fatalf("last entry %d:%v, want an empty entry at 100", last.Time, last.Slots)
	}
	// Without the option there is no timeline at all.
	in := &sim.Input{Pools: []sim.Pool{pool}, Jobs: sim.NewSliceSource([]sim.JobSpec{train, cpu})}
	res2, err := sim.Run(in, sim.Options{Until: -1})
	if err != nil || res2.Timeline != nil {
		t.Fatalf("timeline %v without the option (err %v)", res2.Timeline, err)
	}
}

func TestEngineInvalidInput(t *testing.T) {
	good := engPool(0, sched.PolicyFIFO, 1, 4, 0, nil)
	tests := []struct {
		name  string
		pools []sim.Pool
		jobs  []sim.JobSpec
	}{
		{"no pools", nil, nil},
		{"a pool without nodes", []sim.Pool{{Pool: sched.Pool{Name: "p", Policy: sched.PolicyFIFO}}}, nil},
		{"negative checkpoint cost", []sim.Pool{engPool(0, sched.PolicyFIFO, 1, 4, -1, nil)}, nil},
		{"node names another pool", []sim.Pool{engPool(1, sched.PolicyFIFO, 1, 4, 0, nil)}, nil},
		{"job pool out of range", []sim.Pool{good}, []sim.JobSpec{{Name: "j", Pool: 3, Tasks: 1, MaxConcurrent: 1, Slots: 1, Duration: 1, Weight: 1}}},
		{"unknown policy", []sim.Pool{engPool(0, "lottery", 1, 4, 0, nil)}, []sim.JobSpec{engSpec("j", 0, 1, 10)}},
		{"zero weight", []sim.Pool{good}, []sim.JobSpec{{Name: "j", Tasks: 1, MaxConcurrent: 1, Slots: 1, Duration: 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &sim.Input{Pools: tc.pools, Jobs: sim.NewSliceSource(tc.jobs)}
			if _, err := sim.Run(in, sim.Options{Until: -1}); err == nil {
				t.Fatal("no error")
			}
		})
	}
	t.Run("no job source", func(t *testing.T) {
		if _, err := sim.Run(&sim.Input{Pools: []sim.Pool{good}}, sim.Options{Until: -1}); err == nil {
			t.Fatal("no error")
		}
	})
}
