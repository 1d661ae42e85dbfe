package master

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/scenario"
)

// Master outages longer than the agents' fence (a new-user trial: a 26 s
// kill -9; docs/reliability.md, "Fencing"). The master dies; each agent,
// hearing nothing, stops the attempts the master would requeue at the
// node's loss (preemptible ones) once the fence's wait has passed, and
// those it would hold through the loss once agent_timeout,
// lost_node_grace and the margin have; it reports them preempted when it
// reaches the restarted master, which requeues them from their
// checkpoints as after a preemption no pass asked for. The export writes
// such an attempt as its job's agent_preempted (whatif_leave.go), as an
// agent's leave, and the simulator ends it so
// (lifecycle.EventAgentPreempted). Before, an attempt a move or resize
// had continued (elastic jobs grown or shrunk before the outage) was
// written from the continuation's own start, and the simulator dropped
// its stop as stale at the re-placement: the replay ran it on, and
// allot history check reported the stop and the restart as differences.

// fenceWait is how long after the master's last word the fence stops an
// attempt the master would requeue, with the defaults (agent_timeout
// 30s, a 10 s sync wait, a 30 s grace): 21 s, the checkpoint landing at
// once.
const fenceWait = 21

// fenceJobs: a (not preemptible) holds n1; p (preemptible, checkpointing
// every 40s) n2; q (preemptible) n3; w waits for 2 slots from 50. The
// master is down from 100 to 130: the fence stops p and q at 121, and
// the restarted master requeues them; w, waiting longer, takes n2 first.
var fenceJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 400},
	{name: "p", slots: 2, submit: 0, run: 300, every: 40, extra: preemptible},
	{name: "q", slots: 1, submit: 0, run: 300, extra: preemptible},
	{name: "w", slots: 2, submit: 50, run: 100},
}

var fenceOutage = []rdown{{at: 100, back: 130}}

func fenceCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	priority := "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	return []replayCase{
		{name: "fifo-fence", config: fifo, nodes: replayNodes, jobs: fenceJobs, outages: fenceOutage},
		{name: "priority-fence", config: priority, nodes: replayNodes, jobs: fenceJobs, outages: fenceOutage},
		// lost_node_grace 10s and 50 s down: the fence stops a, not
		// preemptible, too, at 143 (agent_timeout + grace + margin), and
		// the master requeues it as well.
		{name: "priority-fence-held", config: priority + "lost_node_grace: 10s\n", nodes: replayNodes,
			jobs: fenceJobs, outages: []rdown{{at: 100, back: 150}}},
		// p3 moved from n2 to n3 at 60 (a consolidation), its attempt
		// continued: the fence stops it at 121.
		{name: "fifo-fence-moved", config: fifo, nodes: replayNodes, jobs: moveJobs, outages: fenceOutage},
		// e1 and e2 grew (resizes continue their attempts) before the
		// outage at 400.
		{name: "elastic-priority-fence", config: priority, nodes: replayNodes, jobs: elasticJobs,
			outages: []rdown{{at: 400, back: 430}}},
		// e, shrunk by quota reclaim at 100 (its checkpoint landing at
		// 120), is stopped by the fence at 221, as the trial's were.
		{name: "quota-elastic-shrink-fence", checkpoint: 20, config: "pools:\n  - {name: default, policy: quota}\n" +
			"default_project: vision\nprojects:\n  - {name: vision, quota: 2}\n  - {name: other, quota: 3}\n  - {name: nlp, quota: 2}\n",
			nodes: replayNodes, outages: []rdown{{at: 200, back: 230}}, jobs: []rjob{
				{name: "e", slots: 4, minSlots: 2, submit: 0, run: 1200, project: "vision", extra: preemptible},
				{name: "f", slots: 2, submit: 0, run: 1500, project: "other"},
				{name: "g", slots: 1, submit: 0, run: 1500, project: "other"},
				{name: "n", slots: 2, submit: 100, run: 300, project: "nlp"},
			}},
		// l's and m's time limits end in the outage: the restarted master
		// kills m (not fenced) at 130, before its agent is back, and l,
		// which the fence stopped at 121, ends killed as well, by its
		// time limit; w starts then.
		{name: "fifo-fence-time-limit", config: fifo, nodes: replayNodes, outages: fenceOutage, jobs: []rjob{
			{name: "l", slots: 4, submit: 0, run: 400, extra: `, "preemptible": true, "time_limit": 125`},
			{name: "m", slots: 2, submit: 0, run: 400, extra: `, "time_limit": 125`},
			{name: "w", slots: 2, submit: 50, run: 100},
		}},
		// g, a gang on n1 and n2, is stopped by both agents' fences.
		{name: "priority-fence-gang", config: priority, nodes: replayNodes, outages: fenceOutage, jobs: []rjob{
			{name: "g", slots: 5, submit: 0, run: 300, extra: preemptible},
			{name: "m", slots: 1, submit: 0, run: 400},
			{name: "w", slots: 1, submit: 50, run: 100},
		}},
		// p3 checkpoints for its move from 60 when the master dies at 70:
		// the fence stops it with p2 at 91, and the restarted master takes
		// its report for the checkpoint's landing.
		{name: "fifo-fence-move-checkpoint", checkpoint: 30, config: fifo, nodes: replayNodes,
			jobs: moveJobs, outages: []rdown{{at: 70, back: 100}}},
		// e, shrunk by fair share for b at 100, is stopped with f and g
		// at 171.
		{name: "fair-share-elastic-fence", checkpoint: 20, config: fairShareConfig, nodes: replayNodes,
			outages: []rdown{{at: 150, back: 190}}, jobs: []rjob{
				{name: "e", slots: 4, minSlots: 1, submit: 0, run: 1200, project: "a", extra: preemptible},
				{name: "f", slots: 2, submit: 0, run: 1500, project: "a", extra: preemptible},
				{name: "g", slots: 1, submit: 0, run: 1500, project: "a", extra: preemptible},
				{name: "b", slots: 1, submit: 100, run: 300, project: "b", extra: `, "weight": 3`},
			}},
	}
}

// nextOutage is when the next outage of the case begins, +Inf for none.
func (d *replayDriver) nextOutage() float64 {
	if d.outaged < len(d.c.outages) {
		return d.c.outages[d.outaged].at
	}
	return math.Inf(1)
}

// outage, when an outage of the case is due, runs it: no agent hears
// the master from its start to its back (nor does a tick come: nextTick
// moves past it), when the master is restarted on its store and the
// agents register again; their fences meanwhile stop the attempts the
// master would requeue at a loss fenceWait after the start, and those
// it would hold through one once agent_timeout, lost_node_grace and the
// fence's margin have passed.
// Each stopped attempt is gone from its agent's running list and
// reported preempted, with the time it stopped, as agentd reports it.
func (d *replayDriver) outage(t *testing.T, nextTick *float64) {
	if d.outaged >= len(d.c.outages) || d.c.outages[d.outaged].at > d.now()+1e-9 {
		return
	}
	o := d.c.outages[d.outaged]
	d.outaged++
	stops := d.fenceStops(o)
	d.h.clock.Advance(time.Duration(math.Round((o.back - d.now()) * 1e9)))
	for d.c.tick > 0 && *nextTick <= d.now() {
		*nextTick += d.c.tick
	}
	for _, ag := range d.up() {
		for id, at := range stops {
			if !ag.Forget(id) {
				continue
			}
			ag.Inject(api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomePreempted),
				Error: fmt.Sprintf("stopped by the agent's fence: no reply from the master for %gs", at-o.at),
				At:    d.t0.Add(time.Duration(math.Round(at * 1e9)))})
			// Its checkpoint keeps what a preemption's does.
			d.att[id].preempted = true
		}
	}
	// The restarted master kills the tasks past their time limits as it
	// starts (Run arms its timer at once), before the first agent is
	// back.
	d.h.start()
	checkLimits(d.h)
	d.reregister(t)
}

// fenceStops maps the attempts the agents run that their fences stop in
// outage o to when they stop, in seconds from the start.
func (d *replayDriver) fenceStops(o rdown) map[agent.TaskID]float64 {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	timeout := agentTimeout(d.h.m.cfg)
	held := o.at + (timeout + d.h.m.cfg.LostNodeGrace + max(timeout/10, time.Second)).Seconds()
	out := map[agent.TaskID]float64{}
	for _, ag := range d.up() {
		for _, id := range ag.Running() {
			t := d.h.m.agents.lookup(id)
			switch {
			case t == nil || d.att[id] == nil:
			case !d.h.m.agents.holdsThroughLoss(t) && o.at+fenceWait < o.back:
				out[id] = o.at + fenceWait
			case d.h.m.agents.holdsThroughLoss(t) && held < o.back:
				out[id] = held
			}
		}
	}
	return out
}

// TestReplayFence: the cases replay byte for byte, batched and live;
// without the export's agent_preempted the replay runs the stopped
// attempts on, and the decisions differ.
func TestReplayFence(t *testing.T) {
	checkBatchedAndLive(t, fenceCases())
	// The time limits end l in the replay without it as well.
	stopped := slices.DeleteFunc(fenceCases(), func(c replayCase) bool { return c.name == "fifo-fence-time-limit" })
	checkUnexported(t, stopped, "agent_preempted", 1, func(j *scenario.Job) int {
		n := len(j.AgentPreempted)
		j.AgentPreempted = nil
		return n
	})
}
