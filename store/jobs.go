package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

const jobCols = `id, name, kind, project, user_name, pool, state, reason, priority, priority_class,
	weight, preemptible, slots, max_concurrent, max_slots, time_limit_ns, entrypoint, environment,
	spec, submitted_ns, ended_ns, qos, nice, held_by, held_ns`

// taskRowsPerInsert bounds a multi-row INSERT of tasks.
const taskRowsPerInsert = 500

func scanJob(sc rowScanner) (Job, error) {
	var (
		j         Job
		timeLimit int64
		env       string
		spec      sql.NullString
		submitted int64
		ended     sql.NullInt64
		qos       sql.Null[string]
		nice      sql.Null[int64]
		heldBy    sql.Null[string]
		heldAt    sql.Null[int64]
	)
	err := sc.Scan(&j.ID, &j.Name, &j.Kind, &j.Project, &j.User, &j.Pool, &j.State, &j.Reason,
		&j.Priority, &j.PriorityClass, &j.Weight, &j.Preemptible, &j.Slots, &j.MaxConcurrent,
		&j.MaxSlots, &timeLimit, &j.Entrypoint, &env, &spec, &submitted, &ended, &qos, &nice, &heldBy, &heldAt)
	if err != nil {
		return Job{}, err
	}
	j.QOS, j.Nice = nullPtr(qos), nullInt(nice)
	if heldBy.Valid {
		j.HeldBy, j.HeldAt = heldBy.V, timeOf(heldAt.V)
	}
	j.TimeLimit = time.Duration(timeLimit)
	if err := decodeJSON("job environment", env, &j.Environment); err != nil {
		return Job{}, err
	}
	j.Environment = emptyMapNil(j.Environment)
	j.Spec = rawJSONOf(spec)
	j.SubmittedAt = timeOf(submitted)
	j.EndedAt = timeOfNull(ended)
	return j, nil
}

func validateJob(j Job) error {
	switch {
	case j.Name == "":
		return invalidf("job name is empty")
	case j.Pool == "":
		return invalidf("job %q: pool is empty", j.Name)
	case j.Priority < 1 || j.Priority > 99:
		return invalidf("job %q: priority %d is outside 1..99", j.Name, j.Priority)
	case !(j.Weight > 0) || math.IsInf(j.Weight, 0):
		return invalidf("job %q: weight %v must be a positive number", j.Name, j.Weight)
	case j.Slots < 0 || j.MaxConcurrent < 0 || j.MaxSlots < 0:
		return invalidf("job %q: slots %d, max_concurrent %d and max_slots %d must not be negative",
			j.Name, j.Slots, j.MaxConcurrent, j.MaxSlots)
	case j.TimeLimit < 0:
		return invalidf("job %q: time limit %v is negative", j.Name, j.TimeLimit)
	}
	switch j.Kind {
	case KindExperiment, KindCommand, KindNotebook, KindShell, KindTensorBoard:
		return nil
	}
	return invalidf("job %q: unknown kind %q", j.Name, j.Kind)
}

func (o *ops) CreateJob(ctx context.Context, job Job, tasks []Task) (Job, error) {
	if err := validateJob(job); err != nil {
		return Job{}, fmt.Errorf("create job: %w", err)
	}
	if len(tasks) == 0 {
		return Job{}, fmt.Errorf("create job %q: %w", job.Name, invalidf("a job needs at least one task"))
	}
	env, err := encodeJSON(job.Environment, "{}")
	if err != nil {
		return Job{}, fmt.Errorf("create job %q: encode environment: %w", job.Name, err)
	}
	spec, err := rawJSON("spec", job.Spec)
	if err != nil {
		return Job{}, fmt.Errorf("create job %q: %w", job.Name, err)
	}
	job.State, job.EndedAt = JobQueued, time.Time{}
	job.SubmittedAt = nowIfZero(job.SubmittedAt)
	if o.d.name == "postgres" {
		return o.createJobPG(ctx, job, env, spec, tasks)
	}
	err = o.q.QueryRowContext(ctx, o.d.q(`INSERT INTO jobs (name, kind, project, user_name, pool, state,
		reason, priority, priority_class, weight, preemptible, slots, max_concurrent, max_slots,
		time_limit_ns, entrypoint, environment, spec, submitted_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		job.Name, string(job.Kind), job.Project, job.User, job.Pool, string(job.State), job.Reason,
		job.Priority, job.PriorityClass, job.Weight, job.Preemptible, job.Slots, job.MaxConcurrent,
		job.MaxSlots, int64(job.TimeLimit), job.Entrypoint, env, spec, nsOf(job.SubmittedAt)).Scan(&job.ID)
	if err != nil {
		return Job{}, fmt.Errorf("create job %q: insert: %w", job.Name, err)
	}
	if err := o.insertTasks(ctx, job, tasks); err != nil {
		return Job{}, fmt.Errorf("create job %d %q: %w", job.ID, job.Name, err)
	}
	if err := o.event(ctx, Event{JobID: job.ID, Index: -1, To: string(JobQueued),
		At: job.SubmittedAt, Reason: "submitted"}); err != nil {
		return Job{}, fmt.Errorf("create job %d %q: %w", job.ID, job.Name, err)
	}
	return job, nil
}

// createJobPG stores a job, its tasks and its event in one statement, so
// that a submission costs PostgreSQL one round trip and, outside Update,
// one implicit transaction: a single statement is atomic.
func (o *ops) createJobPG(ctx context.Context, job Job, env string, spec sql.NullString, tasks []Task) (Job, error) {
	hps := make([]*string, len(tasks))
	dirs := make([]string, len(tasks))
	for i, t := range tasks {
		hp, err := rawJSON(fmt.Sprintf("task %d hyperparameters", i), t.Hyperparameters)
		if err != nil {
			return Job{}, fmt.Errorf("create job %q: %w", job.Name, err)
		}
		if hp.Valid {
			hps[i] = &hp.String
		}
		dirs[i] = t.CheckpointDir
	}
	at := nsOf(job.SubmittedAt)
	args := []any{job.Name, string(job.Kind), job.Project, job.User, job.Pool, string(job.State), job.Reason,
		job.Priority, job.PriorityClass, job.Weight, job.Preemptible, job.Slots, job.MaxConcurrent,
		job.MaxSlots, int64(job.TimeLimit), job.Entrypoint, env, spec, at, hps, dirs}
	if o.fence != nil && o.events == nil {
		// On its own, not in an Update: the statement checks the fence.
		return o.createJobFenced(ctx, job, args)
	}
	err := o.q.QueryRowContext(ctx, `WITH j AS (
		INSERT INTO jobs (`+jobColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id
	)`+jobRowsPG+`
	SELECT id FROM j`, args...).Scan(&job.ID)
	if err != nil {
		return Job{}, fmt.Errorf("create job %q: insert: %w", job.Name, err)
	}
	return job, nil
}

// jobColumns are the columns createJobPG fills, $1 to $19.
const jobColumns = `name, kind, project, user_name, pool, state, reason, priority, priority_class, weight,
			preemptible, slots, max_concurrent, max_slots, time_limit_ns, entrypoint, environment, spec, submitted_ns`

// jobRowsPG inserts the tasks and the event of the job that a CTE j
// inserted, for createJobPG.
const jobRowsPG = `, t AS (
		INSERT INTO tasks (job_id, idx, state, hyperparameters, checkpoint_dir, updated_ns)
		SELECT j.id, x.n - 1, 'queued', x.hp::json, x.dir, $19
		FROM j, unnest($20::text[], $21::text[]) WITH ORDINALITY AS x(hp, dir, n)
	), e AS (
		INSERT INTO events (job_id, idx, attempt, from_state, to_state, at_ns, reason)
		SELECT j.id, -1, 0, '', 'queued', $19, 'submitted' FROM j
	)`

// createJobFenced is createJobPG's statement that inserts the job only
// while the fencing epoch (pgfence.go) is this master's, $22, reading
// it FOR SHARE so that another master's increment waits for it. An epoch
// that moved on is either another master's (the lock is lost) or this
// master's own, set as it took the lock back since $22 was read: the
// statement then runs again with it.
func (o *ops) createJobFenced(ctx context.Context, job Job, args []any) (Job, error) {
	for {
		ours := o.fence.epochNow.Load()
		var epoch int64
		var id sql.NullInt64
		err := o.q.QueryRowContext(ctx, `WITH f AS (`+fenceRead+`), j AS (
			INSERT INTO jobs (`+jobColumns+`)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19
			FROM f WHERE f.epoch = $22 RETURNING id
		)`+jobRowsPG+`
		SELECT f.epoch, j.id FROM f LEFT JOIN j ON true`, append(args, ours)...).Scan(&epoch, &id)
		if err != nil {
			return Job{}, fmt.Errorf("create job %q: insert: %w", job.Name, err)
		}
		if id.Valid {
			job.ID = id.Int64
			return job, nil
		}
		if epoch == ours {
			return Job{}, fmt.Errorf("create job %q: insert: no row", job.Name) // cannot be
		}
		if err := o.fence.settle(epoch); !errors.Is(err, errRetaken) {
			return Job{}, fmt.Errorf("create job %q: %w", job.Name, err)
		}
	}
}

// insertTasks writes a new job's tasks, queued, with indexes 0..n-1.
func (o *ops) insertTasks(ctx context.Context, job Job, tasks []Task) error {
	const cols = 6
	for start := 0; start < len(tasks); start += taskRowsPerInsert {
		chunk := tasks[start:min(start+taskRowsPerInsert, len(tasks))]
		args := make([]any, 0, len(chunk)*cols)
		for i, t := range chunk {
			hp, err := rawJSON(fmt.Sprintf("task %d hyperparameters", start+i), t.Hyperparameters)
			if err != nil {
				return err
			}
			args = append(args, job.ID, start+i, string(TaskQueued), hp, t.CheckpointDir, nsOf(job.SubmittedAt))
		}
		row := "(" + placeholders(cols) + ")"
		query := `INSERT INTO tasks (job_id, idx, state, hyperparameters, checkpoint_dir, updated_ns) VALUES ` +
			strings.TrimSuffix(strings.Repeat(row+", ", len(chunk)), ", ")
		if _, err := o.q.ExecContext(ctx, o.d.q(query), args...); err != nil {
			return fmt.Errorf("insert tasks %d..%d: %w", start, start+len(chunk)-1, err)
		}
	}
	return nil
}

func (r reads) Job(ctx context.Context, id int64) (Job, error) {
	j, err := scanJob(r.q.QueryRowContext(ctx, r.d.q("SELECT "+jobCols+" FROM jobs WHERE id = ?"), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("read job %d: %w", id, err)
	}
	return j, nil
}

// sinceBoundJobs is the largest window of a since filter whose least id
// bounds the scan: reading that many index entries takes a millisecond or
// two on SQLite (docs/performance.md), and a window larger than that
// fills a page of the scan down the ids unless the other filters are
// rare within it.
const sinceBoundJobs = 10000

func (r reads) Jobs(ctx context.Context, f JobFilter) ([]Job, error) {
	var where []string
	var args []any
	where, args = inClause("state", f.States, where, args)
	where, args = inClause("project", f.InProjects, where, args)
	for _, c := range []struct{ col, val string }{{"pool", f.Pool}, {"project", f.Project}, {"user_name", f.User}} {
		if c.val != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.val)
		}
	}
	if f.AfterID > 0 {
		where, args = append(where, "id > ?"), append(args, f.AfterID)
	}
	if f.BeforeID > 0 {
		where, args = append(where, "id < ?"), append(args, f.BeforeID)
	}
	if !f.SubmittedSince.IsZero() {
		// The bound on id stops the scan at the first job submitted since
		// then, when fewer than sinceBoundJobs were: the least of their
		// ids, read from jobs_submitted alone. Ids follow submission
		// closely but not exactly (the master stamps a job before the
		// store numbers it), so the bound is the least such id, not the
		// id of the earliest submission; and when none was submitted
		// since, no id passes. A larger window has no bound: reading
		// its index entries would cost more than the scan down the ids,
		// which fills a page within the window.
		since := nsOf(f.SubmittedSince)
		where = append(where, "submitted_ns >= ?", fmt.Sprintf(`id >= (SELECT
			CASE WHEN COUNT(*) < %[1]d THEN COALESCE(MIN(id), 9223372036854775807) ELSE 0 END
			FROM (SELECT id FROM jobs WHERE submitted_ns >= ? ORDER BY submitted_ns LIMIT %[1]d) w)`, sinceBoundJobs))
		args = append(args, since, since)
	}
	if !f.SubmittedBefore.IsZero() {
		where, args = append(where, "submitted_ns < ?"), append(args, nsOf(f.SubmittedBefore))
	}
	if !f.ActiveSince.IsZero() {
		// The bound on id lets the scan start at the first job still
		// active at ActiveSince (found through jobs_ended and jobs_state)
		// rather than at the first job ever: at a million finished jobs,
		// a recent window would otherwise read them all.
		since := nsOf(f.ActiveSince)
		where = append(where, "(ended_ns IS NULL OR ended_ns >= ?)", `id >= COALESCE(
			(SELECT MIN(id) FROM jobs WHERE ended_ns >= ? OR state IN ('queued', 'running')), 0)`)
		args = append(args, since, since)
	}
	if f.Projects != nil {
		vis := "FALSE"
		if len(f.Projects) > 0 {
			vis = "project IN (" + placeholders(len(f.Projects)) + ")"
			for _, p := range f.Projects {
				args = append(args, p)
			}
		}
		if f.OrUser != "" {
			vis += " OR user_name = ?"
			args = append(args, f.OrUser)
		}
		where = append(where, "("+vis+")")
	}
	order := "id"
	if f.Desc {
		order = "id DESC"
	}
	query, args := finish("SELECT "+jobCols+" FROM jobs", where, order, f.Limit, args)
	rows, err := r.q.QueryContext(ctx, r.d.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	jobs, err := collect(rows, scanJob)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return jobs, nil
}

func (o *ops) TransitionJob(ctx context.Context, t JobTransition) (Job, error) {
	if err := checkJobEdge(t.From, t.To); err != nil {
		return Job{}, fmt.Errorf("job %d: %w", t.ID, err)
	}
	at := nowIfZero(t.At)
	ended, err := transitionEnd(t, at)
	if err != nil {
		return Job{}, fmt.Errorf("job %d %s → %s: %w", t.ID, t.From, t.To, err)
	}
	// A job that ends is no longer held: its hold ends with it.
	j, err := scanJob(o.q.QueryRowContext(ctx, o.d.q(`UPDATE jobs SET state = ?, reason = ?, ended_ns = ?,
		held_by = CASE WHEN ? THEN NULL ELSE held_by END, held_ns = CASE WHEN ? THEN NULL ELSE held_ns END
		WHERE id = ? AND state = ? RETURNING `+jobCols),
		string(t.To), t.Reason, ended, t.To.Terminal(), t.To.Terminal(), t.ID, string(t.From)))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, o.jobMismatch(ctx, t.ID, string(t.From))
	}
	if err != nil {
		return Job{}, fmt.Errorf("job %d %s → %s: %w", t.ID, t.From, t.To, err)
	}
	err = o.event(ctx, Event{JobID: t.ID, Index: -1, From: string(t.From), To: string(t.To), At: at, Reason: t.Reason})
	if err != nil {
		return Job{}, fmt.Errorf("job %d %s → %s: %w", t.ID, t.From, t.To, err)
	}
	return j, nil
}

// transitionEnd is the end job transition t, made at at, stores: none
// for a job not ending, t.EndedAt where given, else at.
func transitionEnd(t JobTransition, at time.Time) (sql.NullInt64, error) {
	switch {
	case !t.To.Terminal() && !t.EndedAt.IsZero():
		return sql.NullInt64{}, invalidf("an end time for state %q, which is not terminal", t.To)
	case !t.To.Terminal():
		return sql.NullInt64{}, nil
	case t.EndedAt.IsZero():
		return nullNS(at), nil
	case t.EndedAt.After(at):
		return sql.NullInt64{}, invalidf("ended at %s, after the transition at %s",
			t.EndedAt.UTC().Format(time.RFC3339Nano), at.UTC().Format(time.RFC3339Nano))
	}
	return nullNS(t.EndedAt), nil
}

func (o *ops) MoveJobEnd(ctx context.Context, id int64, state JobState, at time.Time) (Job, error) {
	if !state.Terminal() {
		return Job{}, fmt.Errorf("move the end of job %d: %w", id, invalidf("job state %q is not terminal", state))
	}
	if at.IsZero() {
		return Job{}, fmt.Errorf("move the end of job %d: %w", id, invalidf("no time to end at"))
	}
	j, err := scanJob(o.q.QueryRowContext(ctx, o.d.q(`UPDATE jobs SET ended_ns = ?
		WHERE id = ? AND state = ? AND ended_ns <= ? RETURNING `+jobCols),
		nsOf(at), id, string(state), nsOf(at)))
	if errors.Is(err, sql.ErrNoRows) {
		j, err := o.Job(ctx, id)
		switch {
		case err != nil:
			return Job{}, fmt.Errorf("move the end of job %d: %w", id, err)
		case j.State != state:
			return Job{}, fmt.Errorf("move the end of job %d: %w", id, &ConflictError{What: fmt.Sprintf("job %d", id),
				Field: "state", Expected: string(state), Actual: string(j.State)})
		}
		return Job{}, fmt.Errorf("move the end of job %d: %w", id,
			invalidf("it ended at %s, after %s", j.EndedAt.Format(time.RFC3339Nano), at.UTC().Format(time.RFC3339Nano)))
	}
	if err != nil {
		return Job{}, fmt.Errorf("move the end of job %d: %w", id, err)
	}
	return j, nil
}

// jobMismatch explains why a compare-and-set on a job matched no row.
func (o *ops) jobMismatch(ctx context.Context, id int64, expected string) error {
	var state string
	err := o.q.QueryRowContext(ctx, o.d.q("SELECT state FROM jobs WHERE id = ?"), id).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("read job %d: %w", id, err)
	}
	return &ConflictError{What: fmt.Sprintf("job %d", id), Field: "state", Expected: expected, Actual: state}
}

func (o *ops) UpdateJob(ctx context.Context, u JobUpdate) (Job, error) {
	j, err := scanJob(o.q.QueryRowContext(ctx, o.d.q("SELECT "+jobCols+" FROM jobs WHERE id = ?"+o.d.forUpdate), u.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("update job %d: %w", u.ID, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("update job %d: read: %w", u.ID, err)
	}
	if j.State.Terminal() {
		return Job{}, &ConflictError{What: fmt.Sprintf("job %d", u.ID), Field: "state", Expected: "not terminal", Actual: string(j.State)}
	}
	var changes []string
	var c JobChange
	if u.Priority != nil && *u.Priority != j.Priority {
		changes = append(changes, fmt.Sprintf("priority %d → %d", j.Priority, *u.Priority))
		c.FromPriority, c.ToPriority = ptr(j.Priority), ptr(*u.Priority)
		j.Priority = *u.Priority
	}
	if u.PriorityClass != nil && *u.PriorityClass != j.PriorityClass {
		changes = append(changes, fmt.Sprintf("priority class %q → %q", j.PriorityClass, *u.PriorityClass))
		j.PriorityClass = *u.PriorityClass
	}
	if u.Weight != nil && *u.Weight != j.Weight {
		changes = append(changes, fmt.Sprintf("weight %v → %v", j.Weight, *u.Weight))
		c.FromWeight, c.ToWeight = ptr(j.Weight), ptr(*u.Weight)
		j.Weight = *u.Weight
	}
	if u.Preemptible != nil && *u.Preemptible != j.Preemptible {
		changes = append(changes, fmt.Sprintf("preemptible %v → %v", j.Preemptible, *u.Preemptible))
		c.FromPreemptible, c.ToPreemptible = ptr(j.Preemptible), ptr(*u.Preemptible)
		j.Preemptible = *u.Preemptible
	}
	changes = append(changes, changeLimits(&j, u, &c)...)
	if err := validateJob(j); err != nil {
		return Job{}, fmt.Errorf("update job %d: %w", u.ID, err)
	}
	if len(changes) == 0 {
		return j, nil
	}
	if _, err := o.q.ExecContext(ctx, o.d.q(`UPDATE jobs SET priority = ?, priority_class = ?, weight = ?, preemptible = ?,
		time_limit_ns = ?, qos = ?, nice = ? WHERE id = ?`),
		j.Priority, j.PriorityClass, j.Weight, j.Preemptible, int64(j.TimeLimit), j.QOS, j.Nice, u.ID); err != nil {
		return Job{}, fmt.Errorf("update job %d: %w", u.ID, err)
	}
	reason := strings.Join(changes, ", ")
	if u.Reason != "" {
		reason += ": " + u.Reason
	}
	err = o.event(ctx, Event{JobID: u.ID, Index: -1, From: string(j.State), To: string(j.State), At: nowIfZero(u.At), Reason: reason,
		Change: &c})
	if err != nil {
		return Job{}, fmt.Errorf("update job %d: %w", u.ID, err)
	}
	return j, nil
}

// HoldJob holds a live job or releases it (JobHold), and records the
// change as the job's event with FromHeld and ToHeld. Holding a held
// job, or releasing one not held, changes nothing and writes no event:
// the master decides what the caller is told. An ended job is a
// conflict.
func (o *ops) HoldJob(ctx context.Context, h JobHold) (Job, error) {
	j, err := scanJob(o.q.QueryRowContext(ctx, o.d.q("SELECT "+jobCols+" FROM jobs WHERE id = ?"+o.d.forUpdate), h.ID))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("hold job %d: %w", h.ID, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("hold job %d: read: %w", h.ID, err)
	}
	if j.State.Terminal() {
		return Job{}, &ConflictError{What: fmt.Sprintf("job %d", h.ID), Field: "state", Expected: "not terminal", Actual: string(j.State)}
	}
	if h.Hold && h.By == "" {
		return Job{}, invalidf("hold job %d: no one named as holding it", h.ID)
	}
	if h.Hold == j.Held() {
		return j, nil
	}
	at := nowIfZero(h.At)
	var by sql.Null[string]
	var atNS sql.Null[int64]
	reason := "released by " + h.By
	if h.Hold {
		by, atNS = sql.Null[string]{V: h.By, Valid: true}, sql.Null[int64]{V: nsOf(at), Valid: true}
		reason = "held by " + h.By
		j.HeldBy, j.HeldAt = h.By, timeOf(nsOf(at))
	} else {
		j.HeldBy, j.HeldAt = "", time.Time{}
	}
	if _, err := o.q.ExecContext(ctx, o.d.q(`UPDATE jobs SET held_by = ?, held_ns = ? WHERE id = ?`), by, atNS, h.ID); err != nil {
		return Job{}, fmt.Errorf("hold job %d: %w", h.ID, err)
	}
	if h.Reason != "" {
		reason += ": " + h.Reason
	}
	err = o.event(ctx, Event{JobID: h.ID, Index: -1, From: string(j.State), To: string(j.State), At: at, Reason: reason,
		Change: &JobChange{FromHeld: ptr(!h.Hold), ToHeld: ptr(h.Hold)}})
	if err != nil {
		return Job{}, fmt.Errorf("hold job %d: %w", h.ID, err)
	}
	return j, nil
}

// changeLimits applies u's time limit, QOS and nice to j, records them
// in c and returns the words of the reason that name them. A job's QOS
// and nice are its job file's until a change sets them (Job.QOS, Nice).
func changeLimits(j *Job, u JobUpdate, c *JobChange) []string {
	var changes []string
	if u.TimeLimit != nil && *u.TimeLimit != j.TimeLimit {
		changes = append(changes, fmt.Sprintf("time limit %s → %s", limitWords(j.TimeLimit), limitWords(*u.TimeLimit)))
		c.FromTimeLimit, c.ToTimeLimit = ptr(j.TimeLimit), ptr(*u.TimeLimit)
		j.TimeLimit = *u.TimeLimit
	}
	qos, nice := j.QOSNice()
	if u.QOS != nil && *u.QOS != qos {
		changes = append(changes, fmt.Sprintf("qos %q → %q", qos, *u.QOS))
		c.FromQOS, c.ToQOS = ptr(qos), ptr(*u.QOS)
		j.QOS = ptr(*u.QOS)
	}
	if u.Nice != nil && *u.Nice != nice {
		changes = append(changes, fmt.Sprintf("nice %d → %d", nice, *u.Nice))
		c.FromNice, c.ToNice = ptr(nice), ptr(*u.Nice)
		j.Nice = ptr(*u.Nice)
	}
	return changes
}

// limitWords is a time limit in a reason: its duration, or none.
func limitWords(d time.Duration) string {
	if d <= 0 {
		return "none"
	}
	return d.String()
}

// QOSNice is the job's QOS ("" for the configuration's default) and
// nice: a change's (QOS, Nice), else its job file's.
func (j Job) QOSNice() (string, int) {
	var doc struct {
		Resources struct {
			QOS  string `json:"qos"`
			Nice int    `json:"nice"`
		} `json:"resources"`
	}
	if len(j.Spec) > 0 && (j.QOS == nil || j.Nice == nil) {
		_ = json.Unmarshal(j.Spec, &doc) // a spec that does not decode names neither
	}
	qos, nice := doc.Resources.QOS, doc.Resources.Nice
	if j.QOS != nil {
		qos = *j.QOS
	}
	if j.Nice != nil {
		nice = *j.Nice
	}
	return qos, nice
}

// ptr is a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
