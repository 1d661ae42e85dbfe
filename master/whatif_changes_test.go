package master

import (
	"context"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// TestJobChangeOf reads the changes store.UpdateJob keeps, from the
// values it stores: the reason a user gives, however it reads, says
// nothing to the export.
func TestJobChangeOf(t *testing.T) {
	prio := func(p int) *int { return &p }
	weight := func(w float64) *float64 { return &w }
	class := func(c string) *string { return &c }
	yes, no := true, false
	for _, c := range []struct {
		name        string
		u           store.JobUpdate
		ok          bool
		prio        [2]int
		weight      [2]float64
		preemptible bool
	}{
		{"priority", store.JobUpdate{Priority: prio(10), PriorityClass: class("HIGH"), Reason: "weight 1 → 9"}, true, [2]int{40, 10}, [2]float64{}, false},
		{"weight", store.JobUpdate{Weight: weight(2.5), Reason: "priority 1 → 2"}, true, [2]int{}, [2]float64{1, 2.5}, false},
		{"both", store.JobUpdate{Priority: prio(45), Weight: weight(3), Reason: ""}, true, [2]int{40, 45}, [2]float64{1, 3}, false},
		{"into LOW", store.JobUpdate{Priority: prio(80), PriorityClass: class("LOW"), Preemptible: &yes, Reason: "changed through the API"},
			true, [2]int{40, 80}, [2]float64{}, true},
		{"class only", store.JobUpdate{PriorityClass: class("HIGH"), Reason: "priority 40 → 10"}, false, [2]int{}, [2]float64{}, false},
		{"preemptible only", store.JobUpdate{Preemptible: &yes}, false, [2]int{}, [2]float64{}, false},
		{"nothing", store.JobUpdate{Preemptible: &no, Reason: "priority 40 → 10"}, false, [2]int{}, [2]float64{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, "", t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			job, err := st.CreateJob(ctx, store.Job{Name: "j", Kind: store.KindCommand, Project: "p", User: "u", Pool: "default",
				Priority: 40, PriorityClass: "NORMAL", Weight: 1, Slots: 1, Entrypoint: "true"}, make([]store.Task, 1))
			if err != nil {
				t.Fatal(err)
			}
			c.u.ID = job.ID
			if _, err := st.UpdateJob(ctx, c.u); err != nil {
				t.Fatal(err)
			}
			evs, err := st.Events(ctx, store.EventFilter{JobID: job.ID})
			if err != nil {
				t.Fatal(err)
			}
			got, ok := jobChangeOf(evs[len(evs)-1])
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (%d events)", ok, c.ok, len(evs))
			}
			if !ok {
				return
			}
			if (got.toPrio != nil) != (c.prio != [2]int{}) || got.toPrio != nil && (*got.fromPrio != c.prio[0] || *got.toPrio != c.prio[1]) {
				t.Errorf("priority %v → %v, want %v", got.fromPrio, got.toPrio, c.prio)
			}
			if (got.toWeight != nil) != (c.weight != [2]float64{}) || got.toWeight != nil && (*got.fromWeight != c.weight[0] || *got.toWeight != c.weight[1]) {
				t.Errorf("weight %v → %v, want %v", got.fromWeight, got.toWeight, c.weight)
			}
			if (got.fromPre != nil) != c.preemptible || got.fromPre != nil && *got.fromPre {
				t.Errorf("preemptible before = %v, want a change from false: %v", got.fromPre, c.preemptible)
			}
		})
	}
}

// TestCheckpointCost: the longest time from a preemption request to its
// landing, in whole seconds from the window's start; one still
// checkpointing when exported took longer than until the export, and
// one killed while checkpointing (killing after the request) longer than
// until its kill.
func TestCheckpointCost(t *testing.T) {
	since := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return since.Add(time.Duration(s * float64(time.Second))) }
	att := func(job int64, end float64, st store.AttemptState) store.Attempt {
		return store.Attempt{JobID: job, Number: 1, StartedAt: since, EndedAt: at(end), EndState: st}
	}
	for _, c := range []struct {
		name      string
		atts      []store.Attempt
		requested map[int64]float64
		killed    map[int64]float64 // job: when its task went killing
		cost      int64
	}{
		{"none", []store.Attempt{att(1, 100, store.AttemptCompleted)}, nil, nil, 0},
		{"at once", []store.Attempt{att(1, 100.4, store.AttemptPreempted)}, map[int64]float64{1: 100.2}, nil, 0},
		{"alike", []store.Attempt{att(1, 130, store.AttemptPreempted), att(2, 230.5, store.AttemptPreempted)},
			map[int64]float64{1: 100, 2: 200.5}, nil, 30},
		{"differ", []store.Attempt{att(1, 130, store.AttemptPreempted), att(2, 210, store.AttemptPreempted)},
			map[int64]float64{1: 100, 2: 200}, nil, 30},
		// The kill's end (105) is the kill's time, not the checkpoint's.
		{"killed while checkpointing", []store.Attempt{att(1, 105, store.AttemptKilled)},
			map[int64]float64{1: 100.5}, map[int64]float64{1: 102.5}, 3},
		{"killed in the request's second", []store.Attempt{att(1, 105, store.AttemptKilled)},
			map[int64]float64{1: 100.2}, map[int64]float64{1: 100.7}, 1},
		{"killed while checkpointing, beside a longer one", []store.Attempt{att(1, 105, store.AttemptKilled), att(2, 230, store.AttemptPreempted)},
			map[int64]float64{1: 100, 2: 200}, map[int64]float64{1: 102}, 30},
		// Killed (a kill before the request) with no request after: no
		// checkpoint of it counts.
		{"killed, not while checkpointing", []store.Attempt{att(1, 105, store.AttemptKilled)}, nil, map[int64]float64{1: 102}, 0},
		// Exported at 1000 s: it took longer than until then.
		{"still checkpointing", []store.Attempt{{JobID: 1, Number: 1, StartedAt: since}}, map[int64]float64{1: 990.5}, nil, 11},
		{"still running", []store.Attempt{{JobID: 1, Number: 1, StartedAt: since}}, nil, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			pre, killing := map[attemptKey]time.Time{}, map[attemptKey]time.Time{}
			for job, s := range c.requested {
				pre[attemptKey{job, 0, 1}] = at(s)
			}
			for job, s := range c.killed {
				killing[attemptKey{job, 0, 1}] = at(s)
			}
			if cost := checkpointCost(c.atts, pre, killing, since, at(1000)); cost != c.cost {
				t.Errorf("checkpointCost = %d, want %d", cost, c.cost)
			}
		})
	}
}

// TestAttemptFirst: a restart on a move's reserved placement continues
// the attempt before it; a resumption after a preemption does not.
func TestAttemptFirst(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	atts := []store.Attempt{
		{JobID: 1, Number: 1, StartedAt: at(0), EndedAt: at(60), EndState: store.AttemptPreempted},
		{JobID: 1, Number: 2, StartedAt: at(60), EndedAt: at(120), EndState: store.AttemptPreempted},
		{JobID: 1, Number: 3, StartedAt: at(120), EndedAt: at(200), EndState: store.AttemptPreempted},
		{JobID: 1, Number: 4, StartedAt: at(300)},
	}
	h := historyEvents{moved: map[attemptKey]bool{{1, 0, 1}: true, {1, 0, 2}: true, {1, 0, 3}: true}}
	for _, c := range []struct {
		name string
		att  int
		want time.Time
	}{
		{"the first", 0, at(0)},
		{"after a move", 1, at(0)},
		{"after two moves", 2, at(0)},
		{"not at the landing", 3, at(300)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := h.first(atts, atts[c.att]); !got.Equal(c.want) {
				t.Errorf("first = %v, want %v", got, c.want)
			}
		})
	}
	h.moved[attemptKey{1, 0, 1}] = false // preempted, resumed at once
	if got := h.first(atts, atts[1]); !got.Equal(at(60)) {
		t.Errorf("after a preemption first = %v, want %v", got, at(60))
	}
}

// TestJobChangeOfRequeueHold: a hold a requeue made (--hold) reads as
// the requeue's, which the export writes as the requeue; a hold alone,
// whatever its user's words, and a release do not.
func TestJobChangeOfRequeueHold(t *testing.T) {
	for _, c := range []struct {
		name      string
		hold      store.JobHold
		byRequeue bool
	}{
		{"requeue's hold", store.JobHold{Hold: true, By: "ann", Reason: requeueHoldReason}, true},
		{"hold alone", store.JobHold{Hold: true, By: "ann"}, false},
		{"hold naming a requeue", store.JobHold{Hold: true, By: "ann", Reason: "until the requeue of job 3"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, "", t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			job, err := st.CreateJob(ctx, store.Job{Name: "j", Kind: store.KindCommand, Project: "p", User: "u", Pool: "default",
				Priority: 40, PriorityClass: "NORMAL", Weight: 1, Slots: 1, Entrypoint: "true"}, make([]store.Task, 1))
			if err != nil {
				t.Fatal(err)
			}
			c.hold.ID = job.ID
			if _, err := st.HoldJob(ctx, c.hold); err != nil {
				t.Fatal(err)
			}
			if _, err := st.HoldJob(ctx, store.JobHold{ID: job.ID, By: "ann"}); err != nil { // a release
				t.Fatal(err)
			}
			evs, err := st.Events(ctx, store.EventFilter{JobID: job.ID})
			if err != nil {
				t.Fatal(err)
			}
			hold, ok := jobChangeOf(evs[len(evs)-2])
			if !ok || hold.held == nil || !*hold.held || hold.byRequeue != c.byRequeue {
				t.Errorf("hold %q: ok %v, held %v, by a requeue %v; want held, by a requeue %v", evs[len(evs)-2].Reason, ok, hold.held, hold.byRequeue, c.byRequeue)
			}
			if release, _ := jobChangeOf(evs[len(evs)-1]); release.byRequeue {
				t.Errorf("release %q reads as a requeue's hold", evs[len(evs)-1].Reason)
			}
		})
	}
}
