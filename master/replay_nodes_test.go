package master

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// The replay driver's nodes: losses and returns, drains and resumes, and
// restarts of the master, as the case scripts them.

// up lists the agents whose nodes are not lost, nor silenced by a kill
// (rjob.killSilent): the others do not sync.
func (d *replayDriver) up() []*mastertest.Agent {
	var out []*mastertest.Agent
	for i, ag := range d.agents {
		if !d.down[i] && d.quietUntil[i] <= d.now()+1e-9 {
			out = append(out, ag)
		}
	}
	return out
}

// nextDown is the time of the next node loss or return, drain or
// resume due, +Inf for none.
func (d *replayDriver) nextDown() float64 {
	next := math.Inf(1)
	for k, dn := range d.c.downs {
		switch {
		case d.downs[k] == 0:
			next = min(next, dn.at)
		case d.downs[k] == 1 && dn.back > 0:
			next = min(next, dn.back)
		}
		if d.downs[k] == 1 && d.grace > 0 && !d.graced[k] {
			next = min(next, d.graceEnd(k))
		}
	}
	for k, dn := range d.c.drains {
		switch {
		case d.drains[k] == 0:
			next = min(next, dn.at)
		case d.drains[k] == 1 && dn.back > 0:
			next = min(next, dn.back)
		}
	}
	if d.deleted < len(d.c.deletes) {
		next = min(next, d.c.deletes[d.deleted].at)
	}
	for k, dn := range d.c.deletes[:d.deleted] {
		if dn.back > 0 && !d.reborn[k] {
			next = min(next, dn.back)
		}
	}
	if d.reshaped < len(d.c.reshapes) {
		next = min(next, d.c.reshapes[d.reshaped].at)
	}
	if d.reloaded < len(d.c.reloads) {
		next = min(next, d.c.reloads[d.reloaded].at)
	}
	return next
}

// drainNodes drains the nodes whose drain is due and resumes those whose
// resume is, as an admin does through the API, settling after each when
// the case is eager. There each comes a millisecond after what came
// before it, as an admin's request comes after the pass before it on a
// live clock: the export orders a second's node events and passes by
// their times (afterPassAt). It takes the drains whose early is early.
func (d *replayDriver) drainNodes(t *testing.T, now float64, early bool) {
	for k, dn := range d.c.drains {
		if dn.early != early {
			continue
		}
		due := d.drains[k] == 0 && dn.at <= now+1e-9 && !dn.mid || d.drains[k] == 1 && dn.back > 0 && dn.back <= now+1e-9
		if due && d.c.eager {
			d.h.clock.Advance(time.Millisecond)
		}
		switch {
		case d.drains[k] == 0 && dn.at <= now+1e-9 && dn.mid:
			continue // armMid
		case d.drains[k] == 0 && dn.at <= now+1e-9:
			d.drains[k] = 1
			if code := d.h.do("POST", "/api/v1/nodes/"+dn.node+"/drain", api.NodeDrainRequest{Reason: "replay"}, nil); code/100 != 2 {
				t.Fatalf("drain %s: %d", dn.node, code)
			}
		case d.drains[k] == 1 && dn.back > 0 && dn.back <= now+1e-9:
			d.drains[k] = 2
			if code := d.h.do("POST", "/api/v1/nodes/"+dn.node+"/resume", nil, nil); code/100 != 2 {
				t.Fatalf("resume %s: %d", dn.node, code)
			}
		default:
			continue
		}
		if d.c.eager {
			d.settle(t)
		}
	}
}

// graceEnd is when the grace of the case's loss k ends: from when the
// master lost the node, a millisecond or so into its second when the
// case is eager (nodes).
func (d *replayDriver) graceEnd(k int) float64 { return d.lostAt[k] + d.grace.Seconds() }

// nodes loses the nodes whose loss is due and brings back those whose
// return is, as the master does once an agent has been silent for its
// timeout and when it registers again, then ends the grace of the losses
// whose grace is over (checkLostNodes, as the master's tick does). With
// lost_node_grace 0 the attempts end at once, and a lost agent forgets
// what it ran, as a node that died; its attempts' work is lost, as the
// simulator's node_down loses it. With a grace, the agent is cut off
// (it does not sync) and keeps running the attempts the master holds:
// back within the grace, they go on; past it, the master ends them and
// the node is a node that died. It takes the losses and returns whose
// early is early, settling after each when the case is eager, as the
// live loop runs a pass after each (the losses of a case that did not
// settle there were all after the instant's submissions), and ends
// graces after the others only.
func (d *replayDriver) nodes(t *testing.T, now float64, early bool) {
	for k, dn := range d.c.downs {
		if dn.early != early {
			continue
		}
		i := slices.IndexFunc(d.agents, func(ag *mastertest.Agent) bool { return ag.Name == dn.node })
		ag := d.agents[i]
		due := d.downs[k] == 0 && dn.at <= now+1e-9 || d.downs[k] == 1 && dn.back > 0 && dn.back <= now+1e-9
		if due && d.c.eager {
			d.h.clock.Advance(time.Millisecond) // as for a drain (drainNodes)
		}
		switch {
		case d.downs[k] == 0 && dn.at <= now+1e-9:
			d.downs[k], d.down[i], d.lostAt[k] = 1, true, d.now()
			ran := ag.Running()
			if d.grace <= 0 {
				for _, id := range ag.Running() {
					if a := d.att[id]; a != nil {
						a.exited = true
					}
				}
				ag.Restart()
			}
			d.master(t, func() error { return d.h.m.agents.loseNode(d.h.ctx, d.h.m.nodes[dn.node], "node "+dn.node+" lost") })
			d.ended(ag)
			d.checkpointing(ran)
		case d.downs[k] == 1 && dn.back > 0 && dn.back <= now+1e-9:
			d.downs[k], d.down[i] = 2, false
			ag.Master = d.h.srv.URL // the master may have restarted since
			if dn.takeover {
				d.takeOver(ag)
			}
			if _, err := ag.Register(d.h.ctx); err != nil {
				t.Fatal(err)
			}
		default:
			continue
		}
		if d.c.eager {
			d.settle(t)
		}
	}
	for k, dn := range d.c.downs {
		if early || d.downs[k] != 1 || d.grace <= 0 || d.graced[k] || d.graceEnd(k) > now+1e-9 {
			continue
		}
		d.graced[k] = true
		d.master(t, func() error { d.h.m.agents.checkLostNodes(d.h.ctx); return nil })
		ag := d.agents[slices.IndexFunc(d.agents, func(ag *mastertest.Agent) bool { return ag.Name == dn.node })]
		if d.ended(ag) {
			ag.Restart() // the node died: back, it runs nothing
		}
	}
}

// restart restarts the master when a restart of the case is due, as
// after a crash between two instants: a new master reads its state back
// from the store, and the agents that are up register with it again.
func (d *replayDriver) restart(t *testing.T) {
	due := false
	for d.restarted < len(d.c.restarts) && d.c.restarts[d.restarted] <= d.now()+1e-9 {
		d.restarted++
		due = true
	}
	if due {
		d.restartNow(t)
	}
}

// restartNow restarts the master on its store, and the agents that are
// up register again (reregister).
func (d *replayDriver) restartNow(t *testing.T) {
	d.h.start()
	d.reregister(t)
}

// reregister has the agents that are up register with a restarted
// master: a leaving one still leaving (Rejoin), as agentd's does, but
// for those whose case silences them (silenceLeaving).
func (d *replayDriver) reregister(t *testing.T) {
	d.silenceLeaving()
	for _, ag := range d.up() {
		ag.Master = d.h.srv.URL
		register := ag.Register
		if d.leaving(ag.Name) {
			register = ag.Rejoin
		}
		if _, err := register(d.h.ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// master runs f on the master, under its lock, in one batch.
func (d *replayDriver) master(t *testing.T, f func() error) {
	d.h.m.lock()
	err := d.h.m.batches.inBatch(d.h.ctx, f)
	d.h.m.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
}

// checkpointing takes back as running, of the attempts ran that a lost
// node ran, those whose parts on nodes still up the master asked to
// checkpoint (a gang that waits to resume, agents.stopLeft): their
// request saves their work, as lifecycle.Tasks.Lose keeps it, which
// track counts once they have ended.
func (d *replayDriver) checkpointing(ran []agent.TaskID) {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	for key := range d.h.m.agents.strays.holds {
		if a := d.att[key.id]; a != nil && slices.Contains(ran, key.id) {
			a.exited = false
		}
	}
}

// ended notes as exited the attempts the agent runs that the master has
// ended, and reports whether it ended them all.
func (d *replayDriver) ended(ag *mastertest.Agent) bool {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	all := true
	for _, id := range ag.Running() {
		if d.h.m.agents.lookup(id).runsOn(ag.Name) {
			all = false
		} else if a := d.att[id]; a != nil {
			a.exited = true
		}
	}
	return all
}
