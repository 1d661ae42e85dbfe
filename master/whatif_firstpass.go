package master

import (
	"time"

	"github.com/allot-sched/allot/store"
)

// Jobs that no pass saw in their second. A live master runs a pass after
// each event, reading its clock when the pass begins; the simulator
// gives an instant's submissions to its settling of that instant. A job
// submitted late in second s (19:54:46.993, trial 2026-11-29i I24) may
// get its first pass only in second s+1 (47.001): whatever that pass
// decides, its log line says s+1, while a replay that submits the job at
// s starts it at s, and every line that follows from the start (its
// time-limit end, the start it made room for) comes a second early.
//
// The export cannot see passes that decided nothing, only the decisions
// of the event log. Where the first decision after a submission came in
// the next second, and nothing else happened in the submission's second
// after it (only more submissions, and no node event), no pass that
// decided anything saw the job in its second, and the first that did
// decide came in s+1: the job is exported with first_pass s+1
// (scenario.Job.FirstPass). The replay gives it to its scheduler then,
// first in that instant, as the live pass had it in its snapshot with
// what came before it in s+1; its submit stays s, so its queue order and
// its age are the live snapshot's (the master's snapshot counts a job's
// submit in whole seconds too). Had a pass in s seen it and decided
// nothing, the replay's settling of s without it decides nothing that
// the live one would not: the only input that pass had beyond those of
// the passes before it was the job (and the other submissions likewise
// moved). Where anything else came between, the job stays at s, as before.

// pendingSub is a submission no decision has followed yet.
type pendingSub struct {
	job int64
	at  time.Time
	sec int64 // its second from the window's start
}

// firstPassScan finds the jobs exported with first_pass: see is called
// with each event of the log in order.
type firstPassScan struct {
	pending []pendingSub
	// subs are the submissions given first_pass, out the second of their
	// first pass, by job.
	subs []pendingSub
	out  map[int64]int64
}

// see takes event e, of second sec from the window's start; decision
// says it is a pass's decision (a start or a preemption), sub that it
// is a job's submission.
func (f *firstPassScan) see(e store.Event, sec int64, decision, sub bool) {
	f.pending = dropPending(f.pending, func(p pendingSub) bool { return sec > p.sec+1 })
	switch {
	case decision:
		for _, p := range f.pending {
			if sec == p.sec+1 {
				f.subs = append(f.subs, p)
				f.out[p.job] = sec
			}
		}
		f.pending = f.pending[:0]
	case sub:
		f.pending = append(f.pending, pendingSub{e.JobID, e.At, sec})
	default:
		// Anything else in the submission's second brought about a pass
		// that may have seen the job; in the next second, it comes with
		// the job in the replay's settling as in the live pass.
		f.pending = dropPending(f.pending, func(p pendingSub) bool { return p.sec == sec })
	}
}

func dropPending(ps []pendingSub, drop func(pendingSub) bool) []pendingSub {
	out := ps[:0]
	for _, p := range ps {
		if !drop(p) {
			out = append(out, p)
		}
	}
	return out
}

// firstPasses is the scan's result, by job: the second of each job's
// first pass, but for jobs a node event (at times nodeAt) followed in
// their second, whose pass may have seen them.
func (f *firstPassScan) firstPasses(nodeAt []time.Time, since time.Time) map[int64]int64 {
	for _, p := range f.subs {
		end := since.Add(time.Duration(p.sec+1) * time.Second)
		for _, at := range nodeAt {
			if at.After(p.at) && at.Before(end) {
				delete(f.out, p.job)
				break
			}
		}
	}
	return f.out
}

// arrival is when the replay submits job id, submitted live at at: the
// start of the second of its first pass (first_pass), else at.
func (h *historyEvents) arrival(id int64, at, since time.Time) time.Time {
	if s, ok := h.firstPass[id]; ok {
		return since.Add(time.Duration(s) * time.Second)
	}
	return at
}
