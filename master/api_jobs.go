package master

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/jobfile"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// jobsAPI serves the jobs under /api/v1/jobs: submission (with its
// feasibility check), listing and paging, a job's views, changes and
// kill, its logs, its explanation and its search's metrics. It holds no
// state: it changes the mirror under Master.mu (taken through lock), and
// lists and shows jobs from the read view without mu (readview.go); a
// submission stores its job first and queues it for the mirror without
// mu (submit.go), and the feasibility view is published for readers
// without mu (feasible.go).
type jobsAPI struct {
	server
	// The parts for a job's logs, its metrics and GET /jobs's query; named
	// fields, so that their methods stay out of jobsAPI's method set.
	logs    jobLogs
	metrics jobMetrics
	query   jobsQuery
	// holds serves a job's hold and release (api_hold.go) and dry its
	// dry run, a submission's judgement included (dryrun.go): parts over
	// the jobs' API itself, as they use its lookups.
	holds    jobHolds
	dry      jobDryRun
	requeues jobRequeues // api_requeue.go
}

// jobHolds, jobDryRun and jobRequeues are parts of the jobs' API
// (jobsAPI.holds, jobsAPI.dry, jobsAPI.requeues) with its lookups.
type (
	jobHolds    struct{ *jobsAPI }
	jobDryRun   struct{ *jobsAPI }
	jobRequeues struct{ *jobsAPI }
)

// newJobsAPI returns the jobs' API over m, with its parts.
func newJobsAPI(m *Master) *jobsAPI {
	s := server{m}
	ja := &jobsAPI{server: s, logs: jobLogs{s}, metrics: jobMetrics{s}, query: jobsQuery{s}}
	ja.holds, ja.dry, ja.requeues = jobHolds{ja}, jobDryRun{ja}, jobRequeues{ja}
	return ja
}

func (ja *jobsAPI) handleSubmit(w http.ResponseWriter, r *http.Request) {
	data, err := readBody(w, r)
	if err != nil {
		ja.fail(w, err)
		return
	}
	p := principalOf(r)
	if p.User == "" {
		ja.m.access.refuse(w, r, &auth.Error{Status: http.StatusForbidden, Msg: "only users submit jobs"})
		return
	}
	if h := r.Header.Get(UserHeader); h != "" && h != p.User {
		ja.m.access.refuse(w, r, &auth.Error{Status: http.StatusForbidden,
			Msg: fmt.Sprintf("%s: a job's user is the user of the API token (%s), not %q", UserHeader, p.User, h)})
		return
	}
	allow, err := boolParam(r, AllowInfeasibleParam)
	if err != nil {
		ja.fail(w, err)
		return
	}
	dry, err := boolParam(r, DryRunParam)
	if err != nil {
		ja.fail(w, err)
		return
	}
	if dry {
		d, err := ja.dry.DryRun(p, data, SubmitOptions{AllowInfeasible: allow})
		if err != nil {
			ja.m.access.deny(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, ja.redactorFor(r).dryRun(d))
		return
	}
	held, err := boolParam(r, HoldParam)
	if err != nil {
		ja.fail(w, err)
		return
	}
	job, tasks, err := ja.Submit(r.Context(), p, data, SubmitOptions{AllowInfeasible: allow, Hold: held})
	if err != nil {
		ja.m.access.deny(w, r, err)
		return
	}
	noteAuditTarget(r.Context(), "job "+strconv.FormatInt(job.ID, 10))
	noteAudit(r.Context(), "%s", submitDetail(job, tasks))
	writeJSON(w, http.StatusCreated, api.SubmitReply{ID: job.ID, Tasks: tasks})
}

// UserHeader once named the submitting user; a request may still send it,
// but only with the authenticated user's name.
const UserHeader = "X-Allot-User"

// SubmitOptions change how Submit judges a job.
type SubmitOptions struct {
	// AllowInfeasible keeps a job that no node registered now could ever
	// run (feasible.go), instead of refusing it with 422.
	AllowInfeasible bool
	// Hold submits the job held (allot submit --hold, sbatch -H): it is
	// stored held by its user in the transaction that creates it, and
	// waits for a release (api_hold.go).
	Hold bool
}

// HoldParam is the submission's query parameter that submits a job held
// (SubmitOptions.Hold).
const HoldParam = "hold"

// boolParam reads an optional true/false query parameter.
func boolParam(r *http.Request, name string) (bool, error) {
	switch v := r.URL.Query().Get(name); v {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	default:
		return false, badRequest(name, "%s=%q: expected true or false", name, v)
	}
}

// Submit creates a job of p's user from a job file given as JSON, with
// all its tasks in one transaction, and returns it with its number of
// tasks. p must be allowed to submit to the job's project. Errors in the
// file are *httpError values naming the field; a job that could never
// run is refused with 422 unless opt allows it.
func (ja *jobsAPI) Submit(ctx context.Context, p auth.Principal, data []byte, opt SubmitOptions) (store.Job, int, error) {
	sub, err := ja.dry.judge(p, data, opt)
	if err != nil {
		return store.Job{}, 0, err
	}
	rec, spec, specTasks, search := sub.rec, sub.spec, sub.tasks, sub.search
	tasks := make([]store.Task, len(specTasks))
	for i, t := range specTasks {
		tasks[i] = store.Task{Hyperparameters: t.Hyperparameters}
	}
	rec.SubmittedAt = ja.m.now()
	created, err := ja.create(ctx, rec, tasks, opt.Hold)
	if err != nil {
		if errors.Is(err, store.ErrInvalid) {
			return store.Job{}, 0, badRequest("", "%v", err)
		}
		return store.Job{}, 0, err
	}
	j := newJob(created)
	j.spec = specOf(spec.Kind, spec.Resources)
	j.spec.podSpec = spec.PodSpec
	j.search = search
	for i, t := range tasks {
		j.tasks = append(j.tasks, &mtask{job: j, rec: store.Task{JobID: created.ID, Index: i, State: store.TaskQueued,
			Hyperparameters: t.Hyperparameters, UpdatedAt: created.SubmittedAt}})
	}
	j.count.Add(store.TaskQueued, len(tasks))
	ja.m.queueJob(j)
	ja.m.metric.submissions.Inc()
	ja.m.log.Info("job submitted", "job", created.ID, "name", created.Name, "pool", created.Pool,
		"project", created.Project, "tasks", len(tasks), "slots", created.Slots)
	return created, len(tasks), nil
}

// create stores a job and its tasks, held by its user when hold is set:
// both in one transaction, so that no pass sees the job unheld.
func (ja *jobsAPI) create(ctx context.Context, rec store.Job, tasks []store.Task, hold bool) (store.Job, error) {
	if !hold {
		return ja.m.st.CreateJob(ctx, rec, tasks)
	}
	var created store.Job
	err := ja.m.st.Update(ctx, func(tx store.Tx) error {
		c, err := tx.CreateJob(ctx, rec, tasks)
		if err != nil {
			return err
		}
		created, err = tx.HoldJob(ctx, store.JobHold{ID: c.ID, Hold: true, By: rec.User, At: rec.SubmittedAt,
			Reason: "submitted held"})
		return err
	})
	return created, err
}

// jobRecord turns a parsed job file of p's into a store record,
// resolving the pool and project against the configuration: the default
// pool, and the user's or the configuration's default project. The
// errors of its names come together (resolveNames).
func (ja *jobsAPI) jobRecord(spec *jobfile.Job, p auth.Principal, data []byte) (store.Job, error) {
	user := p.User
	pool, project, err := resolveNames(ja.m.Config(), spec, p) // fielderrors.go
	if err != nil {
		return store.Job{}, err
	}
	maxConc := 0
	if spec.Searcher != nil {
		maxConc = spec.Searcher.MaxConcurrentTrials
	}
	return store.Job{
		Name:          spec.Name,
		Kind:          store.Kind(spec.Kind),
		Project:       project,
		User:          user,
		Pool:          pool,
		Priority:      spec.Resources.Priority,
		PriorityClass: string(spec.Resources.PriorityClass),
		Weight:        spec.Resources.Weight,
		Preemptible:   spec.Resources.Preemptible,
		Slots:         spec.Resources.Slots,
		MaxConcurrent: maxConc,
		MaxSlots:      spec.Resources.MaxSlots,
		TimeLimit:     time.Duration(spec.Resources.TimeLimit) * time.Second,
		Entrypoint:    spec.Entrypoint,
		Environment:   spec.Environment,
		Spec:          bytes.TrimSpace(data),
	}, nil
}

var jobStates = []store.JobState{store.JobQueued, store.JobRunning, store.JobCompleted, store.JobFailed, store.JobKilled}

func (ja *jobsAPI) handleListJobs(w http.ResponseWriter, r *http.Request) {
	sel, err := ja.query.read(r.Context(), r)
	if err != nil {
		ja.fail(w, err)
		return
	}
	pg, err := pageQuery(r, "jobs")
	if err != nil {
		ja.fail(w, err)
		return
	}
	if pg != nil {
		page, missing, err := ja.jobsPage(r.Context(), principalOf(r), sel, *pg)
		if err != nil {
			ja.fail(w, err)
			return
		}
		if missing {
			ja.notePartial(w, partialEnded) // outageread.go
		}
		ja.notePreemptedElsewhere(r.Context(), page.Jobs) // readview_elsewhere.go
		ja.redactorFor(r).jobs(page.Jobs)                 // redact.go
		ja.notePaused(w)                                  // outageread.go
		writeJSON(w, http.StatusOK, page)
		return
	}
	out := ja.liveJobs(sel)
	ja.notePreemptedElsewhere(r.Context(), out) // readview_elsewhere.go
	// An ended job has no task on any node, so --node lists live jobs only.
	if tf, ok := endedFilter(sel.f); ok && sel.node == "" {
		tf.Projects, tf.OrUser = visibleTo(principalOf(r))
		ended, err := ja.storedJobs(r.Context(), tf, sel.under)
		if err != nil && !ja.partial(w, err, partialEnded) { // outageread.go
			ja.fail(w, err)
			return
		}
		seen := map[int64]bool{}
		for _, j := range out {
			seen[j.ID] = true
		}
		for _, rec := range ended {
			if !seen[rec.ID] {
				out = append(out, ja.storedJobView(rec))
			}
		}
	}
	ja.notePaused(w)
	writeJSON(w, http.StatusOK, ja.redactorFor(r).jobs(readable(principalOf(r), out)))
}

// endedFilter narrows f to the terminal states it selects; ok is false
// when it selects none, so that the store need not be asked.
func endedFilter(f store.JobFilter) (store.JobFilter, bool) {
	terminal := []store.JobState{store.JobCompleted, store.JobFailed, store.JobKilled}
	if len(f.States) == 0 {
		f.States = terminal
		return f, true
	}
	var keep []store.JobState
	for _, s := range f.States {
		if s.Terminal() {
			keep = append(keep, s)
		}
	}
	f.States = keep
	return f, len(keep) > 0
}

// readable keeps the jobs that p may read.
func readable(p auth.Principal, jobs []api.Job) []api.Job {
	if _, all := p.Projects(); all {
		return jobs
	}
	out := jobs[:0]
	for _, j := range jobs {
		if p.CanRead(j.Project, j.User) == nil {
			out = append(out, j)
		}
	}
	return out
}

// visibleTo returns a store filter's projects and owner for what p may
// read; nil projects mean every project.
func visibleTo(p auth.Principal) ([]string, string) {
	projects, all := p.Projects()
	if all {
		return nil, ""
	}
	if projects == nil {
		projects = []string{}
	}
	return projects, p.User
}

// liveJobs lists the live jobs that sel selects (with a task on its node
// when it names one), in scheduling order: by pool in configuration
// order, then as each pool's policy ranks them (where the queue is not a
// key, keyedQueue, the waiting jobs by their positions, before the
// others). It reads the published view (readview.go), so it does not
// wait for a batch's commit.
func (ja *jobsAPI) liveJobs(sel jobsSel) []api.Job {
	v, now := ja.m.pub.reads(), ja.asOf()
	poolAt := map[string]int{}
	for i, p := range v.cfg.Pools {
		poolAt[p.Name] = i
	}
	var jobs []*jobRead
	for j := range v.jobs.all() {
		if sel.matches(j) && (sel.node == "" || j.on(v, sel.node)) {
			jobs = append(jobs, j)
		}
	}
	ranks := v.positions()
	slices.SortFunc(jobs, func(a, b *jobRead) int {
		pa, oka := poolAt[a.rec.Pool]
		pb, okb := poolAt[b.rec.Pool]
		if !oka {
			pa = len(poolAt)
		}
		if !okb {
			pb = len(poolAt)
		}
		if pa != pb {
			return pa - pb
		}
		policy := v.cfg.Pools[min(pa, len(v.cfg.Pools)-1)].Policy
		if !keyedQueue(policy) {
			// Its queue is the core's turns, not a key: the waiting jobs
			// by their positions, the others after them.
			if c := byTurn(ranks[a.rec.ID], ranks[b.rec.ID]); c != 0 {
				return c
			}
		}
		return queueOrder(policy)(a.facts(), b.facts())
	})
	out := make([]api.Job, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, ja.jobView(v, j, now))
	}
	return out
}

// keyedQueue reports a policy whose queue the core sorts by a key of the
// jobs' own records (FIFO, backfill, priority: queueOrder's), so that the
// list may sort running and waiting jobs by it alike and still show the
// waiting ones in the order of their positions (but for zero-slot jobs,
// which the core tries after the others). Quota rounds, fair share
// and multifactor order by what only the pass knows (standings, shares,
// computed priorities): there the list follows the positions.
func keyedQueue(p sched.Policy) bool {
	return p == sched.PolicyFIFO || p == sched.PolicyBackfill || p == sched.PolicyPriority
}

// on reports whether one of the job's open attempts has a part on node,
// a node of v.
func (j *jobRead) on(v *readView, node string) bool {
	_, ok := slices.BinarySearch(j.nodes, node)
	return ok && v.node(node) != nil
}

func (ja *jobsAPI) handleGetJob(w http.ResponseWriter, r *http.Request) {
	view, tasks, atts, ok := ja.jobRecords(w, r, ja.asOf())
	if !ok {
		return
	}
	view.TaskList = taskViews(tasks, atts)
	ja.notePreemptedElsewhereOf(r.Context(), &view) // readview_elsewhere.go
	if err := ja.preemptedBy(r.Context(), &view); err != nil && !ja.partial(w, err, partialJob) {
		ja.fail(w, err)
		return
	}
	reads := ja.m.pub.reads()
	noteDoneParts(reads, &view) // partview.go
	noteLostTasks(reads, &view)
	if err := killRequested(r.Context(), ja.m, &view); err != nil && !ja.partial(w, err, partialJob) { // jobend.go
		ja.fail(w, err)
		return
	}
	// An ended job's view comes from its stored record, which does not
	// count its tasks.
	view.Tasks = len(tasks)
	if err := ja.specView(r.Context(), &view); err != nil {
		ja.fail(w, err)
		return
	}
	ja.notePaused(w)
	writeJSON(w, http.StatusOK, ja.redactorFor(r).job(view))
}

// jobRecords reads the job the request names, if the caller may read it:
// its view, counting from now (jobView; a live job's from the read view,
// an ended one's from its stored record), its tasks and their attempts.
// The tasks and attempts are one read of the store (JobRecords), so that
// a task read ended never shows its attempt open. While the store cannot
// be read, a live job's tasks and open attempts come from memory
// (outageread.go). On false the response is written.
func (ja *jobsAPI) jobRecords(w http.ResponseWriter, r *http.Request, now time.Time) (api.Job, []store.Task, []store.Attempt, bool) {
	id, ok := ja.m.access.readableJob(w, r)
	if !ok {
		return api.Job{}, nil, nil, false
	}
	v := ja.m.pub.reads()
	live := v.job(id)
	recs, err := ja.m.st.JobRecords(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		err = &httpError{status: http.StatusNotFound, field: "id", msg: fmt.Sprintf("job %d does not exist", id)}
	}
	if err != nil {
		tasks, atts, inMemory := ja.m.memoryTasks(id)
		if live == nil || !inMemory || !ja.partial(w, err, partialJob) {
			ja.fail(w, err)
			return api.Job{}, nil, nil, false
		}
		return ja.jobView(v, live, now), tasks, atts, true
	}
	if live != nil {
		return ja.jobView(v, live, now), recs.Tasks, recs.Attempts, true
	}
	return ja.storedJobView(recs.Job), recs.Tasks, recs.Attempts, true
}

// jobAttempts reads the job the request names, if the caller may read
// it: its view, counting from now (jobView), and its attempts. On false
// the response is written.
func (ja *jobsAPI) jobAttempts(w http.ResponseWriter, r *http.Request, now time.Time) (api.Job, []store.Attempt, bool) {
	id, ok := ja.m.access.readableJob(w, r)
	if !ok {
		return api.Job{}, nil, false
	}
	view, err := ja.job(r.Context(), id, now)
	if err != nil {
		ja.fail(w, err)
		return api.Job{}, nil, false
	}
	atts, err := ja.m.st.Attempts(r.Context(), store.AttemptFilter{JobID: id})
	if err != nil {
		// A live job's open attempts are in memory (outageread.go).
		_, mem, live := ja.m.memoryTasks(id)
		if !live || !ja.partial(w, err, partialJob) {
			ja.fail(w, err)
			return api.Job{}, nil, false
		}
		atts = mem
	}
	return view, atts, true
}

// job returns one job's view, from the read view, counting from now, when
// it is live.
func (ja *jobsAPI) job(ctx context.Context, id int64, now time.Time) (api.Job, error) {
	if v := ja.m.pub.reads(); v.job(id) != nil {
		return ja.jobView(v, v.job(id), now), nil
	}
	rec, err := ja.m.st.Job(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return api.Job{}, &httpError{status: http.StatusNotFound, field: "id", msg: fmt.Sprintf("job %d does not exist", id)}
	}
	if err != nil {
		return api.Job{}, err
	}
	return ja.storedJobView(rec), nil
}

func (ja *jobsAPI) handlePatchJob(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		ja.fail(w, err)
		return
	}
	if err := ja.m.access.mayChangeJob(r, id); err != nil {
		ja.m.access.deny(w, r, err)
		return
	}
	var u api.JobUpdate
	if err := decodeBody(w, r, &u); err != nil {
		ja.fail(w, patchFieldHint(err))
		return
	}
	su, err := checkUpdate(id, u)
	if err != nil {
		ja.fail(w, err)
		return
	}
	view, err := ja.updateJob(r.Context(), principalOf(r), su)
	if err != nil {
		ja.m.access.deny(w, r, err) // a refused raise is audited as a refusal
		return
	}
	writeJSON(w, http.StatusOK, ja.redactorFor(r).job(view))
}
