package master

import (
	"slices"
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// Checkpoint times. The simulator holds a preempted, moved or resized
// task's slots until its checkpoint lands: for its attempt's own time
// when its job's checkpoints give one, else for its pool's
// checkpoint_cost. The live master holds them until the agent reports
// the checkpoint, however long that takes, and each task takes its own
// time. So the export gives each pool the longest time its attempts took
// and each attempt that took another time its own (the job's
// checkpoints): with one time per pool, the replay held every shorter
// checkpoint's slots too long, and what waited for them started late.

// checkpointTime is how long attempt a took, in whole seconds from the
// window's start, from its checkpoint request (preempted: a preemption,
// move or resize) to the landing of its checkpoint (its end), and false
// when no pass asked it or it ended otherwise. An attempt asked to
// checkpoint that was lost instead (its node lost, or held through the
// loss until the grace ran out, the landing never heard of) took longer
// than until its loss, a second more at least: so long, the replay's
// landing comes after its loss too, which ends it lost there as live.
// One still checkpointing when exported (at now: still open) took longer
// than until the export, a second more at least, by the same rule: the
// replay lands it after the export, so that what waits for its slots
// starts after the export as well, and not in the decisions that allot
// history check compares, those made before the live log was read.
//
// One killed while checkpointing (a user's kill of its job: killing,
// from its kill's request) took longer than until its kill, a second
// more at least, by the same rule again: its checkpoint never landed,
// and the replay's must not land before the kill, which would end the
// attempt preempted and free its slots early. The kill then leaves it
// killing (the lifecycle's Cluster.Kill, its slots held), and ends it
// killed when the live kill ended (slowKills), or at once.
func checkpointTime(a store.Attempt, preempted, killing map[attemptKey]time.Time, since, now time.Time) (int64, bool) {
	k := attemptKey{a.JobID, a.Index, a.Number}
	at, ok := preempted[k]
	killed, byKill := killing[k]
	byKill = byKill && a.EndState == store.AttemptKilled && !killed.Before(at)
	if !ok || !a.Open() && a.EndState != store.AttemptPreempted && a.EndState != store.AttemptLost && !byKill {
		return 0, false
	}
	sec := func(t time.Time) int64 { return int64(t.Sub(since) / time.Second) }
	switch {
	case a.Open():
		return sec(now) - sec(at) + 1, true
	case byKill:
		return sec(killed) - sec(at) + 1, true
	}
	d := sec(a.EndedAt) - sec(at)
	if a.EndState == store.AttemptLost {
		d++
	}
	return d, true
}

// checkpointCost is the checkpoint cost to export for a pool whose jobs'
// attempts are atts: the longest checkpointTime among them (the others
// get their own, jobCheckpoints).
func checkpointCost(atts []store.Attempt, preempted, killing map[attemptKey]time.Time, since, now time.Time) int64 {
	var cost int64
	for _, a := range atts {
		if d, ok := checkpointTime(a, preempted, killing, since, now); ok {
			cost = max(cost, d)
		}
	}
	return cost
}

// exportCheckpointCosts sets each pool's checkpoint cost from the
// attempts of its jobs submitted in [since, until), exported at now
// (checkpointCost), and gives each exported job the checkpoint times of
// its attempts that took another time (jobCheckpoints).
func exportCheckpointCosts(sc *scenario.Scenario, jobs []store.Job, byJob map[int64][]store.Attempt,
	h *historyEvents, since, until, now time.Time) {
	byName := map[string]*scenario.Job{}
	for i := range sc.Jobs {
		byName[sc.Jobs[i].Name] = &sc.Jobs[i]
	}
	for i := range sc.Pools {
		p := &sc.Pools[i]
		var atts []store.Attempt
		var in []store.Job
		for _, j := range jobs {
			if j.Pool == p.Name && !j.SubmittedAt.Before(since) && j.SubmittedAt.Before(until) {
				atts = append(atts, byJob[j.ID]...)
				in = append(in, j)
			}
		}
		p.CheckpointCost = checkpointCost(atts, h.preempted, h.killing, since, now)
		for _, j := range in {
			if sj := byName[exportName(j)]; sj != nil {
				h.jobCheckpoints(sj, byJob[j.ID], h.leftTook(j, byJob[j.ID], since), p.CheckpointCost, since, now)
			}
		}
	}
}

// jobCheckpoints sets sj's checkpoints: each attempt among atts (its
// job's) whose checkpoint took another time than its pool's cost, by
// its number as the simulator counts attempts. A move or resize
// continues its attempt there, so one of its attempts may have been
// asked to checkpoint more than once (the simulator counts the requests,
// scenario.Checkpoint's nth); where those times differ, the attempt
// gets the first's and each later one that differs from it its own,
// by its nth.
//
// The parts of a lost gang's attempt on nodes still up, asked to
// checkpoint at its loss (left: leftTook), are one more request of that
// attempt, as the simulator counts it (lifecycle's Tasks.Leave).
func (h *historyEvents) jobCheckpoints(sj *scenario.Job, atts []store.Attempt, left map[attemptKey]int64,
	cost int64, since, now time.Time) {
	type key struct{ task, attempt int }
	type took struct {
		nth int
		d   int64
	}
	var order []key
	times := map[key][]took{}
	asked := map[key]int{}
	note := func(k key, d int64) {
		if _, seen := times[k]; !seen {
			order = append(order, k)
		}
		times[k] = append(times[k], took{asked[k], d})
	}
	for _, a := range atts {
		ak := attemptKey{a.JobID, a.Index, a.Number}
		k := key{a.Index, h.simAttempt(atts, a)}
		if _, ok := h.preempted[ak]; ok {
			asked[k]++ // a request of the attempt, landed or not
			if d, ok := checkpointTime(a, h.preempted, h.killing, since, now); ok {
				note(k, d)
			}
		}
		if d, ok := left[ak]; ok {
			// Its parts on nodes still up, asked at its loss
			// (leftTook), after any request before.
			asked[k]++
			note(k, d)
		}
	}
	sj.Checkpoints = nil
	for _, k := range order {
		ts := times[k]
		first := ts[0].d
		if !slices.ContainsFunc(ts, func(t took) bool { return t.d != cost }) {
			continue
		}
		sj.Checkpoints = append(sj.Checkpoints, scenario.Checkpoint{StartLost: scenario.StartLost{Task: k.task, Attempt: k.attempt, After: first}})
		for _, t := range ts[1:] {
			if t.d != first {
				sj.Checkpoints = append(sj.Checkpoints, scenario.Checkpoint{StartLost: scenario.StartLost{Task: k.task, Attempt: k.attempt, After: t.d}, Nth: t.nth})
			}
		}
	}
}
