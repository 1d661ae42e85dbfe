package master

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// lostGangRun is a run of TestLostGangAcrossRestart: the gang's job jid,
// its lost attempt id, n1's agent (the part left there), n3's (free),
// and when n1's part exited, where it did while the master was down.
type lostGangRun struct {
	h      *harness
	n1, n3 *mastertest.Agent
	jid    int64
	id     agent.TaskID
	exited time.Time
}

// TestLostGangAcrossRestart: a preemptible 4-slot gang over n1 and n2
// loses n2, its part on n1 asked to checkpoint (lostgang.go), and the
// master restarts before that part has ended. The restarted master
// follows the lost attempt again (restoreLefts): until it hears of n1
// the gang does not start again, though n3 (4 GPUs) is free, and it
// records when the part on n1 ended (left_ended), which the what-if
// export gives the simulator (leftTook): at the sync that no longer
// lists it when n1's agent still runs it at its registration (held
// again, its GPUs too); at the exit its agent reports when it ended
// while the master was down, its report to come; at the registration
// when the agent lists it no more, with no report; at n1's loss when n1
// never comes back.
func TestLostGangAcrossRestart(t *testing.T) {
	cases := []struct {
		name string
		// down is what becomes of n1's part while the master is down.
		down func(r *lostGangRun)
		// back: n1's agent registers with the restarted master.
		back bool
		// after is what happens once n1 is back (or not); it returns when
		// the store must say the part ended.
		after func(t *testing.T, r *lostGangRun) time.Time
	}{
		{"still checkpointing", func(*lostGangRun) {}, true, func(t *testing.T, r *lostGangRun) time.Time {
			r.h.m.mu.Lock()
			held, hold := r.h.m.agents.strays.strayHeld("n1"), r.h.m.agents.strays.holds[strayKey{r.id, "n1"}]
			r.h.m.mu.Unlock()
			if len(held) != 2 || hold == nil || !hold.left {
				t.Fatalf("n1's part not held again as a lost gang's: GPUs %v, hold %+v", held, hold)
			}
			if p, _ := stops(r.n1.Commands()); len(p) != 2 || p[1].GraceS != 60 {
				t.Fatalf("n1's preempts %+v, want the loss's and the registration's, with the pool's 60s", p)
			}
			r.h.clock.Advance(5 * time.Second)
			r.n1.Exit(r.id, agent.OutcomePreempted, 0)
			at := r.h.clock.Now()
			r.h.sync(r.n1)
			return at
		}},
		{"ended, its report to come", func(r *lostGangRun) { r.n1.HoldExit(r.id) }, true,
			func(t *testing.T, r *lostGangRun) time.Time {
				r.h.sync(r.n1) // no report yet: it still waits
				if got := leftEnded(t, r.h, r.jid); len(got) != 0 {
					t.Fatalf("end recorded before the exit report: %+v", got)
				}
				r.n1.Inject(api.Report{Task: r.id, Event: api.EventExited, Outcome: string(agent.OutcomePreempted), At: r.exited})
				r.h.sync(r.n1)
				return r.exited
			}},
		{"ended, no report", func(r *lostGangRun) { r.n1.Forget(r.id) }, true,
			func(_ *testing.T, r *lostGangRun) time.Time {
				return r.h.clock.Now() // the registration, just before
			}},
		{"n1 lost", func(*lostGangRun) {}, false, func(t *testing.T, r *lostGangRun) time.Time {
			r.h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			at := r.h.clock.Now()
			r.h.sync(r.n3)
			r.h.m.Tick(r.h.ctx)
			if r.h.m.nodes["n1"].up() {
				t.Fatal("n1 not lost after the agent timeout")
			}
			return at
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t,
				"pools: [{name: default, policy: priority, preemption: true, grace: 60s}]\nlost_node_grace: 0s\n")))
			r := &lostGangRun{h: h, n1: h.agent("n1", 2)}
			n2 := h.agent("n2", 2)
			r.jid = h.submit(jobSpec("train", 4, `, "priority": 80`))
			h.step()
			h.sync(r.n1, n2, r.n1, n2)
			r.n1.HoldPreempt = true
			h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			h.sync(r.n1)
			h.m.Tick(h.ctx)
			lostAt := h.clock.Now()
			if got := h.taskState(r.jid, 0); got != store.TaskQueued || h.m.nodes["n2"].up() {
				t.Fatalf("gang %s after n2's loss, want queued", got)
			}
			h.sync(r.n1) // its checkpoint request
			r.n3, r.id = h.agent("n3", 4), tid(r.jid, 0, 1)
			h.clock.Advance(3 * time.Second)
			r.exited = h.clock.Now()
			c.down(r)
			h.clock.Advance(10 * time.Second)
			h.start()
			r.n3.Master = h.srv.URL
			if _, err := r.n3.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.step()
			if got := h.taskState(r.jid, 0); got != store.TaskQueued {
				t.Fatalf("gang %s before n1 is heard of, want queued: its part there may still run", got)
			}
			if c.back {
				r.n1.Master = h.srv.URL
				if _, err := r.n1.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
			}
			want := c.after(t, r)
			got := leftEnded(t, h, r.jid)
			if len(got) != 1 || got[0].Attempt != 1 || !got[0].At.Equal(want) {
				t.Fatalf("parts' end events %+v, want one of attempt 1 at %s", got, want)
			}
			h.m.mu.Lock()
			holds, lefts := len(h.m.agents.strays.holds), len(h.m.agents.strays.lefts)
			h.m.mu.Unlock()
			if holds != 0 || lefts != 0 {
				t.Fatalf("%d holds and %d lost gangs followed after the end", holds, lefts)
			}
			h.step()
			if got := h.taskState(r.jid, 0); got != store.TaskStarting {
				t.Fatalf("gang %s once its part on n1 ended, want starting on n3", got)
			}
			// The export gives the simulator how long they took (leftTook):
			// a checkpoint of attempt 1 that lands then, not at the loss.
			sc, body := exportScenario(t, h, "")
			took := int64(want.Sub(lostAt) / time.Second)
			i := slices.IndexFunc(sc.Jobs, func(j scenario.Job) bool { return j.Slots == 4 })
			if i < 0 || !slices.ContainsFunc(sc.Jobs[i].Checkpoints, func(cp scenario.Checkpoint) bool {
				return cp.Task == 0 && cp.Attempt == 1 && cp.After == took
			}) {
				t.Fatalf("export: no checkpoint of the gang's attempt 1 after %ds:\n%s", took, body)
			}
		})
	}
}
