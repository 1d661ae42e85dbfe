package master

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/store"
)

// Dry runs. POST /jobs?dry_run=true (allot submit --dry-run) judges a job
// file exactly as a submission is judged (judge: the file, the pool and
// project, the right to submit, feasibility on the nodes registered now)
// and answers what would happen, storing nothing: no job, no task, no
// audit entry (a dry run changes no state, and the audit log records
// changes; a refusal is the submission's error, unaudited as well). An
// accepted job is placed, as if submitted now, into a copy of the last
// pass's snapshot, and the instant its submission sets off is settled on
// the copy by the live master's settle loop (drysettle.go): whether it
// would start, the preemptions made for it, and the reason the last pass
// gives it to wait; the forecast that gives waiting jobs their estimated
// start (eta.go) gives its own from the settled copy, and explain's
// counterfactual (explaincounterfactual.go) says what would let it start.
// Its place in the queue is its turn in the settled instant's last pass
// (sched.Pending.Turn), as Job.Position is once it is submitted. mu is held only to copy the snapshot.

// DryRunParam is the submit query parameter that judges a job without
// submitting it.
const DryRunParam = "dry_run"

// dryRunID stands for the job in the what-if snapshot: no stored job has
// it (ids start at 1), so a blocker named by id is never the job itself.
const dryRunID = "0"

// submission is a job file judged fit to submit: the record to store, its
// parsed file and tasks, and an adaptive search's state.
type submission struct {
	rec    store.Job
	spec   *jobfile.Job
	tasks  []jobfile.Task
	search *searcher.Search
}

// judge checks a job file as a submission of p's would be checked, and
// returns what Submit stores, or the error the submission gets.
func (ja jobDryRun) judge(p auth.Principal, data []byte, opt SubmitOptions) (submission, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return submission{}, badRequest("", "empty request body: expected a job file as a JSON object")
	}
	spec, err := jobfile.ParseJSON("request body", data)
	if err != nil {
		var fe *jobfile.Error
		field := ""
		if errors.As(err, &fe) {
			field = errorField(fe)
		}
		return submission{}, badRequest(field, "%v", err)
	}
	rec, err := ja.jobRecord(spec, p, data)
	if err != nil {
		return submission{}, alsoNeedsRole(err, p, spec.Project)
	}
	if err := p.CanSubmit(rec.Project); err != nil {
		// The refusal names the field, so that the CLI points at the
		// file's project: line or the -A flag that set it.
		return submission{}, &httpError{status: http.StatusForbidden, field: "project", msg: err.Error()}
	}
	capped, ok, err := capDefaultPriority(ja.m.Config(), p, rec.Project, data)
	if err != nil {
		return submission{}, err
	}
	if ok {
		return ja.judge(p, capped, opt) // once: it names its class now
	}
	if err := checkFilePriorityCap(ja.m.Config(), p, rec.Project, spec, data); err != nil {
		return submission{}, err
	}
	specTasks, err := spec.Tasks()
	if err != nil {
		return submission{}, badRequest("hyperparameters", "%v", err)
	}
	var search *searcher.Search
	if spec.Searcher.Adaptive() {
		if search, err = searcher.New(spec.Searcher.SearchConfig()); err != nil {
			return submission{}, badRequest("searcher", "%v", err)
		}
	}
	if !opt.AllowInfeasible {
		if err := ja.checkFeasible(rec, &mjob{rec: rec, spec: specOf(spec.Kind, spec.Resources)}); err != nil {
			return submission{}, err
		}
	}
	return submission{rec: rec, spec: spec, tasks: specTasks, search: search}, nil
}

// DryRun judges a job file as Submit does and says what a submission of
// it now would get, changing nothing; its errors are Submit's.
func (ja jobDryRun) DryRun(p auth.Principal, data []byte, opt SubmitOptions) (api.DryRun, error) {
	sub, err := ja.judge(p, data, opt)
	if err != nil {
		return api.DryRun{}, err
	}
	now := ja.m.now().UTC().Truncate(time.Second)
	sub.rec.SubmittedAt = now
	out := api.DryRun{Accepted: true, Name: sub.rec.Name, Pool: sub.rec.Pool, Project: sub.rec.Project,
		User: sub.rec.User, Tasks: len(sub.tasks), Slots: sub.rec.Slots, AsOf: now,
		TimeLimitS: int64(sub.rec.TimeLimit / time.Second)}
	w := ja.whatIf(sub, now)
	out.StartsNow = w.startsNow
	if w.pending != nil {
		out.Pending = w.pending.viewAt(now)
		ja.estimate(out.Pending, w)
	}
	// What would let it start now is for a job that would wait: one that
	// preempts its way in waits only for its victims' checkpoints.
	if !out.StartsNow && w.ji >= 0 && len(w.victims) == 0 && len(w.resizes) == 0 {
		out.WouldStart = w.wouldStart(ja.m.pub.reads(), &sub.rec)
	}
	v := ja.m.pub.reads()
	out.Preempts = named(v, w.victims, func(x *api.DryRunVictim) (int64, *string, *string) { return x.Job, &x.Name, &x.User })
	out.Resizes = named(v, w.resizes, func(x *api.DryRunResize) (int64, *string, *string) { return x.Job, &x.Name, &x.User })
	if w.pending != nil && w.pending.p.Turn > 0 {
		// Its turn in the settled instant's last pass: the position the
		// live master gives it once submitted, in every policy's order.
		out.Position, out.Queued = int(w.pending.p.Turn), w.others
	} else {
		out.Position, out.Queued = ja.placeIn(sub.rec, w.mf)
	}
	out.Summary = dryRunSummary(out)
	return out, nil
}

// dryPlan is what the core made of the job in the what-if snapshot.
type dryPlan struct {
	startsNow bool
	pending   *pendingInfo
	victims   []api.DryRunVictim // the jobs its pass preempts for it
	resizes   []api.DryRunResize // the tasks its passes shrink for it
	mf        float64            // its multifactor priority, 0 when the pass gives none
	others    int                // the other jobs its pool's last pass left waiting
	// snap is the what-if snapshot, the job at ji, for the forecast;
	// scale is the typical share of their limits that runs use.
	snap  sched.Snapshot
	ji    int
	scale float64
	// cfg is the configuration the snapshot's pools were made from.
	cfg *config.Config
	// resized is drySettling.resized, for the counterfactual.
	resized map[int]api.SlotChange
}

// wouldStart is explain's counterfactual of the job (cfFacts) on the
// state its settling left, its other jobs named from read view v and
// the job itself by rec.
func (w *dryPlan) wouldStart(v *readView, rec *store.Job) *api.Counterfactual {
	f := &cfFacts{s: &w.snap, cfg: w.cfg, resized: w.resized, rec: func(ji int) *store.Job {
		if ji == w.ji {
			return rec
		}
		if ji < 0 || ji >= len(w.snap.Jobs) {
			return nil
		}
		id, err := strconv.ParseInt(w.snap.Jobs[ji].ID, 10, 64)
		if err != nil {
			return nil
		}
		if j := v.job(id); j != nil {
			return &j.rec
		}
		return nil
	}}
	cf := f.counterfactual(w.ji)
	return f.playAhead(w.ji, cf, f.ask)
}

// whatIf places the job into a copy of the last pass's snapshot, as if
// submitted at now, and settles the instant on it as the live master
// would (drySettling, by lifecycle's Settler), outside mu.
func (ja jobDryRun) whatIf(sub submission, now time.Time) *dryPlan {
	j := newJob(sub.rec)
	j.spec = specOf(sub.spec.Kind, sub.spec.Resources)
	// Its tasks, for the entry's count (max_concurrent's cap is at most
	// the tasks): stand-ins that nothing else reads.
	j.tasks = make([]*mtask, len(sub.tasks))
	for i := range j.tasks {
		j.tasks[i] = &mtask{job: j}
	}
	pl := ja.m.planner
	ja.m.lock()
	// snapJob reads the planner's view of the snapshot's pools and
	// projects; a job it leaves out gets the master's own reason on j,
	// which nobody else sees.
	e, ok := pl.snapJob(j)
	var d *drySettling
	if ok {
		// Submitted now, it comes after every stored job submitted in
		// the same second, as its id, the next, would put it.
		e.ID, e.Seq, e.Waiting = dryRunID, math.MaxInt64, len(sub.tasks)
		d = newDrySettling(pl, e)
		if e.Account < 0 && ja.m.cfg.ProjectIndex(sub.rec.Project) >= 0 {
			// The user's first job in the project: the submission makes
			// its fair-share leaf before the pass; the copy gets it alone.
			d.snap.Jobs[d.ji].Account = ja.m.fair.leafIn(&d.snap, ja.m.cfg, sub.rec.Project, sub.rec.User)
		}
	}
	scale, cfg := pl.runs.typical(), ja.m.cfg
	ja.m.unlock()
	if !ok {
		return &dryPlan{pending: j.pending, ji: -1}
	}
	d.snap.Now = max(d.snap.Now, now.Unix())
	w := &dryPlan{ji: d.ji, scale: scale, cfg: cfg}
	var sc sched.Scheduler
	settler := lifecycle.Settler{MaxPasses: maxPasses}
	_, err := settler.Settle(d, &sc, true)
	w.snap, w.startsNow, w.victims = d.snap, d.started(), d.victims
	w.resizes, w.resized = d.resizes, d.resized
	switch {
	case w.startsNow:
		// A pass's error after the start would leave it started, as
		// the live settling leaves what its passes applied.
	case err != nil:
		// The live settling would fail the same way.
		w.pending = &pendingInfo{code: "schedule_error", msg: err.Error()}
	default:
		// The preemptions the passes made are under way by the
		// estimate, as on the live snapshot that follows them: their
		// slots count as freed (sched.Forecast), so a job that preempts
		// its way in is not told it waits behind its own victims.
		w.pending, w.mf, w.others = d.pending, d.mf, d.others
	}
	return w
}

// addVictim counts preemption p, for the dry run's job, against its
// victim's job in vs.
func addVictim(vs []api.DryRunVictim, s *sched.Snapshot, p sched.Preemption) []api.DryRunVictim {
	a := &s.Allocs[p.Alloc]
	if a.Job < 0 || a.Job >= len(s.Jobs) {
		return vs
	}
	id, err := strconv.ParseInt(s.Jobs[a.Job].ID, 10, 64)
	if err != nil {
		return vs
	}
	i := slices.IndexFunc(vs, func(v api.DryRunVictim) bool { return v.Job == id })
	if i < 0 {
		lead, why, _ := preemptionAccount(s, p, "the submitted job")
		if why == "" {
			why = lead
		}
		vs = append(vs, api.DryRunVictim{Job: id, Why: why})
		i = len(vs) - 1
	}
	vs[i].Tasks++
	vs[i].Slots += sched.Slots(a.Nodes)
	return vs
}

// named gives the dry run's victims or resized tasks (items, whose job,
// name and user ref gives) their jobs' names and users, from read view v
// (a job that ended since keeps neither).
func named[T any](v *readView, items []T, ref func(*T) (job int64, name, user *string)) []T {
	if len(items) == 0 {
		return nil
	}
	for i := range items {
		id, name, user := ref(&items[i])
		if j := v.job(id); j != nil {
			*name, *user = j.rec.Name, j.rec.User
		}
	}
	return items
}

// estimate gives a waiting job's pending the start a submission would
// be shown: the reservation's, else the forecast's, with its range, as
// jobView gives a queued job's (views.go).
func (ja jobDryRun) estimate(v *api.Pending, w *dryPlan) {
	if v.EstimatedStart != nil {
		v.EstimateBasis = "reservation"
		return
	}
	if w.ji < 0 {
		return
	}
	late, ok := sched.Forecast(&w.snap)[w.ji]
	if !ok {
		return
	}
	at := time.Unix(late, 0).UTC()
	v.EstimatedStart, v.EstimateBasis = &at, "forecast"
	if w.scale > 0 && w.scale < 1 {
		if early, ok := sched.ForecastScaled(&w.snap, w.scale)[w.ji]; ok && early < late {
			t := time.Unix(early, 0).UTC()
			v.EstimatedStartEarliest = &t
		}
	}
}

// placeIn counts the jobs waiting in rec's pool now, from the read view,
// and the place rec would take among them by the pool's order (mf is its
// multifactor priority): for a job that would start now, which the last
// pass gave no turn.
func (ja jobDryRun) placeIn(rec store.Job, mf float64) (position, queued int) {
	v := ja.m.pub.reads()
	pi := v.cfg.PoolIndex(rec.Pool)
	if pi < 0 {
		return 0, 0
	}
	order := queueOrder(v.cfg.Pools[pi].Policy)
	// Submitted now, it comes after every job of the same rank.
	me := queueFacts{mf: mf, priority: rec.Priority, submitted: rec.SubmittedAt, id: 1<<63 - 1}
	position = 1
	for o := range v.jobs.all() {
		if o.rec.Pool != rec.Pool || !o.waiting() {
			continue
		}
		queued++
		if order(o.facts(), me) < 0 {
			position++
		}
	}
	return position, queued
}

// dryRunSummary says a dry run's answer in a sentence or two.
func dryRunSummary(d api.DryRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "It would be accepted in pool %s as the %s of %d waiting.", d.Pool, ordinal(d.Position), d.Queued+1)
	switch {
	case d.StartsNow:
		b.WriteString(" It would start now.")
		if n := len(d.Preempts); n > 0 {
			fmt.Fprintf(&b, " For its other tasks it would preempt %s of %s, and start them once their checkpoints have landed.",
				plural.Count(preemptedTasks(d.Preempts), "task"), plural.Count(n, "running job"))
		}
	case len(d.Resizes) > 0 && len(d.Preempts) == 0:
		b.WriteString(resizeSummary(d))
	case len(d.Preempts) > 0:
		fmt.Fprintf(&b, " It would preempt %s of %s and start once their checkpoints have landed.",
			plural.Count(preemptedTasks(d.Preempts), "task"), plural.Count(len(d.Preempts), "running job"))
		if d.Pending != nil && d.Pending.Reason != sched.ReasonCheckpointing.String() {
			// The preemptions make room for some of its tasks; the
			// last pass says why the others wait.
			fmt.Fprintf(&b, " Its other tasks would wait: %s.", d.Pending.Message)
		}
		if d.Pending != nil && d.Pending.EstimatedStart != nil {
			b.WriteString(" Estimated start: " + estimateWords(d.Pending) + ".")
		}
	case d.Pending != nil:
		fmt.Fprintf(&b, " It would wait: %s.", d.Pending.Message)
		if d.Pending.EstimatedStart != nil {
			b.WriteString(" Estimated start: " + estimateWords(d.Pending) + ".")
		}
		if d.WouldStart != nil {
			b.WriteString(" " + d.WouldStart.Message)
		}
	}
	return b.String()
}

// estimateWords says a pending job's estimated start as allot explain's
// Start line does: both ends of a forecast's range where it has one,
// times as the tables write them, and its basis.
func estimateWords(p *api.Pending) string {
	at := msgTime(*p.EstimatedStart)
	if e := p.EstimatedStartEarliest; e != nil && e.Before(*p.EstimatedStart) {
		at = msgTime(*e) + " to " + at
	}
	return at + " (" + p.EstimateBasis + ")"
}

// preemptedTasks counts the tasks of vs.
func preemptedTasks(vs []api.DryRunVictim) int {
	n := 0
	for _, v := range vs {
		n += v.Tasks
	}
	return n
}

// alsoNeedsRole adds to a refusal of project by the configuration's
// users: section (a 403 on the project) that p lacks the role there too,
// when it does: adding the project to the user's list alone would not
// let the submission in, and the admin should learn both at once. It is
// a sentence of its own: the refusal before it is one already (trial
// 2026-11-29f: one 420-character sentence).
func alsoNeedsRole(err error, p auth.Principal, project string) error {
	var he *httpError
	if project == "" || !errors.As(err, &he) || he.status != http.StatusForbidden || he.field != "project" {
		return err
	}
	if rerr := p.CanSubmit(project); rerr != nil {
		return &httpError{status: he.status, field: he.field, msg: he.msg + ". Besides, " + rerr.Error(), also: he.also}
	}
	return err
}

// errorField is the field a job file's error names for the API's "field":
// its path, or for an unknown field, whose path is the object that holds
// it, that field itself ("bogus", "resources.slotz"), as decodeStrict
// names one in other bodies; the unknown field's 400 had no "field" at
// the top level (trial 2026-11-29d D9).
func errorField(fe *jobfile.Error) string {
	rest, ok := strings.CutPrefix(fe.Msg, `unknown field "`)
	end := strings.IndexByte(rest, '"')
	if !ok || end <= 0 {
		return fe.Path
	}
	name := rest[:end]
	if fe.Path == "" {
		return name
	}
	return fe.Path + "." + name
}
