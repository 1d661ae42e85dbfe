package master

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// What the API says of a live job whose tasks are held on a node that is
// no longer up (nodeloss.go): its state stays running, as the master
// cannot know whether the task still runs, so its reason and its held
// tasks' reasons say which node is gone since when, and what happens at
// the end of lost_node_grace unless the node returns, by the rule the
// master ends the attempt by (lostEnd: exit actions and requeues
// included). They are read from
// the published view's nodes at the request (the job's record is not
// changed), so a node's loss and return, which republish the node,
// change what its jobs say at once.

// goneNode is a node of the view that holds tasks of a job and is not up.
type goneNode struct {
	name  string
	state store.NodeState // lost, or left (its agent said goodbye)
	since time.Time       // zero: lost before this master process started
}

// goneNodes lists the nodes of v, among names, that are not up, in name
// order.
func (v *readView) goneNodes(names []string) []goneNode {
	var out []goneNode
	for _, name := range names {
		if n := v.node(name); n != nil && !n.up {
			out = append(out, goneNode{name: name, state: n.state, since: n.lostAt})
		}
	}
	return out
}

// lostFate says what the end of its attempt does to a task of job j on
// a lost node (part: one of its parts not yet exited) under cfg: what
// lostEnd, which the master ends the attempt by, decides: "is requeued",
// "fails", "fails (on_preempt: fail)", "is killed".
func lostFate(cfg *config.Config, j *jobRead, part taskPart) string {
	ea := exitActionsIn(cfg, j.rec.Pool, j.ownOnPreempt, j.ownMaxRetries)
	switch to, byExit := lostEnd(j.rec.Preemptible, part.ran, part.killing, ea, part.retries); {
	case byExit:
		return "fails (" + ea.failNote(part.retries) + ")"
	case to == store.TaskQueued:
		return "is requeued"
	case to == store.TaskKilled:
		return "is killed"
	}
	return "fails"
}

// heldNote says what becomes of a task (part: one of its parts not yet
// exited) of job j on node g, gone, under cfg: what lostFate says, at
// the end of lost_node_grace when the task holds through the loss
// (lifecycle.HoldsThroughLoss, as the master's check of lost nodes
// decides), else at the master's next check, unless the node returns
// first.
func heldNote(g goneNode, cfg *config.Config, j *jobRead, part taskPart) string {
	what, grace := lostFate(cfg, j, part), cfg.LostNodeGrace
	if !lifecycle.HoldsThroughLoss(grace, j.rec.Preemptible, part.killing, part.ran) {
		if g.since.IsZero() {
			return fmt.Sprintf("node %s %s (since before the master started): the task %s at the master's first check unless the node returns first (lost_node_grace %s)",
				g.name, g.state, what, configSpan(grace))
		}
		return fmt.Sprintf("node %s %s since %s: the task %s at the master's next check unless the node returns first (lost_node_grace %s)",
			g.name, g.state, msgTime(g.since), what, configSpan(grace))
	}
	if g.since.IsZero() {
		return fmt.Sprintf("node %s %s (since before the master started): the task %s %s after the master's first check unless the node returns (lost_node_grace %s)",
			g.name, g.state, what, configSpan(grace), configSpan(grace))
	}
	return fmt.Sprintf("node %s %s since %s: the task %s at %s unless the node returns (lost_node_grace %s)",
		g.name, g.state, msgTime(g.since), what, msgTime(g.since.Add(grace)), configSpan(grace))
}

// lostJobReason is the reason of a live job j with tasks held on nodes
// gone (gone, not empty): the first of them, by name, with the fate of
// the first of its tasks there, and how many others.
func lostJobReason(gone []goneNode, cfg *config.Config, j *jobRead) string {
	s := heldNote(gone[0], cfg, j, j.firstOpen(gone[0].name))
	if len(gone) > 1 {
		s += fmt.Sprintf("; %d more nodes of its tasks are gone too", len(gone)-1)
	}
	return s
}

// firstOpen is j's part not yet exited on node with the lowest task
// index.
func (j *jobRead) firstOpen(node string) taskPart {
	var first taskPart
	found := false
	for _, p := range j.open {
		if p.node == node && (!found || p.task < first.task) {
			first, found = p, true
		}
	}
	return first
}

// openNodes are the nodes where j has parts not yet exited (of task,
// or of any task when task < 0), in name order. A part that exited on a
// node now gone is not held there: the note would only alarm.
func (j *jobRead) openNodes(task int) []string {
	var out []string
	for _, p := range j.open {
		if (task < 0 || p.task == task) && !slices.Contains(out, p.node) {
			out = append(out, p.node)
		}
	}
	slices.Sort(out)
	return out
}

// openPart is j's part of task not yet exited on node.
func (j *jobRead) openPart(task int, node string) taskPart {
	for _, p := range j.open {
		if p.task == task && p.node == node {
			return p
		}
	}
	return taskPart{task: task, node: node}
}

// lostReasonOf is the reason of live job id of v with tasks held on nodes
// gone, "" when it has none.
func lostReasonOf(v *readView, id int64) string {
	j := v.job(id)
	if j == nil {
		return ""
	}
	gone := v.goneNodes(j.openNodes(-1))
	if len(gone) == 0 {
		return ""
	}
	return lostJobReason(gone, v.cfg, j)
}

// noteLostTasks sets the reason of each task of a live job (view) whose
// open attempt has a part not yet exited on a node of v that is not up.
func noteLostTasks(v *readView, view *api.Job) {
	j := v.job(view.ID)
	if j == nil || len(v.goneNodes(j.openNodes(-1))) == 0 {
		return
	}
	openTasks(view, func(tk *api.Task, _ api.Attempt) {
		if gone := v.goneNodes(j.openNodes(tk.Index)); len(gone) > 0 {
			tk.Reason = heldNote(gone[0], v.cfg, j, j.openPart(tk.Index, gone[0].name))
		}
	})
}

// msgTime writes an instant in a message as `allot` tables show times
// ("2026-11-27 16:05:34"), in UTC and saying so, not in RFC 3339 beside
// tables that print the other form.
func msgTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// configSpan writes a configured span as a configuration file does
// ("5m", "1h30m", "45s"), not as Go's Duration.String ("5m0s").
func configSpan(d time.Duration) string { return spec.Span(d) }
