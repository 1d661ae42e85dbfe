package sim

import (
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/scenario"
)

// ReplayDecisions runs scenario sc to its end with its attempts recorded
// and returns the run's decisions (Decisions), a preemption dated by its
// request or its re-placement's, and by its end less its attempt's
// checkpoint time (its job's checkpoints, else its pool's checkpoint
// cost) only where the run recorded neither: what the
// live master decided, when sc is its what-if export (GET
// /history/scenario) and the simulator predicts it.
func ReplayDecisions(sc *scenario.Scenario) ([]decisionlog.Decision, error) {
	in, err := FromScenario(sc, nil)
	if err != nil {
		return nil, err
	}
	res, err := Run(in, Options{Until: -1, Attempts: true})
	if err != nil {
		return nil, err
	}
	pools := map[string]int64{}
	for _, p := range sc.Pools {
		pools[p.Name] = p.CheckpointCost
	}
	jobs := map[string]*scenario.Job{}
	for i := range sc.Jobs {
		jobs[sc.Jobs[i].Name] = &sc.Jobs[i]
	}
	return Decisions(res, func(job string, task, attempt int) int64 {
		j := jobs[job]
		for _, c := range j.Checkpoints {
			if c.Task == task && c.Attempt == attempt && c.Nth == 0 {
				return c.After
			}
		}
		return pools[j.Pool]
	}), nil
}

// Decisions are the run's scheduling decisions in the canonical log's
// terms (package decisionlog), read off the per-job results, which must
// have been recorded with Options.Attempts. A preemption is dated by its
// request, as recorded; one with no request of its own (a move whose
// re-placement never happened, the attempt preempted where it ran) by
// the re-placement's request, which took the checkpoint time the run
// gave it (its nth's, when it has one); where neither was recorded, by
// its end less cost, the checkpoint time of the job's task's attempt
// (nil: none).
// A job killed by an event gets a kill line at its end; one killed by a
// task's time limit does not (its attempt ends how=timelimit).
func Decisions(res *Result, cost func(job string, task, attempt int) int64) []decisionlog.Decision {
	var ds []decisionlog.Decision
	for i := range res.Jobs {
		j := &res.Jobs[i]
		timedOut := false
		attempts := map[int]int{}
		for _, a := range j.Attempts {
			attempts[a.Task]++
			n := attempts[a.Task]
			ds = append(ds, decisionlog.Decision{At: a.Start, Kind: decisionlog.Start, Job: j.Name, Task: a.Task,
				Attempt: n, Nodes: logNodes(a.Nodes)})
			slots := placedSlots(a.Nodes)
			moves := a.Moves
			if a.inFlight && a.End != nil {
				moves = moves[:len(moves)-1] // it never ran there
			}
			for _, mv := range moves {
				kind := decisionlog.Move
				if s := placedSlots(mv.Nodes); s != slots {
					kind, slots = decisionlog.Resize, s
				}
				ds = append(ds, decisionlog.Decision{At: mv.At, Kind: kind, Job: j.Name, Task: a.Task, Attempt: n,
					Nodes: logNodes(mv.Nodes)})
			}
			if a.End == nil {
				continue
			}
			end, timeLimit, _ := a.State.End()
			how := string(a.State)
			if a.asked && !a.requeued && end != lifecycle.AttemptPreempted {
				// Asked to checkpoint, it ended otherwise first.
				ds = append(ds, decisionlog.Decision{At: a.askedAt, Kind: decisionlog.Preempt, Job: j.Name,
					Task: a.Task, Attempt: n, Nodes: logNodes(lastNodes(a))})
			}
			switch end {
			case lifecycle.AttemptCompleted:
				how = decisionlog.Completed
			case lifecycle.AttemptPreempted:
				how = decisionlog.Preempted
				if a.byAgent || a.requeued {
					break // no pass asked for it: no request to log
				}
				// The request, when recorded: a preemption's, else
				// the last re-placement's; else its end less its
				// checkpoint time.
				at := a.askedAt
				switch {
				case a.asked:
				case a.replaced:
					at = a.replacedAt
				case cost != nil:
					at = *a.End - cost(j.Name, a.Task, n)
				default:
					at = *a.End
				}
				ds = append(ds, decisionlog.Decision{At: at, Kind: decisionlog.Preempt, Job: j.Name,
					Task: a.Task, Attempt: n, Nodes: logNodes(lastNodes(a))})
			case lifecycle.AttemptKilled:
				how = decisionlog.Killed
				if timeLimit {
					how, timedOut = decisionlog.TimeLimit, true
				}
			case lifecycle.AttemptFailed:
				how = decisionlog.Failed
			case lifecycle.AttemptLost:
				how = decisionlog.Lost
			}
			ds = append(ds, decisionlog.Decision{At: *a.End, Kind: decisionlog.End, Job: j.Name, Task: a.Task,
				Attempt: n, How: how})
		}
		if j.State == StateKilled && !timedOut && j.End != nil {
			ds = append(ds, decisionlog.Decision{At: *j.End, Kind: decisionlog.Kill, Job: j.Name})
		}
	}
	decisionlog.Sort(ds)
	return ds
}

// lastNodes is where attempt a ran last: where it started, or its last
// move or resize.
func lastNodes(a Attempt) []AttemptNode {
	if len(a.Moves) > 0 {
		return a.Moves[len(a.Moves)-1].Nodes
	}
	return a.Nodes
}

func logNodes(ns []AttemptNode) []decisionlog.Node {
	out := make([]decisionlog.Node, len(ns))
	for i, n := range ns {
		out[i] = decisionlog.Node{Name: n.Node, Slots: n.Slots}
	}
	return out
}

func placedSlots(ns []AttemptNode) int {
	s := 0
	for _, n := range ns {
		s += n.Slots
	}
	return s
}
