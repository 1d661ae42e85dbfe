package agentd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
)

// apiGPUs converts the inventory to its wire form.
func apiGPUs(gpus []agent.GPU) []api.GPU {
	out := make([]api.GPU, 0, len(gpus))
	for _, g := range gpus {
		out = append(out, api.GPU{Index: g.Index, UUID: g.UUID, Name: g.Name, Type: g.Type, MemoryMiB: g.MemoryMiB})
	}
	return out
}

// execute carries out the master's commands in order. Every command is
// idempotent, because a command may arrive twice (in two replies, or
// again after a reply was lost); once the agent is closing, commands are
// ignored, but for a start while it leaves, which is reported preempted,
// not run (refuseStart).
func (a *Agent) execute(cmds []api.Command) {
	// Two replies may be handled at once (the long poll's and a report
	// sync's); one at a time, a repeated start cannot race its first.
	a.execMu.Lock()
	defer a.execMu.Unlock()
	for _, c := range cmds {
		a.mu.Lock()
		closing, leaving := a.closing, a.leaving
		a.mu.Unlock()
		if leaving && c.Type == api.CommandStart {
			a.refuseStart(c)
			continue
		}
		if closing {
			a.log.Debug("stopping; command ignored", "type", c.Type, "task", c.Task.String())
			continue
		}
		switch c.Type {
		case api.CommandStart:
			a.start(c)
		case api.CommandPreempt, api.CommandKill:
			a.stop(c)
		default:
			a.log.Error("unknown command from the master; ignored", "type", c.Type, "task", c.Task.String())
		}
	}
}

// refuseStart answers a start that comes while the agent leaves (the
// master sent it before it heard of the leave): the attempt is reported
// ended, preempted, without running, so that the master requeues it at
// once rather than wait for it and end it as lost.
func (a *Agent) refuseStart(c api.Command) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, running := a.tasks[c.Task]; running || a.finished[c.Task] {
		return
	}
	a.log.Info("start refused: the agent is leaving", "task", c.Task.String())
	a.rememberLocked(c.Task)
	a.enqueueLocked(api.Report{Task: c.Task, Event: api.EventExited, Outcome: string(agent.OutcomePreempted),
		Error: "not started: the agent is leaving", At: time.Now().UTC()})
}

// start runs one attempt, unless it runs already or ran in this process.
func (a *Agent) start(c api.Command) {
	if c.Start == nil {
		a.log.Error("start command without a task spec", "task", c.Task.String())
		a.finish(api.Report{Task: c.Task, Event: api.EventExited, Outcome: string(agent.OutcomeFailed),
			Error: "start command without a task spec", At: time.Now().UTC()})
		return
	}
	spec := *c.Start
	id := spec.ID()
	log := a.log.With("task", id.String())
	a.mu.Lock()
	_, running := a.tasks[id]
	done := a.finished[id]
	a.mu.Unlock()
	if running || done {
		log.Debug("repeated start ignored", "running", running)
		return
	}
	if (deferrer{a}).hold(c) {
		return // it starts once the attempts being stopped on its GPUs have exited
	}
	if err := a.prepare(&spec); err != nil {
		log.Error("cannot start the attempt", "err", err)
		a.finish(api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeFailed),
			Error: err.Error(), At: time.Now().UTC()})
		return
	}
	a.warnSharedGPUs(spec)
	t, err := a.runner.Start(spec)
	if err != nil {
		log.Error("cannot start the attempt", "err", err)
		a.finish(api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeFailed),
			Error: err.Error(), At: time.Now().UTC()})
		return
	}
	rec := stateRecord{Task: id, Pgid: t.Pid(), WorkDir: spec.WorkDir, StartedAt: time.Now().UTC(), ExitFile: t.ExitFile(),
		NodeRank: spec.NodeRank, GPUs: spec.GPUs, CheckpointDir: checkpointDirOf(spec)}
	rec.StartTicks, _ = startTicks(t.Pid())
	att := &attempt{spec: spec, task: t, rec: rec}
	a.mu.Lock()
	a.tasks[id] = att
	a.watchers.Add(1)
	a.mu.Unlock()
	// Recorded before it is reported, so that whatever the master knows
	// to run here, a successor of this process can find.
	a.persist()
	a.enqueue(api.Report{Task: id, Event: api.EventRunning, At: rec.StartedAt})
	log.Info("attempt started", "pid", t.Pid(), "gpus", spec.GPUs, "work_dir", spec.WorkDir)
	go a.watch(att)
}

// prepare checks a spec against the node and fills in its working
// directory, WORKDIR/jobs/JOB/TASK, when the master left it empty: the
// same for every attempt of a task, so that they share the default
// checkpoint directory.
func (a *Agent) prepare(spec *agent.TaskSpec) error {
	for _, g := range spec.GPUs {
		if !a.gpus[g] {
			return fmt.Errorf("gpu %d is not on this node (it has %s: %s)", g, plural.Count(len(a.gpus), "GPU"), a.gpuList())
		}
	}
	if spec.WorkDir != "" {
		if !filepath.IsAbs(spec.WorkDir) {
			return fmt.Errorf("work dir %q: expected an absolute path", spec.WorkDir)
		}
		return nil
	}
	if spec.JobID == "" || spec.JobID == "." || spec.JobID == ".." || strings.ContainsAny(spec.JobID, "/\\\x00") {
		return fmt.Errorf("job id %q: cannot name a directory (expected no '/', '\\', NUL, '.' or '..')", spec.JobID)
	}
	spec.WorkDir = filepath.Join(a.cfg.WorkDir, JobsDirName, spec.JobID, strconv.Itoa(spec.TaskIndex))
	return nil
}

func (a *Agent) gpuList() string {
	idx := make([]string, 0, len(a.gpus))
	for _, g := range a.cfg.GPUs {
		idx = append(idx, strconv.Itoa(g.Index))
	}
	if len(idx) == 0 {
		return "none"
	}
	return strings.Join(idx, ",")
}

// warnSharedGPUs logs a start onto GPUs that a running attempt holds,
// one the master did not ask to stop (a start that meets one being
// stopped waits for its exit: deferstart.go). It is the master's call,
// so the agent complies, but the overlap is worth a line in the log.
func (a *Agent) warnSharedGPUs(spec agent.TaskSpec) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, att := range a.tasks {
		for _, g := range spec.GPUs {
			if !att.exited && slices.Contains(att.spec.GPUs, g) {
				a.log.Warn("starting on a GPU that a running attempt holds", "task", spec.ID().String(), "gpu", g, "holder", id.String())
			}
		}
	}
}

// stop preempts or kills an attempt. One the agent does not run is
// reported as killed, so that the master can close it; one that is
// ending already needs nothing, its exit report is on the way.
func (a *Agent) stop(c api.Command) {
	id := c.Task
	log := a.log.With("task", id.String(), "command", c.Type)
	a.mu.Lock()
	att, running := a.tasks[id]
	done := a.finished[id]
	a.mu.Unlock()
	switch {
	case done:
		log.Debug("attempt already ended and reported")
		return
	case !running && (deferrer{a}).drop(id):
		log.Info("deferred start dropped: the attempt was stopped before it started; reporting it killed")
		a.finish(api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeKilled),
			Error: "stopped before it started (its start waited for the GPUs)", At: time.Now().UTC()})
		return
	case !running:
		log.Warn("attempt is not running here; reporting it killed")
		a.finish(api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeKilled),
			Error: "the attempt is not running on this node", At: time.Now().UTC()})
		return
	}
	a.mu.Lock()
	again := att.stopped == c.Type
	att.stopped = c.Type
	a.mu.Unlock()
	grace := time.Duration(max(c.GraceS, 0)) * time.Second
	var err error
	if c.Type == api.CommandPreempt {
		err = att.task.Preempt(grace)
	} else {
		err = att.task.Kill(grace)
	}
	switch {
	case errors.Is(err, agent.ErrTaskDone):
		log.Debug("attempt has already exited")
	case err != nil:
		log.Warn("preempt: checkpoint request incomplete", "err", err)
	case again:
		// The master sends a stop again while the attempt still runs
		// (a sync's running list): the first was logged.
		log.Debug("stopping attempt, asked again", "grace_s", c.GraceS)
	default:
		log.Info("stopping attempt", "grace_s", c.GraceS)
	}
	if c.Type == api.CommandKill && grace == 0 {
		a.orph.awaitKilled(att) // also when it had exited: what is left of its group may still be dying
	}
}

// watch follows an attempt to its end. The exit report is queued only
// once every output line read before the end is delivered (or dropped),
// so that the master never closes an attempt whose logs are still on
// the way.
func (a *Agent) watch(att *attempt) {
	defer a.watchers.Done()
	stopTail, tailDone := make(chan struct{}), make(chan struct{})
	go newMetricsWatch(a, att).run(stopTail, tailDone)
	res := att.task.Wait()
	// As the attempt ended: the master words its next attempt by it.
	ckpt := checkpointState(att.rec.CheckpointDir)
	// The last metrics go out before the exit report, so that the
	// searcher sees a trial's final step before its end.
	close(stopTail)
	<-tailDone
	id := att.spec.ID()
	a.mu.Lock()
	att.exited = true
	waiting := len(a.defers.starts) > 0
	if waiting {
		a.watchers.Add(1)
	}
	a.mu.Unlock()
	a.persist()
	if waiting {
		go func() { // it takes execMu, which a command being executed holds
			defer a.watchers.Done()
			(deferrer{a}).release()
		}()
	}
	a.log.Info("attempt ended", "task", id.String(), "outcome", res.Outcome, "exit_code", res.ExitCode, "signal", res.Signal)

	// Run cancels stopCtx only once the final delivery is over, so the
	// wait ends with the logs handled, or with the agent.
	a.ship.waitHandled(a.stopCtx, a.ship.mark())
	rep := exitReport(res, a.ship.takeDropped(id))
	rep.Checkpoint = ckpt
	a.mu.Lock()
	if att.fenced != "" && res.Outcome == agent.OutcomePreempted {
		rep.Error = strings.TrimSuffix(att.fenced+"; "+rep.Error, "; ")
	}
	a.limiter().limitReportLocked(att, &rep)
	if a.detached {
		a.mu.Unlock()
		return
	}
	// One critical section, so that a repeated start finds the attempt
	// either running or finished.
	delete(a.tasks, id)
	a.rememberLocked(id)
	a.enqueueLocked(rep)
	a.mu.Unlock()
	// Its lines are handled and its end journaled: the shim's output
	// file (there if an agent died while the attempt ran) has served.
	if f := att.task.OutputFile(); f != "" {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			a.log.Warn("cannot remove the output file of an ended attempt", "task", id.String(), "err", err)
		}
	}
}

// exitReport turns a Result into the report of the attempt's end.
func exitReport(res agent.Result, dropped uint64) api.Report {
	r := api.Report{Task: res.ID, Event: api.EventExited, Outcome: string(res.Outcome), At: res.ExitedAt}
	var notes []string
	if res.Signal == "" && res.ExitCode >= 0 {
		code := res.ExitCode
		r.ExitCode = &code
	} else if res.Signal != "" {
		notes = append(notes, "ended by "+res.Signal)
	}
	switch {
	case res.KilledAtDeadline && res.Outcome == agent.OutcomeKilled:
		notes = append(notes, "SIGKILLed at the end of the kill grace (it was still running after SIGTERM)")
	case res.KilledAtDeadline:
		notes = append(notes, "killed at the checkpoint deadline")
	}
	if res.Error != "" {
		notes = append(notes, res.Error)
	}
	if n := res.DroppedLines + dropped; n > 0 {
		notes = append(notes, fmt.Sprintf("%d output lines were dropped (the log buffer was full)", n))
	}
	r.Error = strings.Join(notes, "; ")
	return r
}

// enqueue gives a report the next sequence number and queues it.
func (a *Agent) enqueue(r api.Report) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.enqueueLocked(r)
}

func (a *Agent) enqueueLocked(r api.Report) {
	if a.detached || a.disown.revoked {
		// Disowned: the master takes nothing more from this agent.
		return
	}
	a.seq++
	r.Seq = a.seq
	a.reports = append(a.reports, r)
	if r.Event == api.EventExited {
		a.journal.save(a.reports)
	}
	a.dirty = true
	a.broadcast()
}

// finish queues the report of an attempt that never ran here (it could
// not start, or the master asked to stop an unknown one) and records it
// as ended.
func (a *Agent) finish(r api.Report) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rememberLocked(r.Task)
	a.enqueueLocked(r)
}

// rememberLocked records an attempt as ended, so that a repeated start or
// stop is not mistaken for a new one; the caller holds mu.
func (a *Agent) rememberLocked(id agent.TaskID) {
	if a.finished[id] {
		return
	}
	a.finished[id] = true
	a.finOrder = append(a.finOrder, id)
	if len(a.finOrder) > maxFinished {
		delete(a.finished, a.finOrder[0])
		a.finOrder = a.finOrder[1:]
	}
}
