package master

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Explanations. GET /jobs/{id}/explain answers, from the last scheduling
// pass's snapshot, the questions a waiting user asks: where the job stands
// in its pool's order and why, what held it back in the last pass, and a
// counterfactual: the least that would let it start now (which running
// jobs would have to end or be preempted, on which node; which quota
// binds; which constraint no node meets).

// maxAhead bounds the jobs ahead that an explanation lists.
const maxAhead = 5

func (ja *jobsAPI) handleExplain(w http.ResponseWriter, r *http.Request) {
	// The view's pending message counts from now (jobView), and so does
	// the summary that repeats it: as_of is that time.
	now := ja.asOf()
	view, atts, ok := ja.jobAttempts(w, r, now)
	if !ok {
		return
	}
	ja.notePreemptedElsewhereOf(r.Context(), &view) // readview_elsewhere.go
	ja.m.lock()
	x, ahead := ja.explain(view)
	planned := reservedAt(ja.m, view.ID) // explainplanned.go
	ja.m.unlock()
	if ahead != nil {
		// The passes of the play-out run on its copy, outside mu.
		x.WouldStart = ahead.run(ja.m.pub.reads())
	}
	x.WouldStart = planned.agree(x.WouldStart)
	x.AsOf = now
	x.NodeLost = lostReasonOf(ja.m.pub.reads(), view.ID)
	decided := ja.preemptReasons(r, view.ID, atts)
	starts := takerStarts{}
	var requeues []api.Preemption
	var requeuedCkpt store.Checkpoint // ckptwords.go
	for _, a := range atts {
		if a.EndState == store.AttemptLost {
			x.Lost = append(x.Lost, lostView(a)) // lostnote.go
		}
		if a.EndState != store.AttemptPreempted {
			continue
		}
		d, ok := decided[attemptKey{a.JobID, a.Index, a.Number}]
		if ok && d.Cause == store.CauseRequeued { // api_requeue.go
			requeuedCkpt = foldCheckpoint(requeuedCkpt, len(requeues) == 0, a.Checkpoint)
			requeues = append(requeues, requeuedView(a, d))
			continue
		}
		if rz, ok := resizedAttempt(a, d, atts); ok { // explainresize.go
			x.Resized = append(x.Resized, rz)
			continue
		}
		if fencedEnd(a, ok) { // explainfenced.go
			x.Fenced = append(x.Fenced, fencedView(a, atts))
			continue
		}
		if agentStoppedAttempt(a, d, ok) { // explainagentstop.go
			x.AgentStopped = append(x.AgentStopped, agentStoppedView(a))
			continue
		}
		why := a.Reason
		if ok && d.Reason != "" {
			why = preemptionWhy(ja.preemptRule(r, d, a, starts), a.Reason)
		}
		why += preemptedCheckpoint(a.Checkpoint) // ckptwords.go
		x.Preemptions = append(x.Preemptions, fmt.Sprintf("task %d attempt %d at %s: %s",
			a.Index, a.Number, a.EndedAt.UTC().Format(time.RFC3339), why))
		x.Preempted = append(x.Preempted, api.Preemption{Task: a.Index, Attempt: a.Number, At: a.EndedAt.UTC(), Why: why})
	}
	fencedMasterBack(r.Context(), ja.m, x.Fenced) // explainfenced.go
	x.Summary = summary(x, view.Tasks, runningSentence(view)) + requeuedSentence(requeues, requeuedCkpt)
	if ps := ja.m.passes.status(); ps.Failing {
		since := ps.Since.UTC()
		x.SchedulerError, x.SchedulerFailingSince = ps.Error, &since
		x.Summary = failingSentence(since, now) + " " + x.Summary
	}
	if st := ja.m.health.status(); !st.Up {
		since := st.Since.UTC()
		x.StoreUnavailableSince = &since
		x.Summary = pausedSentence(since, now) + " " + x.Summary
		ja.notePaused(w)
	}
	writeJSON(w, http.StatusOK, ja.redactorFor(r).explanation(x)) // redact.go
}

// pausedSentence warns, ahead of an explanation's summary, that the
// master's store is down: no pass runs until it is back (outageread.go).
func pausedSentence(since, now time.Time) string {
	return fmt.Sprintf("Scheduling is paused: the master's store has been unavailable since %s (%s ago), so no job starts "+
		"in any pool until it is back, whatever follows says (which is the last pass's).",
		since.Format(time.RFC3339), max(now.Sub(since), 0).Round(time.Second))
}

// failingSentence warns, ahead of an explanation's summary, that the
// scheduling passes fail: what the summary says of starting is then what
// the last successful pass found, and no job starts meanwhile.
func failingSentence(since, now time.Time) string {
	return fmt.Sprintf("No scheduling pass has succeeded since %s (%s ago), so no job starts in any pool until one does, "+
		"whatever follows says (scheduler_error has the failure; an admin sees it in /healthz and the master's log).",
		since.Format(time.RFC3339), max(now.Sub(since), 0).Round(time.Second))
}

// preemptRule is the rule that preempted attempt a, by its preempting
// event d, with what became of the job it was for when that job never
// used a's GPUs (preemptedby.go); without it when that cannot be read.
func (ja *jobsAPI) preemptRule(r *http.Request, d store.Event, a store.Attempt, starts takerStarts) string {
	if d.ForJob == 0 {
		return d.Reason
	}
	note, err := takerElsewhere(r.Context(), ja.m, d, storeGPUs(a.Placement), a.EndedAt, starts)
	if err != nil {
		ja.m.log.Warn("explain: reading the job a preemption was for", "job", a.JobID, "for", d.ForJob, "err", err)
	}
	if note == "" {
		return d.Reason
	}
	return whyFor(d.Reason, d.ForJob) + note
}

// preemptionWhy is a preempted attempt's account: the rule that chose
// it, then how the attempt ended (the agent's account, e.g. the signal
// that asked for the checkpoint), without the stored reason's own
// "preempted: ", which would say it twice (preemptReason).
func preemptionWhy(rule, ended string) string {
	if how := strings.TrimPrefix(ended, "preempted: "); how != "" {
		return rule + "; " + how
	}
	return rule
}

// preemptReasons reads why each of a job's preempted attempts was asked to
// stop, as the pass decided it (the preempting transition's event: its
// reason, by which job, under which rule, and its cause, which tells a
// resize apart); the attempt's own end reason is the agent's. Nil when
// the job has no preempted attempt; on a store error the explanation
// goes on with the end reasons alone.
func (ja *jobsAPI) preemptReasons(r *http.Request, job int64, atts []store.Attempt) map[attemptKey]store.Event {
	if !slices.ContainsFunc(atts, func(a store.Attempt) bool { return a.EndState == store.AttemptPreempted }) {
		return nil
	}
	evs, err := ja.m.st.Events(r.Context(), store.EventFilter{JobID: job, To: string(store.TaskPreempting)})
	if err != nil {
		ja.m.log.Warn("explain: reading the preemptions' reasons", "job", job, "err", err)
		return nil
	}
	out := make(map[attemptKey]store.Event, len(evs))
	for _, e := range evs {
		out[attemptKey{e.JobID, e.Index, e.Attempt}] = e
	}
	return out
}

// explain builds the explanation of a job from the last pass, and the
// play-out of its counterfactual where other jobs of its pool wait (nil
// where none does), for the caller to run outside mu. Callers hold mu.
func (ja *jobsAPI) explain(view api.Job) (api.Explanation, *aheadWork) {
	x := api.Explanation{Job: view.ID, State: view.State, Pool: view.Pool, Position: view.Position, Pending: view.Pending}
	pi := ja.m.cfg.PoolIndex(view.Pool)
	if pi >= 0 {
		x.Policy = string(ja.m.cfg.Pools[pi].Policy)
		x.Order = orderOf(ja.m.cfg.Pools[pi].Policy)
	}
	j := ja.m.jobs[view.ID]
	if j != nil && j.pending != nil && j.pending.ctx.preempt != "" && x.Pending != nil {
		// The listed reason's short preemption note: the explanation
		// says it in full below (preemptNote), not twice.
		pe := *x.Pending
		pe.Message = strings.TrimSuffix(pe.Message, j.pending.ctx.preempt)
		x.Pending = &pe
	}
	switch {
	case view.Resizing != nil:
		// What it holds and why it does not grow wait for the resize.
		x.Resizing = view.Resizing
	case view.Preempting != nil && view.Moving == nil:
		// It is stopping: nothing to say of its growth.
		x.Preempting = view.Preempting
	case j != nil && view.Position == 0 && view.State == string(store.JobRunning):
		x.Elastic = ja.elasticHold(j)
	}
	if j == nil || view.Position == 0 {
		return x, nil // not waiting: the summary says how it stands
	}
	x.Queued, x.Ahead = ja.ahead(j)
	ji := ja.m.planner.roster.index(j)
	if ji < 0 || ji >= len(ja.m.planner.snap.Jobs) {
		return x, nil
	}
	if pi >= 0 && ja.m.cfg.Pools[pi].Policy == sched.PolicyMultifactor {
		if fs, err := sched.PriorityFactors(&ja.m.planner.snap); err == nil && ji < len(fs) {
			f := fs[ji]
			x.Factors = &api.Factors{Age: f.Age, FairShare: f.FairShare, JobSize: f.JobSize, QOS: f.QOS, Pool: f.Pool,
				Nice: f.Nice, Priority: f.Priority}
			x.FairShareNote = fairShareNote(&ja.m.planner.snap, ji, ja.m.cfg) // explainfair.go
		}
	}
	f := liveFacts(ja.m, ji)
	x.WouldStart = f.counterfactual(ji)
	if !needsPlay(f.s, ji, f.ask) {
		return x, nil
	}
	snap := copySnapshot(&ja.m.planner.snap)
	return x, &aheadWork{s: &snap, cfg: ja.m.cfg, ji: ji, cf: x.WouldStart, ask: f.ask, resized: f.resized}
}

// ahead counts the jobs waiting in j's pool and lists the first ones ranked
// before it, by the positions that jobs' views show (readView.positions):
// in a quota pool the rounds' order, not priority alone.
func (ja *jobsAPI) ahead(j *mjob) (int, []api.JobRef) {
	v := ja.m.pub.reads()
	ranks := v.positions()
	var queue []*jobRead
	for o := range v.jobs.all() {
		if o.rec.Pool == j.rec.Pool && ranks[o.rec.ID] > 0 {
			queue = append(queue, o)
		}
	}
	slices.SortFunc(queue, func(a, b *jobRead) int { return ranks[a.rec.ID] - ranks[b.rec.ID] })
	var out []api.JobRef
	for _, o := range queue {
		if o.rec.ID == j.rec.ID || len(out) == maxAhead {
			break
		}
		out = append(out, api.JobRef{ID: o.rec.ID, Name: o.rec.Name, User: o.rec.User, Project: o.rec.Project, Slots: o.rec.Slots})
	}
	return len(queue), out
}

// orderOf says in words how a policy ranks its queue.
func orderOf(p sched.Policy) string {
	switch p {
	case sched.PolicyFIFO:
		return "first come, first served"
	case sched.PolicyBackfill:
		return "first come, first served; later jobs may start early on slots that delay no reservation"
	case sched.PolicyPriority:
		return "by priority (the lower number first), then by submission"
	case sched.PolicyQuota:
		return "by priority within each project; projects under their quota before those over it"
	case sched.PolicyFairShare:
		return "the job furthest below its fair share (demand × weight) first, then by submission"
	case sched.PolicyMultifactor:
		// The factors named as the dashboard's QOS and nice form and
		// allot jobs' note name them (trial 2026-11-29j J7).
		return "by multifactor priority (age, fair share, job size, QOS, pool, less nice), highest first"
	}
	return string(p)
}

func slotWord(n int) string { return plural.Count(n, "slot") }

// saidBelow reports whether the summary leaves counterfactual cf's
// message to "What would let it start now", which says it in full: with
// no running job that must end but jobs the pool serves first ("No
// running job's end alone would start it now: ..."), allot explain
// prints the message there, with the jobs served first, and the
// dashboard its would_start section; the summary said it a second time,
// word for word (trial 2026-11-29i I10, as 256c10c1 did for the
// preemption note). So for a job its own cap holds (cf.Limit: "It runs
// as many trials as its max_concurrent_trials (4) allows ..."), which
// the dashboard's section printed a second time (trial 2026-11-29j J2).
func saidBelow(cf *api.Counterfactual) bool {
	if cf.Limit != "" && cf.Never == "" {
		return true
	}
	return len(cf.MustEnd) == 0 && len(cf.StartFirst) > 0 && cf.Never == ""
}

// summary says the explanation of a job of tasks tasks in a few
// sentences; running is runningSentence's, for a running job.
func summary(x api.Explanation, tasks int, running string) string {
	var b strings.Builder
	switch {
	case x.Pending != nil && x.Pending.Reason == lifecycle.ReasonHeld:
		fmt.Fprintf(&b, "It is %s: no scheduling pass considers it until it is released, and it keeps its place by age.",
			x.Pending.Message)
	case x.Position == 0 && x.State == "running":
		b.WriteString("It is running.")
		if x.Resizing != nil {
			b.WriteString(" " + resizingSentence(x.Resizing, tasks))
		}
		if x.Preempting != nil {
			b.WriteString(" " + preemptingSentence(x.Preempting, tasks))
		}
		if x.Elastic != nil {
			b.WriteString(" " + x.Elastic.Why)
		}
		if x.NodeLost != "" {
			fmt.Fprintf(&b, " But %s.", x.NodeLost)
		}
		if running != "" {
			b.WriteString(" " + running)
		}
	case x.Position == 0:
		fmt.Fprintf(&b, "%s and waits for nothing.", stateSentence(x.State))
	default:
		fmt.Fprintf(&b, "It is %s of %d waiting in pool %s, which orders its queue %s.",
			ordinal(x.Position), x.Queued, x.Pool, x.Order)
		never := x.WouldStart != nil && x.WouldStart.Never != ""
		if never {
			// Nothing the last pass said (a quota, say) matters before this.
			b.WriteString(" " + x.WouldStart.Message)
		}
		if len(x.Ahead) > 0 {
			var ids []string
			for _, a := range x.Ahead {
				ids = append(ids, "job "+strconv.FormatInt(a.ID, 10))
			}
			fmt.Fprintf(&b, " Ahead of it: %s.", strings.Join(ids, ", "))
		}
		// A task over its project's limit: the last pass's reason is the
		// never sentence again (trial 2026-11-29f F3), said once above.
		if x.Pending != nil && !(never && x.Pending.Reason == sched.ReasonLimit.String()) {
			fmt.Fprintf(&b, " In the last pass: %s.", x.Pending.Message)
			if x.Pending.BlockedBy != 0 {
				fmt.Fprintf(&b, " Job %d holds it back.", x.Pending.BlockedBy)
			}
		}
		if x.WouldStart != nil && !never && !restatesPending(x) && !saidBelow(x.WouldStart) {
			b.WriteString(" " + x.WouldStart.Message)
		}
	}
	if s := interruptedSentence(x); s != "" { // explainlost.go
		b.WriteString(" " + s)
	}
	if len(x.Resized) > 0 {
		b.WriteString(" " + resizedSentence(x.Resized))
	}
	if s := fencedSentence(x.Fenced); s != "" {
		b.WriteString(" " + s)
	}
	if s := agentStoppedSentence(x.AgentStopped); s != "" {
		b.WriteString(" " + s)
	}
	return b.String()
}

// preemptedSentence counts a job's preempted attempts by task, so that
// four tasks preempted once each do not read as one job preempted four
// times: "Its task 0 was preempted twice.", "3 of its tasks were
// preempted, once each.", "2 of its tasks were preempted, 5 times in
// all." A master's lines alone (no Preempted) count as attempts.
func preemptedSentence(x api.Explanation) string {
	n := len(x.Preemptions)
	tasks := map[int]bool{}
	for _, p := range x.Preempted {
		tasks[p.Task] = true
	}
	switch {
	case len(tasks) == 1:
		return fmt.Sprintf("Its task %d was preempted %s.", x.Preempted[0].Task, plural.Times(n))
	case len(tasks) == n:
		return fmt.Sprintf("%d of its tasks were preempted, once each.", n)
	case len(tasks) > 1:
		return fmt.Sprintf("%d of its tasks were preempted, %s in all.", len(tasks), plural.Times(n))
	}
	return fmt.Sprintf("Its tasks were preempted %s in all.", plural.Times(n))
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
