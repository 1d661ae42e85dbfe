package lifecycle

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
)

func TestOneShot(t *testing.T) {
	pools := func(ps ...sched.Policy) []sched.Pool {
		var out []sched.Pool
		for _, p := range ps {
			out = append(out, sched.Pool{Policy: p})
		}
		return out
	}
	for _, c := range []struct {
		name  string
		pools []sched.Pool
		grew  bool
		want  bool
	}{
		{"fifo", pools(sched.PolicyFIFO), false, true},
		{"fifo and backfill", pools(sched.PolicyFIFO, sched.PolicyBackfill), false, true},
		{"an elastic job", pools(sched.PolicyFIFO, sched.PolicyBackfill), true, false},
		{"priority", pools(sched.PolicyFIFO, sched.PolicyPriority), false, false},
		{"multifactor", pools(sched.PolicyMultifactor), false, false},
		{"no pool", nil, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := OneShot(c.pools, c.grew); got != c.want {
				t.Errorf("OneShot = %v, want %v", got, c.want)
			}
		})
	}
}

func TestGrows(t *testing.T) {
	for _, c := range []struct {
		name string
		job  sched.Job
		want bool
	}{
		{"rigid", sched.Job{Slots: 4}, false},
		{"elastic", sched.Job{Slots: 4, MinSlots: 1}, true},
		{"elastic at its minimum", sched.Job{Slots: 2, MinSlots: 2}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Grows(&c.job); got != c.want {
				t.Errorf("Grows = %v, want %v", got, c.want)
			}
		})
	}
}

// TestReservations: what each job keeps for the next pass, in the order
// the drivers store it (a job both pending and started keeps none).
func TestReservations(t *testing.T) {
	type kept struct {
		job   int
		at    int64
		nodes []sched.NodeSlots
	}
	nodes := []sched.NodeSlots{{Node: 1, Slots: 2}}
	for _, c := range []struct {
		name string
		plan sched.Plan
		want []kept
	}{
		{"reserved", sched.Plan{Pending: []sched.Pending{{Job: 0, At: 500, Nodes: nodes}}},
			[]kept{{0, 500, nodes}}},
		{"never", sched.Plan{Pending: []sched.Pending{{Job: 0, At: sched.Never}, {Job: 1, At: -1}}},
			[]kept{{0, 0, nil}, {1, 0, nil}}},
		{"started", sched.Plan{Starts: []sched.Start{{Job: 2}}}, []kept{{2, 0, nil}}},
		{"started and pending", sched.Plan{Pending: []sched.Pending{{Job: 3, At: 90}}, Starts: []sched.Start{{Job: 3}}},
			[]kept{{3, 90, nil}, {3, 0, nil}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []kept
			Reservations(&c.plan, func(job int, at int64, ns []sched.NodeSlots) { got = append(got, kept{job, at, ns}) })
			if !slices.EqualFunc(got, c.want, func(a, b kept) bool {
				return a.job == b.job && a.at == b.at && slices.Equal(a.nodes, b.nodes)
			}) {
				t.Errorf("kept %v, want %v", got, c.want)
			}
		})
	}
}

func TestResumesBefore(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b Queued
		want bool
	}{
		{"ran first", Queued{Ran: true, Preempted: 1, Index: 5}, Queued{Index: 0}, true},
		{"fresh after", Queued{Index: 0}, Queued{Ran: true, Preempted: 1, Index: 5}, false},
		{"last preempted first", Queued{Ran: true, Preempted: 7, Index: 3}, Queued{Ran: true, Preempted: 2, Index: 1}, true},
		{"earlier preempted after", Queued{Ran: true, Preempted: 2, Index: 1}, Queued{Ran: true, Preempted: 7, Index: 3}, false},
		{"fresh by index", Queued{Index: 1}, Queued{Index: 2}, true},
		{"not before itself", Queued{Index: 1}, Queued{Index: 1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ResumesBefore(c.a, c.b); got != c.want {
				t.Errorf("ResumesBefore = %v, want %v", got, c.want)
			}
		})
	}
}

// TestResumesBeforeIsLaunch: Job.Launch, which the simulator starts
// tasks by, launches the task that ResumesBefore, which the master picks
// by, puts first, when preempted tasks land in the order they were
// preempted (as the simulator lands them).
func TestResumesBeforeIsLaunch(t *testing.T) {
	for _, c := range []struct {
		name    string
		tasks   int
		first   int   // tasks launched at first
		preempt []int // launch order positions preempted, in order
	}{
		{"none preempted", 4, 2, nil},
		{"one", 4, 3, []int{1}},
		{"three in launch order", 5, 4, []int{0, 1, 2}},
		{"three out of order", 5, 4, []int{2, 0, 3}},
		{"all", 3, 3, []int{1, 2, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ts Tasks
			j := NewJob(Submission{Tasks: c.tasks, Fresh: 100, Project: -1, Account: -1}, nil)
			nodes := []sched.NodeSlots{{Node: 0, Slots: 1}}
			var launched []int32
			for range c.first {
				launched = append(launched, j.Launch(&ts, 0, nodes, false, 0))
			}
			// The master's view of the queued tasks: stamped at preemption.
			queued := map[int]Queued{}
			for i := c.first; i < c.tasks; i++ {
				queued[i] = Queued{Index: i}
			}
			for n, pos := range c.preempt {
				ti := launched[pos]
				j.Preempt(&ts, ti, 10)
				id := int(ts.At(ti).ID)
				j.Checkpointed(&ts, ti)
				queued[id] = Queued{Ran: true, Preempted: int64(n + 1), Index: id}
			}
			for len(queued) > 0 {
				var want Queued
				first := true
				for _, q := range queued {
					if first || ResumesBefore(q, want) {
						want, first = q, false
					}
				}
				ti := j.Launch(&ts, 0, nodes, false, 20)
				if got := int(ts.At(ti).ID); got != want.Index {
					t.Fatalf("Launch started task %d, ResumesBefore puts task %d first", got, want.Index)
				}
				delete(queued, want.Index)
			}
		})
	}
}

func TestLastCheckpoint(t *testing.T) {
	for _, c := range []struct {
		name                    string
		start, from, now, every int64
		want                    int64
	}{
		{"never re-placed, no interval", 100, 100, 500, 0, 0},
		{"moved, no interval", 100, 300, 500, 0, 300},
		{"never re-placed, every 60", 100, 100, 500, 60, 460},
		{"moved, every 60", 100, 300, 500, 60, 480},
		{"at its start", 100, 100, 100, 60, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := LastCheckpoint(c.start, c.from, c.now, c.every); got != c.want {
				t.Errorf("LastCheckpoint = %d, want %d", got, c.want)
			}
			tk := Task{Attempt: Attempt{Start: c.start, From: c.from}}
			if got := tk.LastCheckpoint(c.now, c.every); got != c.want {
				t.Errorf("Task.LastCheckpoint = %d, want %d", got, c.want)
			}
		})
	}
}

// TestInFairShareCapacity: a node counts in the fair-share capacity
// whether up, down or drained, so that the simulator's capacity (sim's
// chargedSlots) is the master's (snapNodes) through losses and drains,
// and leaves it only once deleted.
func TestInFairShareCapacity(t *testing.T) {
	for _, c := range []struct {
		name    string
		deleted bool
		want    bool
	}{
		{"up, down or drained", false, true},
		{"deleted", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := InFairShareCapacity(c.deleted); got != c.want {
				t.Errorf("a node %s counts: %v, want %v", c.name, got, c.want)
			}
		})
	}
}

// TestMaxRunning: the master's snapshot, its what-if export (folding
// max_slots into max_concurrent) and the simulator (no max_slots) agree.
func TestMaxRunning(t *testing.T) {
	for _, c := range []struct {
		name                                  string
		tasks, maxConcurrent, slots, maxSlots int
		want                                  int
	}{
		{"every task", 4, 0, 1, 0, 4},
		{"max_concurrent", 4, 2, 1, 0, 2},
		{"max_concurrent above the tasks", 2, 5, 1, 0, 2},
		{"max_slots", 4, 0, 1, 2, 2},
		{"max_slots of tasks of 2", 3, 0, 2, 5, 2},
		{"max_slots below one task", 3, 0, 4, 3, 1},
		{"max_slots and max_concurrent", 6, 2, 1, 3, 2},
		{"zero-slot tasks", 3, 0, 0, 2, 3},
		{"no task", 0, 0, 1, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := MaxRunning(c.tasks, c.maxConcurrent, c.slots, c.maxSlots); got != c.want {
				t.Errorf("MaxRunning = %d, want %d", got, c.want)
			}
			// The export's max_concurrent replays as the master ran it.
			folded := MaxRunning(c.tasks, c.maxConcurrent, c.slots, c.maxSlots)
			if got := MaxRunning(c.tasks, folded, c.slots, 0); got != c.want {
				t.Errorf("replayed MaxRunning = %d, want %d", got, c.want)
			}
		})
	}
}

func TestInteractive(t *testing.T) {
	for _, c := range []struct {
		name        string
		kind        sched.Kind
		preemptible bool
		want        bool
	}{
		{"notebook", sched.KindNotebook, false, true},
		{"shell", sched.KindShell, false, true},
		{"tensorboard", sched.KindTensorBoard, false, true},
		{"preemptible notebook", sched.KindNotebook, true, false},
		{"command", sched.KindCommand, false, false},
		{"experiment", sched.KindExperiment, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Interactive(c.kind, c.preemptible); got != c.want {
				t.Errorf("Interactive = %v, want %v", got, c.want)
			}
			// Into LOW and back, as the master rebuilds its entry.
			if got := InteractiveIn(PreemptibleIn(true, c.preemptible), c.want); got {
				t.Errorf("InteractiveIn(LOW) = true")
			}
			if got := InteractiveIn(PreemptibleIn(false, c.preemptible), c.want); got != c.want {
				t.Errorf("InteractiveIn(outside LOW) = %v, want %v", got, c.want)
			}
		})
	}
}

// TestCheckpointsOnLoss: a lost gang's parts on nodes still up
// checkpoint only when its task waits to resume, it ran, and such parts
// exist (trial 2026-11-29b B18); otherwise they are killed.
func TestCheckpointsOnLoss(t *testing.T) {
	cases := []struct {
		name                string
		waits, ran, partsUp bool
		want                bool
	}{
		{"a preemptible gang that waits again", true, true, true, true},
		{"a gang that fails at the loss", false, true, true, false},
		{"a start no agent answered", true, false, true, false},
		{"no part on a node still up", true, true, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := CheckpointsOnLoss(c.waits, c.ran, c.partsUp); got != c.want {
				t.Fatalf("CheckpointsOnLoss(%v, %v, %v) = %v, want %v", c.waits, c.ran, c.partsUp, got, c.want)
			}
		})
	}
}
