package master

import (
	"math"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestPendingMultifactorPriority: a job waiting in a multifactor pool
// carries its multi-factor priority (what orders that queue, squeue's
// %Q) in its pending explanation, in the list and on its own; one
// waiting in a FIFO pool has none.
func TestPendingMultifactorPriority(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         bool
	}{
		{"multifactor", lateExitConfig, true},
		{"fifo", "pools:\n  - {name: default, policy: fifo}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tc.config)))
			a := h.agent("n1", 1)
			h.submit(`{"name": "a", "entrypoint": "x", "resources": {"slots": 1}}`)
			waiting := h.submit(`{"name": "b", "entrypoint": "x", "resources": {"slots": 1}}`)
			h.step()
			h.sync(a)
			j := h.job(waiting)
			if j.Pending == nil {
				t.Fatalf("job %d: no pending explanation (state %s)", waiting, j.State)
			}
			if got := j.Pending.Priority > 0; got != tc.want {
				t.Errorf("GET /jobs/%d: pending priority %v, want one: %v", waiting, j.Pending.Priority, tc.want)
			}
			var list []api.Job
			if code := h.do("GET", "/api/v1/jobs", nil, &list); code != 200 {
				t.Fatalf("GET /jobs: %d", code)
			}
			for _, l := range list {
				if l.ID == waiting && (l.Pending == nil || l.Pending.Priority != j.Pending.Priority) {
					t.Errorf("GET /jobs lists job %d with pending %+v, want priority %v", waiting, l.Pending, j.Pending.Priority)
				}
			}
		})
	}
}

// TestRunningMultifactorPriority: a job that waited in a multifactor pool
// and then started keeps, as multifactor_priority, the multi-factor
// priority of the last pass that found it waiting, as Slurm keeps a
// running job's: allot jobs -o wide then shows one kind of number for
// running and waiting jobs. A job that started in its first pass keeps
// the priority it started with (noteStartPriorities); one in a FIFO pool
// has none.
func TestRunningMultifactorPriority(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         bool
	}{
		{"multifactor", lateExitConfig, true},
		{"fifo", "pools:\n  - {name: default, policy: fifo}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tc.config)))
			a := h.agent("n1", 1)
			first := h.submit(`{"name": "a", "entrypoint": "x", "resources": {"slots": 1}}`)
			second := h.submit(`{"name": "b", "entrypoint": "x", "resources": {"slots": 1}}`)
			h.step()
			h.sync(a)
			var waited float64
			if p := h.job(second).Pending; p != nil {
				waited = p.Priority
			}
			if j := h.job(first); j.State != "running" || (j.MultifactorPriority != 0) != tc.want {
				t.Fatalf("job %d: %s with multifactor_priority %v, want running with one: %v (it started at once)",
					first, j.State, j.MultifactorPriority, tc.want)
			}
			a.Exit(tid(first, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
			h.step()
			h.sync(a)
			j := h.job(second)
			if j.State != "running" || j.Pending != nil {
				t.Fatalf("job %d: %s, pending %+v; want running", second, j.State, j.Pending)
			}
			if got := j.MultifactorPriority; (got != 0) != tc.want || tc.want && got != waited {
				t.Errorf("job %d running: multifactor_priority %v, want %v (its last while waiting: %v)", second, got, tc.want, waited)
			}
		})
	}
}

// TestMultifactorPriorityAfterRestart: a running job's multi-factor
// priority as it started is stored with its attempt, so that a restarted
// master shows the same number (allot jobs: "(multifactor, at start)"),
// before its first pass and after one, not the job's 1-99 number: for a
// job that started in its first pass and for one that waited first. In
// a FIFO pool there is none, before and after.
func TestMultifactorPriorityAfterRestart(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         bool
	}{
		{"multifactor", lateExitConfig, true},
		{"fifo", "pools:\n  - {name: default, policy: fifo}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tc.config)))
			a := h.agent("n1", 2)
			first := h.submit(`{"name": "a", "entrypoint": "x", "resources": {"slots": 1}}`)
			short := h.submit(`{"name": "b", "entrypoint": "x", "resources": {"slots": 1}}`)
			second := h.submit(`{"name": "c", "entrypoint": "x", "resources": {"slots": 1}}`)
			h.step()
			h.sync(a)
			h.clock.Advance(10 * time.Minute) // the waiting job ages: its priority moves
			h.step()
			a.Exit(tid(short, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
			h.step()
			h.sync(a)
			before := map[int64]float64{}
			for _, id := range []int64{first, second} {
				j := h.job(id)
				if j.State != "running" || (j.MultifactorPriority != 0) != tc.want {
					t.Fatalf("job %d: %s with multifactor_priority %v, want running with one: %v", id, j.State, j.MultifactorPriority, tc.want)
				}
				before[id] = j.MultifactorPriority
			}
			if tc.want && before[first] == before[second] {
				t.Fatalf("both jobs started with priority %v: the test cannot tell them apart", before[first])
			}
			h.start()
			check := func(when string) {
				for _, id := range []int64{first, second} {
					if j := h.job(id); j.State != "running" || j.MultifactorPriority != before[id] {
						t.Errorf("%s: job %d %s with multifactor_priority %v, want running with %v, as before it",
							when, id, j.State, j.MultifactorPriority, before[id])
					}
				}
			}
			check("after the restart")
			a.Master = h.srv.URL
			if _, err := a.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.step()
			h.sync(a)
			check("after the restarted master's first pass")
		})
	}
}

// TestStoredPriority: a start stores a finite priority as it is, and
// one that is not finite (which the store refuses) as none, so that the
// start is not failed for it.
func TestStoredPriority(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p, out float64
	}{
		{"finite", 10125.5, 10125.5},
		{"none", 0, 0},
		{"NaN", math.NaN(), 0},
		{"infinite", math.Inf(-1), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := storedPriority(tc.p); got != tc.out {
				t.Errorf("storedPriority(%v) = %v, want %v", tc.p, got, tc.out)
			}
		})
	}
}
