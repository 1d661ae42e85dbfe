package master

import (
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/sched"
)

// rosterCheck builds a snapshot and checks its jobs, the planner's roster
// kept from pass to pass, against entries made afresh from the mirror:
// the jobs that belong in the snapshot in id order, each entry as snapJob
// makes it with the waiting count, and a new Rev whenever an entry
// changed since the last check (prev, by job id).
func rosterCheck(t *testing.T, h *harness, prev map[string]sched.Job) {
	t.Helper()
	s, _ := h.snapshot()
	h.m.lock()
	defer h.m.mu.Unlock()
	pl := h.m.planner
	var want []sched.Job
	for _, j := range pl.m.order {
		if j.gone {
			continue
		}
		e, ok := pl.snapJob(j)
		if !ok {
			continue
		}
		e.Waiting = j.count.Queued()
		if j.rec.State.Terminal() {
			e.Waiting = 0
		}
		want = append(want, e)
	}
	if len(s.Jobs) != len(want) {
		t.Fatalf("snapshot of %d jobs, want %d", len(s.Jobs), len(want))
	}
	revs := map[uint64]bool{}
	for i, got := range s.Jobs {
		bare := got
		bare.Rev, bare.Reserved, bare.ReservedNodes = 0, 0, nil
		if !reflect.DeepEqual(bare, want[i]) {
			t.Errorf("job %d: entry %+v, want %+v", i, bare, want[i])
		}
		if got.Rev == 0 || revs[got.Rev] {
			t.Errorf("job %s: Rev %d, want a new one of its own", got.ID, got.Rev)
		}
		revs[got.Rev] = true
		if p, ok := prev[got.ID]; ok {
			p2, g2 := p, got
			p2.Rev, g2.Rev = 0, 0
			if !reflect.DeepEqual(p2, g2) && p.Rev == got.Rev {
				t.Errorf("job %s changed under the same Rev %d", got.ID, got.Rev)
			}
		}
		got.ReservedNodes = slices.Clone(got.ReservedNodes)
		prev[got.ID] = got
	}
}

// TestRosterKeepsEntries: the snapshot's jobs, kept on the planner's
// roster and updated in place, are what a snapshot made afresh from the
// mirror would hold, through admissions (one behind a later job),
// starts, PATCHes, kills and jobs leaving.
func TestRosterKeepsEntries(t *testing.T) {
	const conservative = "backfill\n    reservations: conservative"
	for _, tc := range []struct {
		name   string
		policy string
		run    func(t *testing.T, h *harness, a *mastertest.Agent, ids []int64, check func())
	}{
		{"admitted behind a later job", conservative, func(t *testing.T, h *harness, _ *mastertest.Agent, _ []int64, check func()) {
			h.submit(jobSpec("early", 1, ""))
			h.submit(jobSpec("late", 1, ""))
			h.m.subs.mu.Lock()
			q := h.m.subs.q
			if len(q) != 2 {
				h.m.subs.mu.Unlock()
				t.Fatalf("%d jobs queued, want 2", len(q))
			}
			early := q[0]
			h.m.subs.q = q[1:]
			h.m.subs.mu.Unlock()
			check() // the later job joins the roster first
			h.m.subs.add(early)
			check()
		}},
		{"patched", conservative, func(t *testing.T, h *harness, _ *mastertest.Agent, ids []int64, check func()) {
			for i, id := range ids[2:] {
				body := `{"priority": ` + strconv.Itoa(10+i) + `}`
				if code, _, _ := h.raw("PATCH", "/api/v1/jobs/"+strconv.FormatInt(id, 10), body); code != 200 {
					t.Fatalf("PATCH job %d: %d", id, code)
				}
				check()
			}
		}},
		// No field a PATCH changes today moves a job into or out of the
		// snapshot; what does (its QOS here, as a pool or project would)
		// is changed under mu, then a PATCH marks the job as one does.
		// The job in the middle rebuilds the roster both ways; the last
		// one joins the end again. Out, it keeps its reservation, which
		// its entry takes back.
		{"patched out of the snapshot and back", conservative, func(t *testing.T, h *harness, _ *mastertest.Agent, ids []int64, check func()) {
			for _, id := range []int64{ids[3], ids[5]} {
				before, _ := reservedOf(h, id)
				if before == 0 {
					t.Fatalf("job %d holds no reservation to keep", id)
				}
				for i, qos := range []string{"gone", ""} {
					h.m.lock()
					h.m.jobs[id].spec.qos = qos
					h.m.unlock()
					body := `{"priority": ` + strconv.Itoa(30+i) + `}`
					if code, _, _ := h.raw("PATCH", "/api/v1/jobs/"+strconv.FormatInt(id, 10), body); code != 200 {
						t.Fatalf("PATCH job %d: %d", id, code)
					}
					check()
					if _, in := reservedOf(h, id); in != (qos == "") {
						t.Fatalf("job %d with QOS %q: in the snapshot %v", id, qos, in)
					}
				}
				if after, _ := reservedOf(h, id); after != before {
					t.Errorf("job %d: reserved at %d back in the snapshot, want %d as before", id, after, before)
				}
			}
		}},
		{"killed and ended", conservative, func(t *testing.T, h *harness, a *mastertest.Agent, ids []int64, check func()) {
			if code := h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(ids[3], 10)+"/kill", nil, nil); code >= 300 {
				t.Fatalf("kill: %d", code)
			}
			check()
			a.Exit(tid(ids[0], 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
			check()
			h.step()
			h.sync(a, a)
			check()
		}},
		{"configuration changed", conservative, func(t *testing.T, h *harness, _ *mastertest.Agent, _ []int64, check func()) {
			reserved := func() map[string]int64 {
				s, _ := h.snapshot()
				out := map[string]int64{}
				for _, e := range s.Jobs {
					out[e.ID] = e.Reserved
				}
				return out
			}
			before := reserved()
			h.m.lock()
			h.m.cfgGen++ // as a reload does: every entry is made again
			h.m.unlock()
			check()
			if after := reserved(); !reflect.DeepEqual(after, before) {
				t.Errorf("reservations %v after the change, want %v", after, before)
			}
		}},
		// Under FIFO no job is reserved: a start changes its job's
		// waiting count only.
		{"started, nothing reserved", "fifo", func(t *testing.T, h *harness, a *mastertest.Agent, ids []int64, check func()) {
			a.Exit(tid(ids[0], 0, 1), agent.OutcomeCompleted, 0)
			a.Exit(tid(ids[1], 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
			h.step()
			check()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustConfig(t, "pools:\n  - name: default\n    policy: "+tc.policy+"\n")
			h := newHarness(t, withConfig(cfg))
			a := h.agent("n1", 4)
			prev := map[string]sched.Job{}
			check := func() { t.Helper(); rosterCheck(t, h, prev) }
			var ids []int64
			for i := range 6 {
				ids = append(ids, h.submit(jobSpec("j"+strconv.Itoa(i), 2, `, "time_limit": 600`)))
			}
			h.step()
			h.sync(a, a)
			check()
			h.step()
			check()
			tc.run(t, h, a, ids, check)
			h.step()
			check()
		})
	}
}

// reservedOf is job id's reservation in a snapshot built now (0 for
// none), and whether the job is in it.
func reservedOf(h *harness, id int64) (int64, bool) {
	s, _ := h.snapshot()
	for _, e := range s.Jobs {
		if e.ID == strconv.FormatInt(id, 10) {
			return e.Reserved, true
		}
	}
	return 0, false
}

// TestRosterPendingAndStarted: a plan that starts some of a job's tasks
// and leaves the rest pending with a reservation carries the job's twice,
// pending then started; the entry takes the last, none, as the
// simulator's rule has it (lifecycle.Reservations), whether or not it
// held a reservation before, and the roster stays what a snapshot made
// afresh would hold.
func TestRosterPendingAndStarted(t *testing.T) {
	const sweep = `{"name": "sweep", "entrypoint": "train", "resources": {"slots": 2, "time_limit": 600},
		"hyperparameters": {"lr": {"type": "categorical", "vals": [1, 2, 3]}}, "searcher": {"name": "grid"}}`
	for _, tc := range []struct {
		name    string
		blocked bool // a job holds the node first: the sweep is reserved before it starts
	}{
		{"new job", false},
		{"reserved before", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustConfig(t, "pools:\n  - name: default\n    policy: backfill\n    reservations: conservative\n")
			h := newHarness(t, withConfig(cfg))
			a := h.agent("n1", 4)
			prev := map[string]sched.Job{}
			check := func() { t.Helper(); rosterCheck(t, h, prev) }
			var blocker, before int64
			if tc.blocked {
				blocker = h.submit(jobSpec("blocker", 4, `, "time_limit": 600`))
				h.step()
				h.sync(a)
			}
			id := h.submit(sweep)
			if tc.blocked {
				h.step()
				check()
				var in bool
				if before, in = reservedOf(h, id); !in || before == 0 {
					t.Fatalf("sweep reserved at %d (in the snapshot %v), want a reservation behind the blocker", before, in)
				}
				// Ending early, so that the trial left pending is reserved
				// anew, not where the sweep was.
				h.clock.Advance(time.Minute)
				a.Exit(tid(blocker, 0, 1), agent.OutcomeCompleted, 0)
				h.sync(a)
			}
			// The plan the next pass makes, from the snapshot it is made from.
			s, _ := h.snapshot()
			h.m.lock()
			plan, err := sched.Schedule(s)
			h.m.unlock()
			if err != nil {
				t.Fatal(err)
			}
			ji := slices.IndexFunc(s.Jobs, func(e sched.Job) bool { return e.ID == strconv.FormatInt(id, 10) })
			pending := slices.ContainsFunc(plan.Pending, func(pe sched.Pending) bool { return pe.Job == ji && pe.At > 0 && pe.At != before })
			started := slices.ContainsFunc(plan.Starts, func(st sched.Start) bool { return st.Job == ji })
			if !pending || !started {
				t.Fatalf("plan: sweep reserved %v, started %v; want both in one plan (reserved anew, not at %d)", pending, started, before)
			}
			h.step()
			h.sync(a, a)
			check()
			if at, in := reservedOf(h, id); !in || at != 0 {
				t.Errorf("sweep reserved at %d (in the snapshot %v) after it started, want none", at, in)
			}
		})
	}
}
