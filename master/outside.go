package master

// GPUs held outside the snapshot. The core sees only the snapshot's
// allocations, so a GPU that something holds without one is free to it,
// and it plans other jobs onto it, which the applier's re-check refuses
// (apply.go), pass after pass, while a job that fits in the rest waits
// behind them for ever. Two kinds of attempt hold GPUs so:
//
//   - An attempt of a job left out of the snapshot. A job whose entry
//     cannot be made (its project or pool is not configured, its QOS or
//     a license is unknown, the core refused it: snapJob) is left out
//     with that reason, but a job that ran when it was left out (a
//     master started without its project, a reload since) still runs,
//     and its attempts hold their GPUs (n.used) for as long as the
//     agents run them, which no pass of the core decides.
//   - A stray (stray.go): an attempt the master ended that an agent
//     still runs while it checkpoints. No task of the master's holds
//     its GPUs (n.used does not name them), but nothing may start there
//     until it has ended.
//
// Both are one count per node, taken after the roster's sync (which
// says which jobs are left out): the node's GPUs held outside the
// snapshot, which its facts carry as lifecycle.NodeFacts.Outside, and
// one rule (lifecycle.NodeSlots) takes them off the node's own slots.
// What the node's allocations hold (NodeFacts.Held) leaves the left-out
// jobs' GPUs out, so a node that is full stays full and is never
// over-committed. It costs a walk of a node's GPUs in use only while a
// left-out job holds GPUs, and of its GPUs only while a stray holds
// some there.

// heldOutside is what holds GPUs outside one snapshot.
type heldOutside struct {
	// jobs are the jobs left out of the snapshot, when one of them holds
	// GPUs; nil otherwise.
	jobs map[*mjob]struct{}
	// strays are the GPU indexes strays hold, by node; nil for none.
	strays map[string]map[int]bool
}

// heldOutside gathers what holds GPUs outside the snapshot being built:
// the roster's jobs left out, as its sync left them, and the strays.
// Callers hold mu, after syncRoster.
func (pl *planner) heldOutside() heldOutside {
	return heldOutside{jobs: pl.roster.holdingOutside(), strays: pl.m.agents.strays.strayHeldByNode()}
}

// on counts node n's GPUs held outside the snapshot: all of them
// (held), and those of them that tasks of the master's hold (tasks:
// n.used names them, so what the node's allocations hold is len(n.used)
// less tasks). A stray's GPU counts when the node has it and no task
// holds it (a task that holds it counts already).
func (o *heldOutside) on(n *mnode) (held, tasks int) {
	if o.jobs != nil {
		for _, t := range n.used {
			if _, ok := o.jobs[t.job]; ok {
				tasks++
			}
		}
	}
	held = tasks
	if s := o.strays[n.rec.Name]; s != nil {
		for _, g := range n.rec.GPUs {
			if s[g.Index] && n.used[g.Index] == nil {
				held++
			}
		}
	}
	return held, tasks
}

// noteOutside notes whether job j's last entry was made (in) or it was
// left out of the snapshot.
func (r *jobRoster) noteOutside(j *mjob, in bool) {
	if in {
		delete(r.outside, j)
		return
	}
	if r.outside == nil {
		r.outside = map[*mjob]struct{}{}
	}
	r.outside[j] = struct{}{}
}

// holdingOutside is the jobs left out of the snapshot when one of them
// holds GPUs, nil when none does; it drops those that left the mirror or
// came back onto the roster. Call it after syncRoster.
func (r *jobRoster) holdingOutside() map[*mjob]struct{} {
	holding := false
	for j := range r.outside {
		if j.gone || j.rostered {
			delete(r.outside, j)
			continue
		}
		holding = holding || j.active() > 0
	}
	if !holding {
		return nil
	}
	return r.outside
}
