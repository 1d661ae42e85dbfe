package master

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// What the API says of a multi-node attempt some parts of which
// completed while others run. The attempt ends when every part has
// exited (partExited), holding all its GPUs until then, as Slurm keeps a
// job's allocation until its last step ends; the task's stored reason is
// still its transition's ("every part runs"), which is no longer true.
// GET /jobs/{id} says instead which parts completed and which it waits
// for, read from the published view at the request (trial o F18).

// Reasons of a task's move from starting to running (agents.maybeRunning,
// partsRunReason): a gang's says that every part runs; a one-node
// attempt has no parts to speak of, and "part" is gang words a user of
// one node would wonder at (trial 2026-11-29d D3).
const (
	reasonEveryPartRuns = "every part runs"
	reasonRunning       = "running"
)

// partsRunReason is the reason of the move to running of an attempt of
// parts parts.
func partsRunReason(parts int) string {
	if parts > 1 {
		return reasonEveryPartRuns
	}
	return reasonRunning
}

// donePart is a part of an open attempt that completed (exit 0) while
// others of its attempt have not exited.
type donePart struct {
	task, attempt int
	node          string
	at            time.Time // its exit, by its agent's report
}

// captureDone lists the parts of t's open attempt that completed while
// another part has not exited, for a task running or starting (one
// being stopped says why it stops instead).
func captureDone(t *mtask) []donePart {
	if t.att == nil || (t.rec.State != store.TaskRunning && t.rec.State != store.TaskStarting) {
		return nil
	}
	var done []donePart
	open := false
	for _, p := range t.att.parts {
		switch {
		case p.state != partExited:
			open = true
		case p.outcome == agent.OutcomeCompleted:
			done = append(done, donePart{task: t.rec.Index, attempt: t.att.number, node: p.node, at: p.exitedAt})
		}
	}
	if !open {
		return nil
	}
	return done
}

// waitingReason is the reason of a task whose open attempt's parts done
// completed while those on open still run: "the part on r2 completed
// (exit 0) at ...; waiting for the part on r1 (the attempt holds its
// GPUs until every part has exited)".
func waitingReason(done []donePart, open []string) string {
	nodes := make([]string, len(done))
	last := done[0].at
	for i, d := range done {
		nodes[i] = d.node
		if d.at.After(last) {
			last = d.at
		}
	}
	slices.Sort(nodes)
	slices.Sort(open)
	what := "the part on " + nodes[0] + " completed (exit 0) at " + msgTime(last)
	if len(nodes) > 1 {
		what = "the parts on " + strings.Join(nodes, ", ") + " completed (exit 0), the last at " + msgTime(last)
	}
	wait := "the part on " + strings.Join(open, ", ")
	if len(open) > 1 {
		wait = "the parts on " + strings.Join(open, ", ")
	}
	return fmt.Sprintf("%s; waiting for %s (the attempt holds its GPUs until every part has exited)", what, wait)
}

// noteDoneParts sets the reason of each task of a live job (view) whose
// open attempt has parts that completed while others run.
func noteDoneParts(v *readView, view *api.Job) {
	j := v.job(view.ID)
	if j == nil || len(j.done) == 0 {
		return
	}
	openTasks(view, func(tk *api.Task, a api.Attempt) {
		var done []donePart
		for _, d := range j.done {
			if d.task == tk.Index && d.attempt == a.Number {
				done = append(done, d)
			}
		}
		if open := j.openNodes(tk.Index); len(done) > 0 && len(open) > 0 {
			tk.Reason = waitingReason(done, open)
		}
	})
}

// openTasks calls fn for each task of view whose last attempt is open.
func openTasks(view *api.Job, fn func(tk *api.Task, a api.Attempt)) {
	for i := range view.TaskList {
		tk := &view.TaskList[i]
		if len(tk.Attempts) == 0 {
			continue
		}
		if a := tk.Attempts[len(tk.Attempts)-1]; a.EndedAt == nil && a.EndState == "" {
			fn(tk, a)
		}
	}
}
