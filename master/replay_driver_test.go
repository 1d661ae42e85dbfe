package master

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// replayDriver runs a case's jobs on a live master the way the simulator
// models them: the clock jumps from one instant to the next at which
// something is due (a submission, a kill, an attempt's end by its work or
// its time limit); at each it reports the exits due, runs the time-limit
// check, kills, submits, and then settles: syncs the agents and runs a
// pass while the master has an event pending, until none is.
type replayDriver struct {
	h      *harness
	c      replayCase
	t0     time.Time
	agents []*mastertest.Agent
	ids    []int64 // by case job, 0 until submitted
	byID   map[int64]int
	killed []bool
	// changed counts each job's changes made.
	changed []int
	done    map[taskKey]float64 // work done by earlier attempts
	att     map[agent.TaskID]*liveAttempt
	ticks   int
	seq     int64 // the last event seen by tick
	seen    []int // each agent's commands seen
	// down says which agents' nodes are lost; downs counts each of the
	// case's downs done: 1 lost, 2 back.
	down  []bool
	downs []int
	// restarted counts the case's restarts done.
	restarted int
	// drains counts each of the case's drains done: 1 drained, 2
	// resumed.
	drains []int
	// grace is the master's lost_node_grace; graced says which downs'
	// grace has been checked at its end.
	grace  time.Duration
	graced []bool
	// silent maps the starts no agent answers to when the master may
	// give them up: their delivery plus its start grace.
	silent map[agent.TaskID]float64
	// deleted counts the case's deletes done; reborn says which of them
	// registered again (rdown.back).
	deleted int
	reborn  map[int]bool
	// reshaped counts the case's reshapes done, reloaded its reloads.
	reshaped, reloaded int
	// left counts each of the case's leaves done: 1 left, 2 back.
	left []int
	// lostAt is when the master lost the node of each of the case's
	// downs done.
	lostAt []float64
	// at is the time of the instant being run, before the millisecond
	// steps an eager case's node events take (drainNodes, nodes): the
	// attempts count their work from and to it, in the whole seconds
	// the simulator and the export count in.
	at float64
	// mid is the pass hook that makes the mid drains due (armMid), nil
	// when none is; midDone is closed once they are made.
	mid     func()
	midDone chan struct{}
	// asked counts each task's checkpoints asked (checkpointTime).
	asked map[taskKey]int
	// quietUntil is, by agent, when one a kill silenced syncs again (up).
	quietUntil []float64
	outaged    int // the case's outages done
}

type taskKey struct {
	job   int64
	index int
}

type liveAttempt struct {
	start float64
	rate  float64 // work done per second: 1, or an elastic job's slots
	// asked says it was asked to checkpoint, at stop; land is when the
	// agents report the checkpoint landed.
	asked      bool
	stop, land float64
	// checkpoint is how long its checkpoint takes to land: its job's
	// (rjob.checkpoint) or the case's.
	checkpoint float64
	// preempted says it was asked to checkpoint (preempted, moved or
	// resized), its checkpoint landing at once or not.
	preempted bool
	fails     bool    // due is when it fails, with an error
	due       float64 // when its work is done (lag included)
	limit     float64 // when its time limit ends it; +Inf for none
	exited    bool
	lost      float64 // when its agent forgets it (rjob.lost); +Inf for never
	// exitAt is when its processes exit before due, their exit reported
	// only at due (rjob.early); +Inf for at due. quiet says they have,
	// on agents on.
	exitAt float64
	quiet  bool
	on     []*mastertest.Agent
}

func newReplayDriver(h *harness, c replayCase) *replayDriver {
	d := &replayDriver{h: h, c: c, t0: h.clock.Now(), ids: make([]int64, len(c.jobs)), byID: map[int64]int{},
		killed: make([]bool, len(c.jobs)), changed: make([]int, len(c.jobs)), done: map[taskKey]float64{}, att: map[agent.TaskID]*liveAttempt{}}
	for _, n := range c.nodes {
		ag := h.agent(n.name, n.gpus)
		ag.HoldPreempt = c.checkpoint > 0
		ag.OnStart = func(sp agent.TaskSpec) *mastertest.Exit { return d.onStart(ag.Name, sp) }
		d.agents = append(d.agents, ag)
	}
	d.seen, d.quietUntil = make([]int, len(d.agents)), make([]float64, len(d.agents))
	d.down, d.downs, d.drains = make([]bool, len(d.agents)), make([]int, len(c.downs)), make([]int, len(c.drains))
	d.graced, d.lostAt = make([]bool, len(c.downs)), make([]float64, len(c.downs))
	d.grace = h.m.cfg.LostNodeGrace
	d.left = make([]int, len(c.leaves))
	d.silent = map[agent.TaskID]float64{}
	return d
}

// onStart fails the start of the attempt a case job names (startFail),
// or leaves it unanswered (startLost; on node's agent only, where the
// job names one in startLostNode); others run. The agents call it in a
// sync, on the test's goroutine.
func (d *replayDriver) onStart(node string, sp agent.TaskSpec) *mastertest.Exit {
	id, err := strconv.ParseInt(sp.JobID, 10, 64)
	i, ok := d.byID[id]
	if err != nil || !ok {
		return nil
	}
	j := d.c.jobs[i]
	if j.startFail > 0 && sp.TaskIndex == j.startFailTask && sp.Attempt == j.startFail {
		return &mastertest.Exit{StartError: "chdir /no/such/dir: no such file or directory"}
	}
	if j.startLost > 0 && sp.TaskIndex == j.startLostTask && sp.Attempt == j.startLost && (j.startLostNode == "" || j.startLostNode == node) {
		d.silent[sp.ID()] = d.now() + d.h.m.agents.startGrace().Seconds()
		return &mastertest.Exit{Silent: true}
	}
	return nil
}

// now is the clock in seconds from the start.
func (d *replayDriver) now() float64 { return d.h.clock.Now().Sub(d.t0).Seconds() }

func (d *replayDriver) run(t *testing.T) {
	nextTick := d.c.tick / 2 // ticks fall between the whole seconds of the instants
	for range 100000 {
		next := math.Inf(1)
		for i, j := range d.c.jobs {
			if d.ids[i] == 0 {
				next = min(next, j.submit)
			} else if j.kill > 0 && !d.killed[i] {
				next = min(next, j.kill)
			}
			if d.ids[i] != 0 && !d.killed[i] && d.changed[i] < len(j.changes) {
				next = min(next, j.changes[d.changed[i]].at)
			}
		}
		next = min(next, d.nextDown(), d.nextLeave(), d.nextHeard(), d.nextOutage())
		for id, at := range d.silent {
			if at <= d.now()+1e-9 {
				delete(d.silent, id) // given up at the instant it was due
			} else {
				next = min(next, at)
			}
		}
		for _, a := range d.att {
			switch {
			case a.exited:
			case a.asked:
				next = min(next, a.land)
			case !a.quiet:
				next = min(next, a.due, a.limit, a.lost, a.exitAt)
			default:
				next = min(next, a.due, a.limit, a.lost)
			}
		}
		if math.IsInf(next, 1) {
			return
		}
		if d.c.tick > 0 && !d.waiting() {
			// An idle pass with no task waiting does nothing: skip the
			// ticks to the first after the next instant.
			for nextTick <= next {
				nextTick += d.c.tick
			}
		}
		tick := d.c.tick > 0 && nextTick <= next
		if tick {
			next = nextTick
			nextTick += d.c.tick
		}
		if at := d.now(); next > at {
			d.h.clock.Advance(time.Duration(math.Round((next - at) * 1e9)))
		}
		d.outage(t, &nextTick)
		d.at = d.now()
		d.restart(t)
		d.instant(t)
		if tick {
			d.tick(t)
		}
	}
	t.Fatal("the live run did not end")
}

// timeLimit is the job's time limit as the master has it.
func (d *replayDriver) timeLimit(id int64) time.Duration {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	return d.h.m.jobs[id].rec.TimeLimit
}

// first is the start of task index's attempt as the simulator counts it
// (a move or resize continues the attempt), in seconds from the start.
func (d *replayDriver) first(id int64, index int) float64 {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	return d.h.m.jobs[id].tasks[index].att.first().Sub(d.t0).Seconds()
}

// waiting says whether a task waits to start.
func (d *replayDriver) waiting() bool {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	for _, j := range d.h.m.jobs {
		for _, t := range j.tasks {
			if t.rec.State == store.TaskQueued {
				return true
			}
		}
	}
	return false
}

// tick runs the master's Tick and settles if it changed anything. The
// agents sync every ten ticks, so that the master does not find them
// silent; more often is not needed, as nothing changes for them between
// instants unless a tick's pass did something.
func (d *replayDriver) tick(t *testing.T) {
	if d.ticks++; d.ticks%10 == 0 {
		d.h.sync(d.up()...)
	}
	d.h.m.Tick(d.h.ctx)
	evs, err := d.h.st.Events(d.h.ctx, store.EventFilter{AfterSeq: d.seq})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) > 0 {
		d.seq = evs[len(evs)-1].Seq
		d.settle(t)
	}
}

// instant does what is due now and settles.
func (d *replayDriver) instant(t *testing.T) {
	now := d.now()
	limits := false
	var lost []agent.TaskID
	for id, a := range d.att {
		d.exitEarly(id, a, now)
		switch {
		case a.exited:
		case !a.asked && a.lost <= now+1e-9 && a.lost < a.due && a.lost < a.limit:
			lost = append(lost, id)
		case a.asked:
			// Checkpointing: its work and time limit no longer count.
			if a.land <= now+1e-9 {
				for _, ag := range d.agents {
					ag.Exit(id, agent.OutcomePreempted, 0)
				}
			}
		case a.due <= now+1e-9 && a.due <= a.limit:
			outcome, code := agent.OutcomeCompleted, 0
			if a.fails {
				outcome, code = agent.OutcomeFailed, 1
			}
			if a.quiet {
				d.reportLate(id, a, outcome, code)
			}
			for _, ag := range d.agents {
				ag.Exit(id, outcome, code)
			}
			a.exited = true
		case a.limit <= now+1e-9:
			limits = true
		}
	}
	d.loseAttempts(t, lost)
	d.h.sync(d.up()...)
	if limits {
		d.silenceLimited(now)
		checkLimits(d.h)
	}
	for i, j := range d.c.jobs {
		if d.ids[i] != 0 && j.kill > 0 && !d.killed[i] && j.kill <= now+1e-9 {
			d.killed[i] = true
			d.silence(i, nil, now)
			if code := d.h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(d.ids[i], 10)+"/kill", nil, nil); code/100 != 2 {
				t.Fatalf("kill %s: %d", j.name, code)
			}
		}
	}
	d.changes(t, now)
	before := d.h.clock.Now()
	d.nodes(t, now, true)
	d.drainNodes(t, now, true)
	moved := d.h.clock.Now().After(before)
	d.submitDue(t, now, moved)
	d.nodes(t, now, false)
	d.drainNodes(t, now, false)
	d.deleteNodes(t, now)
	d.reshapeNodes(t, now)
	d.reloadConfigs(t, now)
	d.leaveNodes(t, now)
	d.armMid(t, now)
	d.settle(t)
	if d.mid != nil {
		t.Fatal("no pass to make the mid drains in")
	}
	evs, err := d.h.st.Events(d.h.ctx, store.EventFilter{AfterSeq: d.seq})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) > 0 {
		d.seq = evs[len(evs)-1].Seq
	}
}

// changes makes the priority and weight changes due now.
func (d *replayDriver) changes(t *testing.T, now float64) {
	for i, j := range d.c.jobs {
		for d.ids[i] != 0 && !d.killed[i] && d.changed[i] < len(j.changes) && j.changes[d.changed[i]].at <= now+1e-9 {
			ch := j.changes[d.changed[i]]
			d.changed[i]++
			if ch.requeue {
				d.requeueJob(t, j.name, d.ids[i], ch.hold)
				continue
			}
			if ch.hold || ch.release {
				d.holdJob(t, j.name, d.ids[i], ch.hold)
				continue
			}
			var body []string
			if ch.priority > 0 {
				body = append(body, `"priority": `+strconv.Itoa(ch.priority))
			}
			if ch.weight > 0 {
				body = append(body, `"weight": `+strconv.FormatFloat(ch.weight, 'g', -1, 64))
			}
			if ch.limit != "" {
				body = append(body, `"time_limit": `+strconv.Quote(ch.limit))
			}
			if ch.qos != "" {
				body = append(body, `"qos": `+strconv.Quote(ch.qos))
			}
			if ch.nice != 0 {
				body = append(body, `"nice": `+strconv.Itoa(ch.nice))
			}
			path := "/api/v1/jobs/" + strconv.FormatInt(d.ids[i], 10)
			if code := d.h.do("PATCH", path, "{"+strings.Join(body, ", ")+"}", nil); code/100 != 2 && code != 409 {
				t.Fatalf("change %s: %d", j.name, code)
			}
			if ch.limit != "" {
				d.relimit(d.ids[i], j.limitLate)
			}
		}
	}
}

// relimit gives the open attempts of job id the time limit a change set
// (a lowered one past what they ran has killed them already).
func (d *replayDriver) relimit(id int64, late float64) {
	lim := d.timeLimit(id)
	for tid, a := range d.att {
		if tid.JobID != strconv.FormatInt(id, 10) || a.exited {
			continue
		}
		a.limit = math.Inf(1)
		if lim > 0 {
			a.limit = d.first(id, tid.TaskIndex) + lim.Seconds() + late
		}
	}
}

// submitDue submits the jobs due now, settling after each when the case
// is eager; after an early node event (moved) each comes a millisecond
// after the pass before it, as a drain does (drainNodes).
func (d *replayDriver) submitDue(t *testing.T, now float64, moved bool) {
	for i, j := range d.c.jobs {
		if d.ids[i] == 0 && j.submit <= now+1e-9 {
			if moved && d.c.eager {
				d.h.clock.Advance(time.Millisecond)
			}
			d.ids[i] = d.submit(t, j)
			d.byID[d.ids[i]] = i
			d.latePass(j)
			if d.c.eager {
				d.settle(t)
			}
		}
	}
}

func (d *replayDriver) jobFile(j rjob) string {
	var more strings.Builder
	if j.project != "" {
		fmt.Fprintf(&more, `, "project": %q`, j.project)
	}
	if j.kind != "" {
		fmt.Fprintf(&more, `, "kind": %q`, j.kind)
	}
	if j.pool != "" {
		fmt.Fprintf(&more, `, "pool": %q`, j.pool)
	}
	extra := j.extra
	if j.minSlots > 0 {
		extra += fmt.Sprintf(`, "min_slots": %d`, j.minSlots)
	}
	if j.every > 0 {
		extra += fmt.Sprintf(`, "checkpoint_every": %g`, j.every)
	}
	if j.tasks > 1 {
		vals := make([]string, j.tasks)
		for i := range vals {
			vals[i] = strconv.Itoa(i)
		}
		fmt.Fprintf(&more, `, "hyperparameters": {"x": {"type": "categorical", "vals": [%s]}}`, strings.Join(vals, ", "))
	}
	return fmt.Sprintf(`{"name": %q, "entrypoint": "python train.py", "resources": {"slots": %d%s}%s}`,
		j.name, j.slots, extra, more.String())
}

// pending says whether the master has an event that asks for a pass.
func (d *replayDriver) pending() bool {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	return d.h.m.event
}

// settle syncs the agents (reports in, commands out, the agents' reports
// of what the commands did in again) and runs passes while an event asks
// for one, then notes the attempts that started and ended.
func (d *replayDriver) settle(t *testing.T) {
	for range 100 {
		d.h.sync(d.up()...)
		d.h.sync(d.up()...)
		if !d.pending() {
			d.track(t)
			return
		}
		d.h.step()
		if d.midDone != nil {
			<-d.midDone // the mid drains made, then the next pass
			d.midDone = nil
		}
	}
	t.Fatal("the master did not settle")
}

// track notes new attempts (when they end) and ended ones (their work).
func (d *replayDriver) track(t *testing.T) {
	now := d.at
	running := d.running()
	d.markPreempted() // which of the attempts that ended were asked to checkpoint
	for id, a := range d.att {
		if _, ok := running[id]; ok || a.exited || a.quiet {
			continue
		}
		// Preempted or killed: the work up to the request counts (up to
		// now for a kill, or a checkpoint that lands at once).
		stop := now
		if a.asked {
			stop = a.stop
		}
		jid, _ := strconv.ParseInt(id.JobID, 10, 64)
		kept := stop - a.start
		if every := d.c.jobs[d.byID[jid]].every; a.preempted && every > 0 {
			// Only its periodic checkpoints saved the work.
			kept = math.Floor(kept/every) * every
		}
		d.done[taskKey{jid, id.TaskIndex}] += kept * a.rate
		a.exited = true
	}
	for id, slots := range running {
		if _, ok := d.att[id]; ok {
			continue
		}
		jid, err := strconv.ParseInt(id.JobID, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		j := d.c.jobs[d.byID[jid]]
		a := &liveAttempt{start: now, rate: 1, limit: math.Inf(1), lost: math.Inf(1), exitAt: math.Inf(1), checkpoint: d.c.checkpoint}
		if j.checkpoint > 0 {
			a.checkpoint = j.checkpoint
		}
		if j.lost > 0 && id.TaskIndex == j.lostTask && id.Attempt == max(j.lostAttempt, 1) {
			a.lost = now + j.lost
		}
		work := j.run
		if r, ok := j.runs[id.TaskIndex]; ok {
			work = r
		}
		if j.minSlots > 0 {
			a.rate, work = float64(slots), work*float64(j.slots)
		}
		a.due = d.dueAt(now, work-d.done[taskKey{jid, id.TaskIndex}], a.rate, j.minSlots > 0) + j.lag
		if j.fail > 0 && id.TaskIndex == j.failTask {
			failWork := j.fail
			if j.minSlots > 0 {
				failWork *= float64(j.slots)
			}
			if at := d.dueAt(now, failWork-d.done[taskKey{jid, id.TaskIndex}], a.rate, j.minSlots > 0); at <= a.due {
				a.due, a.fails = at, true
			}
		}
		if j.early > 0 {
			a.exitAt = a.due - j.early
		}
		if lim := d.timeLimit(jid); lim > 0 {
			// From the start of the attempt a move or resize continues.
			a.limit = d.first(jid, id.TaskIndex) + lim.Seconds() + j.limitLate
		}
		d.att[id] = a
	}
	// Attempts that started in this settling may have been asked to
	// checkpoint in it too (a resize).
	d.preempts(now)
}

// running maps the attempts the agents run to the slots they hold.
func (d *replayDriver) running() map[agent.TaskID]int {
	out := map[agent.TaskID]int{}
	for _, ag := range d.agents {
		live := map[agent.TaskID]bool{}
		for _, id := range ag.Running() {
			live[id] = true
		}
		for _, sp := range ag.Started() {
			if live[sp.ID()] {
				out[sp.ID()] += len(sp.GPUs)
			}
		}
	}
	return out
}

// markPreempted marks the attempts the commands not yet seen ask to
// checkpoint, leaving the commands to preempts: an attempt whose
// checkpoint lands at once has ended by the time track sees it.
func (d *replayDriver) markPreempted() {
	for i, ag := range d.agents {
		for _, c := range ag.Commands()[d.seen[i]:] {
			if a := d.att[c.Task]; a != nil && c.Type == api.CommandPreempt {
				a.preempted = true
			}
		}
	}
}

// preempts notes the checkpoint requests the agents got since the last
// look, for the attempts that hold their checkpoints (c.checkpoint).
func (d *replayDriver) preempts(now float64) {
	for i, ag := range d.agents {
		cmds := ag.Commands()
		for _, c := range cmds[d.seen[i]:] {
			a := d.att[c.Task]
			if a == nil || c.Type != api.CommandPreempt {
				continue
			}
			a.preempted = true
			if !a.asked && d.c.checkpoint > 0 {
				a.asked, a.stop, a.land = true, now, now+d.checkpointTime(c.Task, a)
			}
		}
		d.seen[i] = len(cmds)
	}
}

// checkpointTime is how long attempt a of task id takes to checkpoint
// now: its job's time for the task's checkpoint of that number
// (rjob.checkpoints), else its own.
func (d *replayDriver) checkpointTime(id agent.TaskID, a *liveAttempt) float64 {
	jid, _ := strconv.ParseInt(id.JobID, 10, 64)
	k := taskKey{jid, id.TaskIndex}
	if d.asked == nil {
		d.asked = map[taskKey]int{}
	}
	d.asked[k]++
	if cs := d.c.jobs[d.byID[jid]].checkpoints; d.asked[k] <= len(cs) {
		return cs[d.asked[k]-1]
	}
	return a.checkpoint
}

// dueAt is when work left is done at rate from now: for an elastic job in
// the simulator's whole seconds.
func (d *replayDriver) dueAt(now, left, rate float64, elastic bool) float64 {
	if elastic {
		return now + math.Ceil(left/rate-1e-9)
	}
	return now + left/rate
}
