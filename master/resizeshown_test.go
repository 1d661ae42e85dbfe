package master

import (
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// resizeCases are resizes that shrink a task for another job: the
// rules of a quota pool's reclaim and of fair share.
var resizeCases = []struct {
	name, config, victim, taker string
	from, to                    int
	why                         string
}{
	{name: "quota reclaim",
		config: "pools:\n  - {name: default, policy: quota}\ndefault_project: vision\nprojects:\n" +
			"  - {name: vision, quota: 2}\n  - {name: nlp, quota: 2}\n",
		victim: `{"name": "el", "project": "vision", "entrypoint": "x", "resources": {"slots": 4, "min_slots": 2, "preemptible": true}}`,
		taker:  `{"name": "nlp2", "project": "nlp", "entrypoint": "x", "resources": {"slots": 2}}`,
		from:   4, to: 2, why: "quota reclaim: project nlp is below its quota, project vision over it"},
	{name: "fair share",
		config: "pools:\n  - {name: default, policy: fair_share, preemption: true}\n",
		victim: jobSpec("alice", 4, `, "min_slots": 2, "preemptible": true`),
		taker:  jobSpec("bob", 2, `, "weight": 3`),
		from:   4, to: 2, why: "fair share: its owner is below its share of the pool, the resized job's above"},
}

// TestResizeShown: trial k C. While a resize's checkpoint runs, the job
// shrunk says so (allot jobs, job show, explain: resizing, from and to
// how many slots, for which job and why), where it read running, its
// task preempting, and explain read the slots reserved for it as held.
// Once shrunk and grown back, explain lists both resizes apart from
// preemptions ("resized twice (shrunk once for job 2, grown once)"),
// where it said "preempted twice".
func TestResizeShown(t *testing.T) {
	for _, tt := range resizeCases {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.config)))
			a := h.agent("n1", 4)
			victim := h.submit(tt.victim)
			h.step()
			h.sync(a, a)
			taker := h.submit(tt.taker)
			h.step() // the resize is decided; its checkpoint has not landed
			resizing := "from 4 to 2 slots for job " + strconv.FormatInt(taker, 10) + " (" + tt.why + "); checkpointing since "
			checkResizing(t, h, victim, taker, resizing)
			for range 4 {
				h.sync(a, a)
				h.step()
			}
			if st := h.taskState(taker, 0); st != store.TaskRunning {
				t.Fatalf("job %d's task %s, want running on the slots given back", taker, st)
			}
			if j := h.job(victim); j.Resizing != nil || j.ShownState() != "running" {
				t.Fatalf("job %d once shrunk: shown %s, resizing %+v; want running", victim, j.ShownState(), j.Resizing)
			}
			a.Exit(tid(taker, 0, 1), agent.OutcomeCompleted, 0)
			for range 6 {
				h.sync(a, a)
				h.step()
			}
			if on := nodesOf(t, h, victim); on["n1"] != 4 {
				t.Fatalf("job %d holds %v once job %d ended, want to have grown back to 4", victim, on, taker)
			}
			x := explainAs(t, h, h.admin, victim)
			if len(x.Preempted) != 0 || len(x.Preemptions) != 0 || len(x.Resized) != 2 {
				t.Fatalf("explain: preempted %+v, resized %+v; want no preemption, two resizes", x.Preempted, x.Resized)
			}
			shrunk, grown := x.Resized[0], x.Resized[1]
			if shrunk.From != 4 || shrunk.To != 2 || shrunk.ForJob != taker || grown.From != 2 || grown.To != 4 || grown.ForJob != 0 {
				t.Fatalf("resized %+v, want 4 to 2 for job %d, then 2 to 4", x.Resized, taker)
			}
			ref := "job " + strconv.FormatInt(taker, 10)
			checkSays(t, "shrink", shrunk.Why, []string{"shrunk from 4 to 2 slots for " + ref + " (" + tt.why + ")"}, []string{"checkpointed"})
			checkSays(t, "growth", grown.Why, []string{"grown from 2 to 4 slots"}, []string{"for job"})
			checkSays(t, "summary", x.Summary, []string{"Its task 0 was resized twice (shrunk once for " + ref + ", grown once)."},
				[]string{"preempted"})
		})
	}
}

// checkResizing checks what the views say of job victim while its task
// is being resized for job taker: shown resizing in the list and on its
// own (its task too), with a reason and an explanation saying resizing.
func checkResizing(t *testing.T, h *harness, victim, taker int64, resizing string) {
	t.Helper()
	j := h.job(victim)
	if j.State != "running" || j.ShownState() != api.JobStateResizing || j.Resizing == nil ||
		j.Resizing.From != 4 || j.Resizing.To != 2 || j.Resizing.ForJob != taker {
		t.Fatalf("job %d while resized: state %s shown %s, resizing %+v; want running shown resizing, 4 to 2 for job %d",
			victim, j.State, j.ShownState(), j.Resizing, taker)
	}
	checkSays(t, "reason", j.Reason, []string{"resizing " + resizing}, nil)
	if len(j.TaskList) != 1 || j.TaskList[0].State != "preempting" || j.TaskList[0].ShownState() != api.JobStateResizing ||
		j.TaskList[0].Resize == nil || *j.TaskList[0].Resize != (api.SlotChange{From: 4, To: 2}) {
		t.Fatalf("task while resized %+v, want preempting shown resizing, 4 to 2", j.TaskList)
	}
	var list []api.Job
	if code := h.do("GET", "/api/v1/jobs", nil, &list); code != 200 {
		t.Fatalf("list: %d", code)
	}
	for _, l := range list {
		if l.ID == victim && l.ShownState() != api.JobStateResizing {
			t.Errorf("listed job %d shown %s, want resizing", victim, l.ShownState())
		}
	}
	x := explainAs(t, h, h.admin, victim)
	if x.Resizing == nil || x.Elastic != nil {
		t.Fatalf("explain while resized: resizing %+v, elastic %+v; want the resize, no growth rule", x.Resizing, x.Elastic)
	}
	checkSays(t, "explain", x.Summary, []string{"It is running. It is being resized " + resizing}, []string{"It holds"})
}

// TestResizeShownAfterRestart: who a resize under way shrinks its task
// for and why are what the master applied (mtask.Replacement), not
// read back from the reason, and a master restarted while the
// checkpoint runs reads them back from the transition's event: its
// views say the same as before the restart (for_job, why, and the
// reason), and so once it is back does explain's account of the resize.
func TestResizeShownAfterRestart(t *testing.T) {
	for _, tt := range resizeCases {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.config)))
			a := h.agent("n1", 4)
			a.HoldPreempt = true // the checkpoint runs across the restart
			victim := h.submit(tt.victim)
			h.step()
			h.sync(a, a)
			taker := h.submit(tt.taker)
			// The resize at a time between seconds: the views say it at
			// the wall clock's precision (replacedAt), not to the second
			// as its lifecycle.Replacement's Since keeps it.
			h.clock.Advance(1500 * time.Millisecond)
			planned := h.clock.Now()
			h.step()
			resizing := "from 4 to 2 slots for job " + strconv.FormatInt(taker, 10) + " (" + tt.why + "); checkpointing since "
			before := h.job(victim)
			for _, when := range []string{"before the restart", "after the restart"} {
				t.Run(when, func(t *testing.T) {
					checkResizing(t, h, victim, taker, resizing)
					j := h.job(victim)
					if j.Resizing.Why != tt.why || j.Reason != before.Reason || !j.Resizing.Since.Equal(planned) {
						t.Fatalf("resizing %+v, reason %q; want why %q, reason as before the restart: %q, since the plan, %s",
							j.Resizing, j.Reason, tt.why, before.Reason, planned)
					}
				})
				if when == "before the restart" {
					h.start()
					a.Master = h.srv.URL
					if _, err := a.Register(h.ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, c := range a.Commands() {
				if c.Type == "preempt" {
					a.Exit(c.Task, agent.OutcomePreempted, 0)
				}
			}
			for range 3 {
				h.sync(a, a)
				h.step()
			}
			// The restarted master knew the move in flight for a resize
			// (its lifecycle.Replacement's kind, from the stored reason).
			var j api.Job
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(victim, 10), nil, &j); code != 200 || len(j.TaskList) != 1 ||
				len(j.TaskList[0].Attempts) == 0 || j.TaskList[0].Attempts[0].Reason != "checkpointed to resize" {
				t.Fatalf("job %d: status %d, %+v; want its first attempt checkpointed to resize", victim, code, j)
			}
			x := explainAs(t, h, h.admin, victim)
			if len(x.Resized) != 1 || x.Resized[0].ForJob != taker {
				t.Fatalf("explain once shrunk: resized %+v, want one resize for job %d", x.Resized, taker)
			}
			checkSays(t, "shrink", x.Resized[0].Why, []string{"shrunk from 4 to 2 slots for job " + strconv.FormatInt(taker, 10) +
				" (" + tt.why + ")"}, nil)
		})
	}
}
