package master

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// asOf is the time that a request's views count from: the master's
// clock, to the second, read once per request so that every message of
// one answer counts from the same time, which the answer gives as as_of.
func (ja *jobsAPI) asOf() time.Time { return time.Unix(ja.m.now().Unix(), 0).UTC() }

// jobView renders a live job of the view. Its pending message counts down
// from now, the request's time (asOf), not from its pass's time: a
// client counting to the estimated start from the pending's as_of then
// says what the message says, however long ago the pass ran, and the
// read view need not keep the pass's time (samePending).
func (ja *jobsAPI) jobView(v *readView, j *jobRead, now time.Time) api.Job {
	out := ja.storedJobView(j.rec)
	out.Tasks = j.tasks
	out.Running = j.active
	out.Holding = j.used
	if !j.startedAt.IsZero() {
		s := j.startedAt.UTC()
		out.StartedAt = &s
	}
	lost := lostReasonOf(v, j.rec.ID)
	if lost != "" {
		out.Reason = lost
	}
	showEnding(&out, j, now, lost != "", j.killGrace) // readview_ending.go
	showResizing(&out, j, lost != "")                 // readview_resizing.go
	showMoving(&out, j, lost != "")                   // readview_moving.go
	showPreempting(&out, j, lost != "")               // readview_preempting.go
	showRunning(&out, j)                              // readview_running.go
	pos := v.positions()[j.rec.ID]
	out.Position = pos
	if j.pending == nil && j.active > 0 {
		out.MultifactorPriority = j.startMF
	}
	if out.Held = heldView(j.rec); out.Held != nil {
		// Held: whatever the last pass said, it waits for a release.
		out.Pending = heldPending(j.rec)
		return out
	}
	if pos > 0 && j.pending != nil {
		out.Pending = j.pending.viewAt(now)
		switch at, ok := v.eta[j.rec.ID]; {
		case out.Pending.EstimatedStart != nil:
			// A reservation counts from its pass, too: due, not past.
			at := maxTime(*out.Pending.EstimatedStart, now)
			out.Pending.EstimatedStart, out.Pending.EstimateBasis = &at, "reservation"
			// The reservation is by whole time limits; where the forecast
			// has the typical early end, it gets the range too, so that the
			// job behind it does not show an earlier one (trial p F9).
			if e, ok := v.etaEarly[j.rec.ID]; ok {
				if e = maxTime(e, now); e.Before(at) {
					out.Pending.EstimatedStartEarliest = &e
				}
			}
		case ok:
			forecastView(out.Pending, at, v.etaEarly, j.rec.ID, now)
		}
	}
	return out
}

// forecastView gives pending p the forecast's estimate at (early, the
// range's early end, where the forecast has one), never before now: a
// forecast runs every few seconds from the last pass's snapshot, so the
// start it gave may have passed while the job still waits for the next
// pass; it is due now, not in the past. A job waiting for checkpoints
// (sched.ReasonCheckpointing) starts by their deadline, which the
// forecast frees their GPUs at (sched.Alloc.FreeBy): basis "checkpoint",
// with no range, as no run time is in it.
func forecastView(p *api.Pending, at time.Time, early map[int64]time.Time, id int64, now time.Time) {
	at = maxTime(at, now)
	p.EstimatedStart, p.EstimateBasis = &at, "forecast"
	if p.Reason == sched.ReasonCheckpointing.String() {
		p.EstimateBasis = "checkpoint"
		return
	}
	if e, ok := early[id]; ok {
		if e = maxTime(e, now); e.Before(at) {
			p.EstimatedStartEarliest = &e
		}
	}
}

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// storedJobView renders a job record.
func (ja *jobsAPI) storedJobView(rec store.Job) api.Job {
	v := api.Job{
		ID:            rec.ID,
		Name:          rec.Name,
		Kind:          string(rec.Kind),
		State:         string(rec.State),
		Reason:        rec.Reason,
		Project:       rec.Project,
		User:          rec.User,
		Pool:          rec.Pool,
		Slots:         rec.Slots,
		MaxSlots:      rec.MaxSlots,
		Priority:      rec.Priority,
		PriorityClass: rec.PriorityClass,
		Weight:        rec.Weight,
		Preemptible:   rec.Preemptible,
		TimeLimitS:    int64(rec.TimeLimit / time.Second),
		Entrypoint:    rec.Entrypoint,
		Environment:   rec.Environment,
		SubmittedAt:   rec.SubmittedAt,
	}
	if !rec.EndedAt.IsZero() {
		t := rec.EndedAt
		v.EndedAt = &t
	}
	v.Tasks = specTaskCount(rec)
	return v
}

// specTaskCount is how many tasks a stored job has, from its job file: one,
// or an experiment's trials. It saves listing every ended job's tasks; 0
// when the record has no spec to read.
func specTaskCount(rec store.Job) int {
	if rec.Kind != store.KindExperiment {
		return 1
	}
	if len(rec.Spec) == 0 {
		return 0
	}
	spec, err := jobfile.ParseJSON("stored job", rec.Spec)
	if err != nil || spec.Searcher == nil {
		return 0
	}
	return spec.Searcher.MaxTrials
}

// specView gives a job's view (GET /jobs/{id}) what its stored spec
// says: its scheduling hints (hintsView) and its exit actions in force,
// the spec's or its pool's, where they are not the default.
func (ja *jobsAPI) specView(ctx context.Context, v *api.Job) error {
	rec, err := ja.recordOf(ctx, v.ID) // outageread.go: a live job's needs no store
	if err != nil {
		return err
	}
	h, err := decodeSpec(rec.Spec, rec.Kind)
	if err != nil {
		return nil // a spec that does not decode gives no hints either
	}
	h.changed(rec)
	hintsView(v, h)
	ea := exitActionsOf(ja.m.Config(), &mjob{rec: rec, spec: h})
	if ea.isDefault() {
		return nil
	}
	v.OnPreempt = ea.onPreempt
	if ea.maxRetries != spec.NoRetryCap {
		n := ea.maxRetries
		v.MaxRetries = &n
	}
	return nil
}

// hintsView gives a job's view its job file's scheduling hints h, as
// the file names them, so that a user reads back what was submitted.
func hintsView(v *api.Job, h specHints) {
	v.MinSlots, v.GPU, v.Topology, v.QOS, v.Nice = h.minSlots, h.gpu, string(h.topology), h.qos, h.nice
	v.CheckpointEvery = h.checkpointEvery
	if len(h.licenses) > 0 {
		v.Licenses = make(map[string]int, len(h.licenses))
		for _, u := range h.licenses {
			v.Licenses[u.name] = u.count
		}
	}
}

// viewAt renders the pending explanation counting from now, which it
// gives as as_of.
func (p pendingInfo) viewAt(now time.Time) *api.Pending {
	p.now = now.Unix()
	v := p.view()
	v.AsOf = &now
	return v
}

// view renders the pending explanation, counting from p.now.
func (p *pendingInfo) view() *api.Pending {
	if p.code != "" {
		return &api.Pending{Reason: p.code, Message: p.msg}
	}
	// Message reads the blocker's id, the job's pool and GPU type and the
	// license it is short of from the snapshot: a snapshot of just those.
	s := &sched.Snapshot{Now: p.now,
		Jobs:     []sched.Job{{ID: p.blockerID}, {Pool: -1, GPU: p.ctx.gpu}},
		Licenses: []sched.License{p.ctx.license}}
	if p.ctx.pool != "" {
		s.Jobs[1].Pool, s.Pools = 0, []sched.Pool{{Name: p.ctx.pool}}
	}
	for name := range strings.SplitSeq(p.ctx.drained, "\n") {
		if name == "" {
			continue
		}
		s.Nodes = append(s.Nodes, sched.Node{Name: name, Pool: s.Jobs[1].Pool, GPU: p.ctx.gpu, Drained: true})
	}
	pe := p.p
	if pe.Blocker >= 0 {
		pe.Blocker = 0
	}
	pe.Job = 1
	if pe.Reason == sched.ReasonLicense {
		pe.License = 0
	}
	// The snapshot of a few names is no quota pool: Message gives no
	// advice to borrow, and the kept one goes where it would.
	v := &api.Pending{Reason: pe.Code(), Message: pe.Message(s) + sched.BorrowHint(p.ctx.borrow),
		Priority: pe.Priority}
	if p.ctx.down != "" {
		v.Message = p.ctx.down
	}
	if p.ctx.away != "" {
		v.Reason, v.Message = CodeNodesDown, p.ctx.away
	}
	if p.ctx.awayNever != "" {
		v.Message = p.ctx.awayNever
	}
	if p.ctx.noneUp {
		v.Message = noNodeUpMessage(p.ctx.pool, p.ctx.gone)
	}
	if pe.Reason == sched.ReasonZeroSlotFull && p.ctx.zeroFull != "" {
		v.Message = p.ctx.zeroFull
	}
	if pe.Reason == sched.ReasonCheckpointing && p.ctx.checkpointing != "" {
		v.Message = p.ctx.checkpointing
	}
	if pe.Reason == sched.ReasonMaxConcurrent && p.ctx.capped != "" {
		v.Message = p.ctx.capped
	}
	if pe.Reason == sched.ReasonLimit && p.ctx.limitNever != "" {
		v.Message = p.ctx.limitNever
	}
	if pe.Reason == sched.ReasonReserved {
		v.Message += p.ctx.growsFirst
	}
	v.Message += p.ctx.preempt
	if p.blockerID != "" {
		v.BlockedBy, _ = strconv.ParseInt(p.blockerID, 10, 64)
	}
	if pe.At >= 0 && pe.At != sched.Never {
		t := time.Unix(pe.At, 0).UTC()
		v.EstimatedStart = &t
	}
	return v
}

// pendingContextOf keeps what pe's message reads of snap besides the
// blocker (pendingInfo.view), and the over_quota advice in the state
// plan, made from snap, leaves (sched.Plan.BorrowIdle): not the slots
// the pass gave away. borrow memoizes that advice by job shape, for one
// plan: a long queue over quota scans the pool once per shape. resized
// maps the allocations a resize leaves draining (resizedAllocs), which a
// checkpointing job's message names as resized rather than moved.
func pendingContextOf(snap *sched.Snapshot, plan *sched.Plan, pe sched.Pending, borrow map[borrowKey]int,
	resized map[int]api.SlotChange) pendingContext {
	var c pendingContext
	if pe.Job >= 0 && pe.Job < len(snap.Jobs) {
		j := &snap.Jobs[pe.Job]
		c.gpu = j.GPU
		if j.Pool >= 0 && j.Pool < len(snap.Pools) {
			c.pool = snap.Pools[j.Pool].Name
		}
	}
	if pe.Reason == sched.ReasonLicense && pe.License >= 0 && pe.License < len(snap.Licenses) {
		c.license = snap.Licenses[pe.License]
	}
	// Only these messages name drained nodes; the others spare the scan.
	noStart := pe.Reason == sched.ReasonReserved && (pe.At < 0 || pe.At == sched.Never)
	if (pe.Reason == sched.ReasonNoNodes || noStart) && pe.Job >= 0 && pe.Job < len(snap.Jobs) {
		c.drained = strings.Join(snap.DrainedNodes(&snap.Jobs[pe.Job]), "\n")
	}
	// Every job of a pool with no node up says so, whatever the core's
	// reason (no_nodes for one, no_spare for the next; trial F14).
	if (pe.Reason == sched.ReasonNoNodes || pe.Reason == sched.ReasonNoSpare || noStart) && pe.Job >= 0 && pe.Job < len(snap.Jobs) {
		pool := snap.Jobs[pe.Job].Pool
		c.noneUp = !slices.ContainsFunc(snap.Nodes, func(n sched.Node) bool { return n.Pool == pool })
	}
	if pe.Reason == sched.ReasonZeroSlotFull && pe.Job >= 0 && pe.Job < len(snap.Jobs) {
		// The others of its pool wait behind it: one scan a pool.
		c.zeroFull = sched.ZeroSlotFullMessage(snap.ZeroSlotHolders(&snap.Jobs[pe.Job], plan))
	}
	if pe.Reason == sched.ReasonCheckpointing {
		// resizedAllocs gives nil for no resize as for a view out of
		// step: then the message does not tell moves from resizes.
		var isResize func(int) bool
		if resized != nil {
			isResize = func(a int) bool { _, ok := resized[a]; return ok }
		}
		c.checkpointing = sched.CheckpointingMessage(snap, plan, pe.Job, pe.Need, isResize)
	}
	if pe.Reason == sched.ReasonLimit {
		c.limitNever = snap.LimitNeverMessage(pe.Job)
	}
	if pe.Reason == sched.ReasonOverQuota && pe.Job >= 0 && pe.Job < len(snap.Jobs) {
		j := &snap.Jobs[pe.Job]
		k := borrowKey{pool: j.Pool, project: j.Project, need: pe.Need, gpu: j.GPU, preemptible: j.Preemptible || j.Borrow}
		idle, ok := borrow[k]
		if !ok {
			idle = plan.BorrowIdle(snap, pe.Job, pe.Need)
			borrow[k] = idle
		}
		c.borrow = idle
	}
	return c
}

// borrowKey is what sched.Snapshot.BorrowIdle reads of a job.
type borrowKey struct {
	pool, project, need int
	gpu                 string
	preemptible         bool
}

// taskViews renders tasks with their attempts.
func taskViews(tasks []store.Task, atts []store.Attempt) []api.Task {
	byTask := map[int][]api.Attempt{}
	for _, a := range atts {
		byTask[a.Index] = append(byTask[a.Index], attemptView(a))
	}
	out := make([]api.Task, len(tasks))
	for i, t := range tasks {
		out[i] = api.Task{
			Index:           t.Index,
			State:           string(t.State),
			Reason:          t.Reason,
			Restarts:        shownRestarts(t, len(byTask[t.Index])),
			CheckpointDir:   t.CheckpointDir,
			Hyperparameters: t.Hyperparameters,
			Attempts:        byTask[t.Index],
		}
		if out[i].Attempts == nil {
			out[i].Attempts = []api.Attempt{}
		}
		out[i].Resize, out[i].Move = storedResize(t, atts), storedMove(t, atts)
	}
	return out
}

// shownRestarts is how many times task t, of attempts attempts, started
// again: the store's count (store.Task.Restarts) of its attempts that
// ended with it waiting again, but for an ended task the last such
// requeue when it never started again (failed by its exit actions at
// its next stop, or killed while it waited): a task preempted twice and
// failed by max_retries 1 restarted once, not twice (trial 2026-11-29d
// D4). A task still waiting to start again counts the requeue.
func shownRestarts(t store.Task, attempts int) int {
	if t.State.Terminal() && attempts > 0 {
		return min(t.Restarts, attempts-1)
	}
	return t.Restarts
}

// storedResize is the resize under way of stored task t (preempting, with
// a placement of another size reserved; readview_resizing.go): the slots
// of its open attempt and of that placement. Nil otherwise.
func storedResize(t store.Task, atts []store.Attempt) *api.SlotChange {
	if t.State != store.TaskPreempting || len(t.Reserved) == 0 {
		return nil
	}
	var c api.SlotChange
	for _, p := range t.Reserved {
		c.To += len(p.GPUs)
	}
	for _, a := range atts {
		if a.Index == t.Index && a.Number == t.Attempt {
			for _, p := range a.Placement {
				c.From += len(p.GPUs)
			}
		}
	}
	if c.From == 0 || c.From == c.To {
		return nil
	}
	return &c
}

func attemptView(a store.Attempt) api.Attempt {
	v := api.Attempt{Number: a.Number, StartedAt: a.StartedAt, EndState: string(a.EndState),
		ExitCode: a.ExitCode, Reason: a.Reason, Placement: make([]api.Placement, len(a.Placement))}
	for i, p := range a.Placement {
		gpus := make([]int, len(p.GPUs))
		for k, g := range p.GPUs {
			gpus[k] = g.Index
		}
		v.Placement[i] = api.Placement{Node: p.Node, GPUs: gpus}
	}
	if !a.RunningAt.IsZero() {
		t := a.RunningAt
		v.RunningAt = &t
	}
	if !a.EndedAt.IsZero() {
		t, x := a.EndedAt, a.ExitedAt
		v.EndedAt, v.ExitedAt = &t, &x
	}
	v.ReportedEnd, v.Stopped = string(a.ReportedEnd), lostStopped(a) // lostnote.go
	// A pass's preemption of it, if one asked, clears it (preemptedby.go).
	v.Fenced = fencedEnd(a, false) // explainfenced.go
	// A gang's part, which ends with its gang's words, is known by its
	// preempting event's cause (preemptedBy); a one-node task's by its
	// end reason.
	v.AgentStopped = agentStoppedAttempt(a, store.Event{}, false) // explainagentstop.go
	return v
}

// pendingInfo is a sched.Pending with the blocker named by job id, so that
// it stays meaningful after the snapshot is gone.
type pendingInfo struct {
	p         sched.Pending
	now       int64 // the time messages count from: the pass's Snapshot.Now; the API's views give the request's (viewAt)
	blockerID string
	code      string // overrides p.Reason when the core never saw the job
	msg       string
	// ctx is what of the pass's snapshot the message names: the job's
	// pool and GPU type, and the license it is short of.
	ctx pendingContext
}

// pendingContext is the part of a pass's snapshot that a pending
// reason's message reads besides the blocker (sched.Pending.Message):
// strings the snapshot already holds, so keeping them allocates nothing.
type pendingContext struct {
	pool, gpu string
	license   sched.License
	// drained names the job's pool's drained nodes, for the reasons whose
	// message says it waits for their resume (sched.Snapshot.DrainedNodes),
	// joined by newlines: a string keeps the context comparable.
	drained string
	// borrow is, for over_quota, the idle slots the job could borrow if
	// preemptible once the pass's plan holds what it placed
	// (sched.Plan.BorrowIdle): the message's advice.
	borrow int
	// noneUp marks a no_nodes job whose pool has no node up at all, and
	// gone names the pool's nodes that left or are lost ("n1 (left)",
	// comma-separated): its message says that, not that no node can hold
	// its task (noNodeUpMessage).
	noneUp bool
	gone   string
	// zeroFull is a zero_slot_full job's message, with the limit and the
	// jobs holding it (sched.ZeroSlotHolders), which the view's snapshot
	// of a few names cannot give: at most one job of a pool a pass.
	zeroFull string
	// checkpointing is a checkpointing job's message, which names the
	// jobs resized or moved for it (sched.CheckpointingMessage) from the
	// pass's plan and allocations, which the view's snapshot has not.
	checkpointing string
	// capped is a max_concurrent job's message where the job file names
	// its cap otherwise (cappedMessage); "" keeps the core's.
	capped string
	// growsFirst is what a reserved job's message adds where running
	// elastic jobs that outrank it grow first (growNotes.note).
	growsFirst string
	// preempt is what the message of a job that its pool's rule may
	// preempt for, but that waits for running jobs the rule keeps, adds
	// (preemptNotes.note); "" for the others.
	preempt string
	// down is the message of a job that waits on its pool's lost or
	// left nodes (downView.message); "" keeps the core's.
	down string
	// away is the message of a no_nodes job that only its pool's lost
	// or left nodes could hold (awayView.message): its code is then
	// nodes_down; "" keeps the core's.
	away string
	// awayNever is the message of a no_nodes or gpu_type job too big for
	// its pool even with the lost or left nodes back, their slots
	// counted (awayView.messages); "" keeps the core's.
	awayNever string
	// limitNever is the message of a project_limit job whose task is
	// larger than its project's limit (sched.Snapshot.LimitNeverMessage),
	// which the view's snapshot has no projects to give; "" keeps the
	// core's.
	limitNever string
}
