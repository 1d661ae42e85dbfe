package master

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/storetest"
)

// TestKilledJobEndsWithLastTask: a job killed while its agent is silent
// ends, once the agent reports the kill's end, when its task did: ended_at
// is that end, stored before it is shown and kept across a restart, and
// kill_requested_at the kill's time, which the decision log keeps for
// its kill.
func TestKilledJobEndsWithLastTask(t *testing.T) { onBackends(t, killedJobEndsWithLastTask) }

func killedJobEndsWithLastTask(t *testing.T, h *harness) {
	t0 := h.clock.Now()
	a := h.agent("n1", 2)
	// Its time limit passes before the kill's end, which no tick sees:
	// its attempt ran past it, but the kill, not the limit, ended it.
	id := h.submit(jobSpec("one", 1, `, "time_limit": 15`))
	h.step()
	h.sync(a, a)
	h.clock.Advance(10 * time.Second)
	killAt := h.clock.Now()
	if code := h.do("POST", "/api/v1/jobs/1/kill", nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	h.clock.Advance(7 * time.Second) // the agent does not answer
	j := h.job(id)
	if !j.Ending || !sameTime(j.EndedAt, killAt) || !sameTime(j.KillRequestedAt, killAt) {
		t.Fatalf("while ending: ending %v, ended %v, kill requested %v; want ending, both at the kill %v",
			j.Ending, j.EndedAt, j.KillRequestedAt, killAt)
	}
	endAt := h.clock.Now()
	h.sync(a, a) // the agent reports the kill's end
	check := func(when string) {
		t.Helper()
		j := h.job(id)
		if j.State != "killed" || j.Ending || !sameTime(j.EndedAt, endAt) || !sameTime(j.KillRequestedAt, killAt) {
			t.Errorf("%s: %s ending %v, ended %v, kill requested %v; want killed, ended at the task's end %v, kill requested %v",
				when, j.State, j.Ending, j.EndedAt, j.KillRequestedAt, endAt, killAt)
		}
		rec, err := h.st.Job(h.ctx, id)
		if err != nil || !rec.EndedAt.Equal(endAt) {
			t.Errorf("%s: stored end %v (%v), want %v", when, rec.EndedAt, err, endAt)
		}
		var hist []api.HistoryRecord
		if code := h.do("GET", "/api/v1/history", nil, &hist); code != 200 || len(hist) != 1 || !sameTime(hist[0].EndedAt, endAt) {
			t.Errorf("%s: history %d %+v, want the job ended at %v", when, code, hist, endAt)
		}
		ds, err := h.m.history.decisions(h.ctx, t0, h.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if log := decisionlog.Format(ds); !strings.Contains(log, "10 kill ") {
			t.Errorf("%s: decision log\n%s\nwant the kill at 10 s, its request", when, log)
		}
		sc, body := exportScenario(t, h, window(t0, h.clock.Now().Add(time.Second)))
		if len(sc.Events) != 1 || sc.Events[0].Kind != scenario.EventKill || sc.Events[0].At != 10 {
			t.Errorf("%s: the what-if export's events %+v, want the kill at 10 s:\n%s", when, sc.Events, body)
		}
	}
	check("after the end")
	h.start() // a restart reads the end back from the store
	check("after a restart")
}

// sameTime says whether a view's time is want.
func sameTime(got *time.Time, want time.Time) bool { return got != nil && got.Equal(want) }

// TestJobEndingWhileRunning: a job whose every task not ended is being
// killed, though the job was not (its time limit reached its task, or a
// part of its gang failed), is shown ending while its agents are silent:
// ending, since when and why, and state=killing selects it; it stays
// running in the store, and once its task ends it ends as before.
func TestJobEndingWhileRunning(t *testing.T) {
	tests := []struct {
		name    string
		slots   int
		extra   string
		nodes   int
		stop    func(h *harness, id int64, a *mastertest.Agent) // kills the task, n1's agent reporting
		why     string
		wantEnd string
		on      string // the node whose agent is silent
	}{
		{"time limit", 1, `, "time_limit": 60`, 1, func(h *harness, _ int64, a *mastertest.Agent) {
			for range 3 { // the agent syncs until the limit, then is silent
				h.clock.Advance(20 * time.Second)
				h.sync(a)
				h.m.Tick(h.ctx)
			}
		}, "time limit of 1m reached", "killed", "n1"},
		{"a gang's part failed", 4, "", 2, func(h *harness, id int64, a *mastertest.Agent) {
			a.Exit(tid(id, 0, 1), agent.OutcomeFailed, 3)
			h.sync(a)
		}, "the part on node n1 failed with exit code 3", "failed", "n2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			agents := []*mastertest.Agent{h.agent("n1", 2)}
			if tt.nodes > 1 {
				agents = append(agents, h.agent("n2", 2))
			}
			id := h.submit(jobSpec("one", tt.slots, tt.extra))
			h.step()
			h.sync(append(agents, agents...)...)
			if j := h.job(id); j.State != "running" || j.Ending {
				t.Fatalf("running: %s ending %v", j.State, j.Ending)
			}
			tt.stop(h, id, agents[0])
			killAt := h.clock.Now()
			h.clock.Advance(5 * time.Second)
			j := h.job(id)
			if j.State != "running" || !j.Ending || j.ShownState() != api.JobStateKilling || j.Running != 1 ||
				!sameTime(j.KillRequestedAt, killAt) || j.EndedAt != nil {
				t.Fatalf("ending: %s ending %v running %d, kill requested %v, ended %v; want running, ending, 1 running, kill requested at %v, no end",
					j.State, j.Ending, j.Running, j.KillRequestedAt, j.EndedAt, killAt)
			}
			want := "being killed: 1 task still stopping on " + tt.on + ", its agent has not confirmed the end (for 5s, of a kill_grace of 30s); " + tt.why
			if !strings.HasPrefix(j.Reason, want) {
				t.Errorf("reason %q, want %q...", j.Reason, want)
			}
			for query, want := range map[string]bool{"?state=killing": true, "?state=running": true, "": true,
				"?state=queued,killed": false} {
				var got []api.Job
				if code := h.do("GET", "/api/v1/jobs"+query, nil, &got); code != 200 {
					t.Fatalf("GET /jobs%s: %d", query, code)
				}
				if found := len(got) == 1 && got[0].Ending; found != want || (!want && len(got) > 0) {
					t.Errorf("GET /jobs%s: %+v; want it listed, ending: %v", query, got, want)
				}
			}
			if rec, err := h.st.Job(h.ctx, id); err != nil || rec.State != store.JobRunning {
				t.Errorf("stored: %s (%v), want running", rec.State, err)
			}
			h.sync(append(agents, agents...)...)
			j = h.job(id)
			if j.State != tt.wantEnd || j.Ending || j.KillRequestedAt != nil || !sameTime(j.EndedAt, h.clock.Now()) {
				t.Errorf("after the end: %s ending %v, kill requested %v, ended %v; want %s at %v",
					j.State, j.Ending, j.KillRequestedAt, j.EndedAt, tt.wantEnd, h.clock.Now())
			}
		})
	}
}

// TestJobEndsAtExit: a job ends when its last task's processes exited,
// by its agent's word, not when the master heard of it: after a store
// outage that delayed the report its stored end, GET /jobs/{id} and
// allot history's end are the exit, its start plus its elapsed time,
// while the job's event keeps when the master heard (trial o F7).
func TestJobEndsAtExit(t *testing.T) {
	cases := []struct {
		name string
		down time.Duration // how long the store refuses writes after the exit
	}{
		{name: "exit heard at once"},
		{name: "store down when the exit came", down: 2 * time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var flaky *flakyStore
			h := newHarness(t, func(o *Options) { flaky = &flakyStore{&storetest.Flaky{Store: o.Store}}; o.Store = flaky })
			h.m.health.minGap = 0
			a := h.agent("n1", 1)
			id := h.submit(jobSpec("oneq", 1, ""))
			h.step()
			h.sync(a, a)
			start := h.clock.Now()
			h.clock.Advance(3*time.Minute + 20*time.Second)
			exit := h.clock.Now()
			task := tid(id, 0, 1)
			a.Forget(task)
			code := 0
			a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted),
				ExitCode: &code, At: exit})
			if c.down > 0 {
				flaky.Down.Store(true)
				if _, err := a.Sync(h.ctx, 0); err == nil {
					t.Fatal("the sync succeeded while the store was down")
				}
				h.clock.Advance(c.down)
				flaky.Down.Store(false)
			}
			heard := h.clock.Now()
			h.sync(a)
			if j := h.job(id); j.State != "completed" || !sameTime(j.EndedAt, exit) {
				t.Fatalf("GET /jobs/%d: %s, ended %v; want completed, ended at the exit %v", id, j.State, j.EndedAt, exit)
			}
			rec, err := h.st.Job(h.ctx, id)
			if err != nil || !rec.EndedAt.Equal(exit) {
				t.Fatalf("stored end %v (%v), want the exit %v", rec.EndedAt, err, exit)
			}
			evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id, To: string(store.JobCompleted)})
			evs = slices.DeleteFunc(evs, func(e store.Event) bool { return e.Index >= 0 }) // the task's
			if err != nil || len(evs) != 1 || !evs[0].At.Equal(heard) {
				t.Fatalf("the job's end event %+v (%v), want one when the master heard, %v", evs, err, heard)
			}
			var hist []api.HistoryRecord
			if code := h.do("GET", "/api/v1/history", nil, &hist); code != 200 || len(hist) != 1 ||
				!sameTime(hist[0].EndedAt, exit) || hist[0].StartedAt == nil ||
				!hist[0].StartedAt.Add(time.Duration(hist[0].ElapsedS)*time.Second).Equal(exit) {
				t.Fatalf("history %d %+v, want ended at %v, its start %v plus its elapsed time", code, hist, exit, start)
			}
		})
	}
}
