package agentd

import (
	"slices"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// Deferred starts (trial 2026-11-29c C12). The master may send a start
// on GPUs that an attempt it has just told the agent to stop still
// holds: a restarted master that ends a gang's attempt whose start
// reached only some nodes kills the parts that run at once and, in the
// same reply, starts the new attempt on their GPUs. A process killed
// frees its GPU memory only as it exits (the driver tears its context
// down), so a new process started beside it may fail for want of
// memory. The agent therefore starts such an attempt once every attempt
// being stopped (preempted or killed) on its GPUs has exited, and
// reports it as usual then. A holder the master did not ask to stop is
// the master's call (the start is logged and goes ahead: warnSharedGPUs),
// and so is a start on other GPUs.
//
// The agent, not the master, waits: it alone sees when the process
// ends, which covers every way a start can meet a dying attempt (a lost
// gang's parts, a stray, a kill at once) without holding GPUs in the
// master's books for each. A stopped attempt always ends: the agent
// kills it at the end of its grace.

// deferState holds the starts waiting for GPUs, by attempt. Guarded by
// Agent.mu.
type deferState struct {
	starts map[agent.TaskID]api.Command
}

// deferrer is the agent seen as the keeper of deferred starts.
type deferrer struct{ *Agent }

// holdersLocked are the attempts being stopped, not yet exited, that hold
// a GPU of spec, and one such GPU; the caller holds mu.
func (d deferrer) holdersLocked(spec agent.TaskSpec) (holders []agent.TaskID, gpu int) {
	for id, att := range d.tasks {
		if att.exited || att.stopped == "" || id == spec.ID() {
			continue
		}
		for _, g := range spec.GPUs {
			if slices.Contains(att.spec.GPUs, g) {
				holders, gpu = append(holders, id), g
				break
			}
		}
	}
	return holders, gpu
}

// hold reports whether start c waits: it does while an attempt being
// stopped holds one of its GPUs (it is then kept, to go once they have
// exited: release), and a repeated start of a waiting attempt waits too.
func (d deferrer) hold(c api.Command) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := c.Start.ID()
	if _, waiting := d.defers.starts[id]; waiting {
		return true
	}
	holders, gpu := d.holdersLocked(*c.Start)
	if len(holders) == 0 {
		return false
	}
	if d.defers.starts == nil {
		d.defers.starts = map[agent.TaskID]api.Command{}
	}
	d.defers.starts[id] = c
	d.log.Info("start deferred: an attempt being stopped still holds its GPUs; it starts once that attempt has exited",
		"task", id.String(), "gpu", gpu, "holder", holders[0].String(), "holders", len(holders))
	return true
}

// drop forgets a waiting start of attempt id, which the master stopped
// before it could start, and reports whether there was one.
func (d deferrer) drop(id agent.TaskID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.defers.starts[id]
	delete(d.defers.starts, id)
	return ok
}

// release starts the waiting starts whose GPUs no attempt being stopped
// holds any more, as execute would have: called once an attempt exited.
func (d deferrer) release() {
	d.execMu.Lock()
	defer d.execMu.Unlock()
	d.mu.Lock()
	var ready []api.Command
	for id, c := range d.defers.starts {
		if hs, _ := d.holdersLocked(*c.Start); len(hs) == 0 {
			ready = append(ready, c)
			delete(d.defers.starts, id)
		}
	}
	closing, leaving := d.closing, d.leaving
	d.mu.Unlock()
	slices.SortFunc(ready, func(x, y api.Command) int { // in a stable order: by attempt
		if lessID(x.Task, y.Task) {
			return -1
		}
		return 1
	})
	for _, c := range ready {
		switch {
		case leaving:
			d.refuseStart(c)
		case closing:
			d.log.Debug("stopping; deferred start dropped", "task", c.Task.String())
		default:
			d.log.Info("deferred start goes ahead: the attempts on its GPUs have exited", "task", c.Task.String())
			d.start(c)
		}
	}
}
