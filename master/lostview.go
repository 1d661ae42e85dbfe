package master

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// What the API says of a live job whose tasks are held on a node that is
// no longer up (nodeloss.go): its state stays running, as the master
// cannot know whether the task still runs, so its reason and its held
// tasks' reasons say which node is gone since when, and what happens at
// the end of lost_node_grace unless the node returns. They are read from
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

// heldNote says what becomes of a task held on node g of a job that is
// preemptible or not, lost_node_grace being grace: a held task has run,
// so it fails, or waits again where the lifecycle's rule says so
// (lifecycle.LostRequeues), once the node has been gone for the grace.
func heldNote(g goneNode, preemptible bool, grace time.Duration) string {
	what := "fails"
	if lifecycle.LostRequeues(preemptible, true) {
		what = "is requeued"
	}
	if g.since.IsZero() {
		return fmt.Sprintf("node %s %s (since before the master started): the task %s %s after the master's first check unless the node returns (lost_node_grace %s)",
			g.name, g.state, what, grace, grace)
	}
	return fmt.Sprintf("node %s %s since %s: the task %s at %s unless the node returns (lost_node_grace %s)",
		g.name, g.state, g.since.UTC().Format(time.RFC3339), what, g.since.Add(grace).UTC().Format(time.RFC3339), grace)
}

// lostJobReason is the reason of a live job with tasks held on nodes gone
// (gone, not empty): the first of them, by name, and how many others.
func lostJobReason(gone []goneNode, preemptible bool, grace time.Duration) string {
	s := heldNote(gone[0], preemptible, grace)
	if len(gone) > 1 {
		s += fmt.Sprintf("; %d more nodes of its tasks are gone too", len(gone)-1)
	}
	return s
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
	return lostJobReason(gone, j.rec.Preemptible, v.cfg.LostNodeGrace)
}

// noteLostTasks sets the reason of each task of a live job (view) whose
// open attempt has a part not yet exited on a node of v that is not up.
func noteLostTasks(v *readView, view *api.Job) {
	j := v.job(view.ID)
	if j == nil || len(v.goneNodes(j.openNodes(-1))) == 0 {
		return
	}
	for i := range view.TaskList {
		tk := &view.TaskList[i]
		if len(tk.Attempts) == 0 {
			continue
		}
		a := tk.Attempts[len(tk.Attempts)-1]
		if a.EndedAt != nil || a.EndState != "" {
			continue
		}
		if gone := v.goneNodes(j.openNodes(tk.Index)); len(gone) > 0 {
			tk.Reason = heldNote(gone[0], j.rec.Preemptible, v.cfg.LostNodeGrace)
		}
	}
}
