package lifecycle

import "github.com/allot-sched/allot/sched"

// Attempt is the scheduling facts of one attempt of a task, in seconds:
// the record both drivers keep of it and change by its transitions
// below, and from which Hold makes the snapshot's allocation. The
// Cluster's Task embeds it, and so does the master's open attempt
// (master/state.go, mattempt), which keeps beside it what only it needs
// (its parts and their GPUs, the wall-clock times of its store records,
// its usage and stop commands).
type Attempt struct {
	// Start is the attempt's first start: a move or resize continues
	// the attempt (Replace), which keeps it for its time limit, its
	// minimum run time and the core's victim order.
	Start int64
	// From is when the attempt last resumed: its start, or the landing
	// of its last move or resize (Resume); while it is re-placed, the
	// re-placement (Replace).
	From       int64
	Backfilled bool
	// Asked is when the attempt was asked to stop (a checkpoint request
	// of a preemption, a move or a resize; a kill),
	// and Grace how long it is given from then, as its driver promised
	// it (Ask): its slots are free by Asked+Grace at the latest
	// (Hold.FreeBy). 0 while nothing is promised: as good as free.
	Asked, Grace int64
}

// Launch makes a the attempt started at at, on a placement the core
// backfilled or not; nothing is asked of it yet.
func (a *Attempt) Launch(at int64, backfill bool) {
	*a = Attempt{Start: at, From: at, Backfilled: backfill}
}

// Continue makes a continue an attempt first started at first: a record
// of its own for what a re-placed attempt holds (the Cluster's draining
// record, the master's attempt on its reserved placement, which it makes
// when the checkpoint lands) keeps the first start.
func (a *Attempt) Continue(first int64) { a.Start = first }

// Ask notes that the attempt was asked at at to stop and lets go of its
// slots grace seconds later at the latest (0: not known).
func (a *Attempt) Ask(at, grace int64) { a.Asked, a.Grace = at, grace }

// Replace re-places the attempt at at (a move or resize): it keeps its
// first start, runs from at on (its last checkpoint is the
// re-placement's) and is no longer backfilled, since the core placed it
// anew (Hold.Replaced).
func (a *Attempt) Replace(at int64) { a.From, a.Backfilled = at, false }

// Resume restarts a re-placed attempt at at, when its checkpoint has
// landed: its work runs from then.
func (a *Attempt) Resume(at int64) { a.From = at }

// Hold is the attempt's hold on nodes as the snapshot sees it, the one
// way both drivers make it: preempting when it was asked to stop
// (preempting or killing), moving for the draining part of a re-placed
// attempt (Hold.Replaced).
func (a *Attempt) Hold(nodes []sched.NodeSlots, preempting, moving bool) Hold {
	return Hold{Attempt: *a, Nodes: nodes, Preempting: preempting, Moving: moving}
}
