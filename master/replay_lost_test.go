package master

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// Attempts lost while their node stays up (issue 13, found by a new-user
// trial: kill -9 of allot dev, and the master restarted found the agent
// no longer ran an attempt). The fake agent forgets the attempt and
// registers again without it; its first sync then ends it lost
// (agents.settleMissing: "node N does not run attempt A"), requeued when
// its job is preemptible (keeping what its periodic checkpoints saved),
// failed otherwise, by a lost node's rule. The export writes it as the
// job's lost (whatif_work.go, lostOnUpNode) and the simulator as
// lifecycle.EventAttemptLost.

// lostAttemptJobs: p (preemptible, checkpointing every 40s) loses its
// first attempt 100s in and resumes from 80s of work; n (not
// preemptible) loses its first attempt 50s in and fails; w waits for n's
// slots and starts when they are free; the trial e1 loses its second
// attempt, after a preemption by h.
var lostAttemptJobs = []rjob{
	{name: "p", slots: 2, submit: 0, run: 300, every: 40, extra: preemptible, lost: 100},
	{name: "n", slots: 2, submit: 0, run: 300, lost: 50},
	{name: "w", slots: 3, submit: 10, run: 100},
	{name: "e1", slots: 1, tasks: 2, submit: 20, run: 200, extra: lowPrio, lost: 30, lostTask: 1, lostAttempt: 2},
	{name: "h", slots: 7, submit: 200, run: 50, extra: `, "priority": 10`},
}

// lostAtStartJobs lose attempts in the second they started (the
// export's after: 0): p (preemptible) half a second in, waiting again
// and restarting in that second; n (not preemptible) failing, w starting
// in its slot in that second; the trial e1, started when a ends at 100,
// and x, started at 150.2 and lost at 150.8.
var lostAtStartJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 100},
	{name: "p", slots: 2, submit: 0, run: 300, extra: preemptible, lost: 0.5},
	{name: "n", slots: 1, submit: 0, run: 300, lost: 0.3},
	{name: "w", slots: 1, submit: 0, run: 400},
	{name: "e1", slots: 1, tasks: 2, submit: 50, run: 200, extra: lowPrio, lost: 0.5, lostTask: 1},
	{name: "x", slots: 2, submit: 150.2, run: 100, extra: preemptible, lost: 0.6},
	{name: "h", slots: 3, submit: 200, run: 50, extra: `, "priority": 10`},
}

func lostAttemptCases() []replayCase {
	return []replayCase{
		{name: "fifo-attempt-lost", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: lostAttemptJobs},
		{name: "priority-attempt-lost", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: lostAttemptJobs},
		{name: "fifo-attempt-lost-at-start", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			jobs: lostAtStartJobs},
		{name: "priority-attempt-lost-at-start", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: lostAtStartJobs},
	}
}

// loseAttempts has the agents that run the attempts lost forget them and
// register again without them, in the agents' order; the attempts keep
// the work of their periodic checkpoints, as a lost node's do in the
// simulator (lifecycle.Tasks.Lose).
func (d *replayDriver) loseAttempts(t *testing.T, ids []agent.TaskID) {
	if len(ids) == 0 {
		return
	}
	now := d.now()
	for _, ag := range d.agents {
		forgot := false
		for _, id := range ids {
			forgot = ag.Forget(id) || forgot
		}
		if forgot {
			if _, err := ag.Register(d.h.ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, id := range ids {
		a := d.att[id]
		jid, _ := strconv.ParseInt(id.JobID, 10, 64)
		if every := d.c.jobs[d.byID[jid]].every; every > 0 {
			d.done[taskKey{jid, id.TaskIndex}] += math.Floor((now-a.start)/every) * every * a.rate
		}
		a.exited = true
	}
}

// TestReplayAttemptLost: the cases replay byte for byte, batched and
// live; without the export's lost the replay runs the lost attempts on,
// and the decisions differ.
func TestReplayAttemptLost(t *testing.T) {
	checkBatchedAndLive(t, lostAttemptCases())
	// p's and n's; e1's second attempt comes under priority only.
	checkUnexported(t, lostAttemptCases(), "lost", 2, func(j *scenario.Job) int {
		n := len(j.Lost)
		j.Lost = nil
		return n
	})
}

// checkUnexported replays each case's export with a job script taken out
// (strip removes it from a job and counts the entries it removed): the
// export must have written at least least entries, and the replay without
// them must disagree with the live log, or the cases do not test them.
func checkUnexported(t *testing.T, cases []replayCase, script string, least int, strip func(*scenario.Job) int) {
	t.Helper()
	checkStripped(t, cases, "-unexported", script, least, func(sc *scenario.Scenario) int {
		n := 0
		for i := range sc.Jobs {
			n += strip(&sc.Jobs[i])
		}
		return n
	})
}

// checkStripped runs each case live, exports it, takes what out of the
// export with strip (which says how many entries it took, least at
// least) and checks that the replay then differs from the live run: the
// cases test what the export writes. Its subtests are the cases' names
// with suffix.
func checkStripped(t *testing.T, cases []replayCase, suffix, what string, least int, strip func(*scenario.Scenario) int) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name+suffix, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, c.config)))
			t0 := h.clock.Now()
			newReplayDriver(h, c).run(t)
			until := h.clock.Now().Add(time.Second)
			live, err := h.m.history.decisions(h.ctx, t0, until)
			if err != nil {
				t.Fatal(err)
			}
			sc, body := exportScenario(t, h, window(t0, until))
			if n := strip(sc); n < least {
				t.Fatalf("exported %d %s entries, want %d or more:\n%s", n, what, least, body)
			}
			replayed, err := sim.ReplayDecisions(sc)
			if err != nil {
				t.Fatal(err)
			}
			if decisionlog.Diff(decisionlog.Format(live), decisionlog.Format(replayed), 3) == "" {
				t.Errorf("the replay without %s agrees: the cases do not test it", what)
			}
		})
	}
}
