package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/allot-sched/allot/api"
)

// Submit sends a job spec, a job file as JSON (jobfile.Job marshals to
// one), and returns the new job's id and task count.
func (c *Client) Submit(ctx context.Context, spec json.RawMessage) (api.SubmitReply, error) {
	return c.SubmitWith(ctx, spec, SubmitOptions{})
}

// SubmitOptions change how the master judges a submission.
type SubmitOptions struct {
	// AllowInfeasible queues a job that no node registered now could
	// ever run, instead of having it refused (422).
	AllowInfeasible bool
	// Hold submits the job held (sbatch -H): it waits for a release
	// (Release) before any pass considers it.
	Hold bool
}

// SubmitWith is Submit with options.
func (c *Client) SubmitWith(ctx context.Context, spec json.RawMessage, opt SubmitOptions) (api.SubmitReply, error) {
	var r api.SubmitReply
	if !json.Valid(spec) {
		return r, errors.New("submit: the job spec is not valid JSON")
	}
	q := url.Values{}
	if opt.AllowInfeasible {
		q.Set("allow_infeasible", "true")
	}
	if opt.Hold {
		q.Set("hold", "true")
	}
	if len(q) == 0 {
		q = nil
	}
	err := c.tr.do(ctx, http.MethodPost, "/jobs", q, spec, &r)
	return r, err
}

// DryRun sends a job spec as SubmitWith does, with dry_run=true: the
// master judges it as a submission and answers what it would get,
// storing nothing. A job a submission would refuse gets the same error.
func (c *Client) DryRun(ctx context.Context, spec json.RawMessage, opt SubmitOptions) (api.DryRun, error) {
	var r api.DryRun
	if !json.Valid(spec) {
		return r, errors.New("dry run: the job spec is not valid JSON")
	}
	q := url.Values{"dry_run": {"true"}}
	if opt.AllowInfeasible {
		q.Set("allow_infeasible", "true")
	}
	err := c.tr.do(ctx, http.MethodPost, "/jobs", q, spec, &r)
	return r, err
}

// JobFilter selects jobs; empty fields select all. Node selects the jobs
// with a task on that node now; State may list several states separated
// by commas ("queued,running"); Since keeps the jobs submitted since an
// RFC 3339 time or a duration ago ("36h", "7d"). Subprojects, with a
// Project, selects the jobs of the projects under it too.
type JobFilter struct {
	State, Pool, Project, User, Node, Since string
	Subprojects                             bool
}

func (f JobFilter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"state": f.State, "pool": f.Pool, "project": f.Project, "user": f.User,
		"node": f.Node, "since": f.Since} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Subprojects {
		q.Set("subprojects", "true")
	}
	return q
}

// Jobs lists every job the filter selects in scheduling order, in one
// answer; JobsPage pages through large lists.
func (c *Client) Jobs(ctx context.Context, f JobFilter) ([]api.Job, error) {
	jobs := []api.Job{}
	err := c.tr.do(ctx, http.MethodGet, "/jobs", f.query(), nil, &jobs)
	return jobs, err
}

// JobsPage returns one page of at most limit jobs, newest first, after
// cursor ("" for the first page); its Next is the cursor of the following
// page, "" after the last.
func (c *Client) JobsPage(ctx context.Context, f JobFilter, limit int, cursor string) (api.JobPage, error) {
	var p api.JobPage
	err := c.tr.do(ctx, http.MethodGet, "/jobs", pageValues(f.query(), limit, cursor), nil, &p)
	return p, err
}

// EachJobsPage calls fn with every page of jobs, newest first, until the
// last page or an error from fn.
func (c *Client) EachJobsPage(ctx context.Context, f JobFilter, limit int, fn func([]api.Job) error) error {
	return eachPage(func(cursor string) ([]api.Job, string, error) {
		p, err := c.JobsPage(ctx, f, limit, cursor)
		return p.Jobs, p.Next, err
	}, fn)
}

// eachPage walks the pages fetch returns, from the first (cursor ""),
// until one has no next cursor or fn fails.
func eachPage[T any](fetch func(cursor string) ([]T, string, error), fn func([]T) error) error {
	cursor := ""
	for {
		items, next, err := fetch(cursor)
		if err != nil {
			return err
		}
		if err := fn(items); err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		cursor = next
	}
}

// pageValues adds a page's limit and cursor to a query.
func pageValues(q url.Values, limit int, cursor string) url.Values {
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if !q.Has("limit") && !q.Has("cursor") {
		q.Set("limit", "100") // a page, not the whole list
	}
	return q
}

// Job returns one job with its tasks and their attempts.
func (c *Client) Job(ctx context.Context, id int64) (api.Job, error) {
	var j api.Job
	err := c.tr.do(ctx, http.MethodGet, jobPath(id), nil, nil, &j)
	return j, err
}

// Kill asks the master to kill a job's tasks and returns the job.
func (c *Client) Kill(ctx context.Context, id int64) (api.KillReply, error) {
	var r api.KillReply
	err := c.tr.do(ctx, http.MethodPost, jobPath(id)+"/kill", nil, nil, &r)
	return r, err
}

// KillJobs asks the master to kill a list of jobs in one step, no
// scheduling pass running between their kills, and returns each job's
// result in the list's order.
func (c *Client) KillJobs(ctx context.Context, ids []int64) ([]api.KillResult, error) {
	var rs []api.KillResult
	err := c.tr.do(ctx, http.MethodPost, "/jobs/kill", nil, api.KillJobs{IDs: ids}, &rs)
	return rs, err
}

// Hold holds a queued job (POST /jobs/{id}/hold): no scheduling pass
// considers it until Release. Holding a held job changes nothing
// (Changed false).
func (c *Client) Hold(ctx context.Context, id int64) (api.HoldReply, error) {
	var r api.HoldReply
	err := c.tr.do(ctx, http.MethodPost, jobPath(id)+"/hold", nil, nil, &r)
	return r, err
}

// Release releases a held job (POST /jobs/{id}/release); releasing a
// job not held changes nothing (Changed false).
func (c *Client) Release(ctx context.Context, id int64) (api.HoldReply, error) {
	var r api.HoldReply
	err := c.tr.do(ctx, http.MethodPost, jobPath(id)+"/release", nil, nil, &r)
	return r, err
}

// Requeue requeues a running or starting job (POST /jobs/{id}/requeue):
// its tasks checkpoint, as a preemption asks, and wait again to resume
// from their checkpoints; hold holds the job too, until Release.
// Requeued 0 says it had nothing running or starting.
func (c *Client) Requeue(ctx context.Context, id int64, hold bool) (api.RequeueReply, error) {
	var r api.RequeueReply
	err := c.tr.do(ctx, http.MethodPost, jobPath(id)+"/requeue", nil, api.Requeue{Hold: hold}, &r)
	return r, err
}

// RequeueJobs requeues a list of jobs in one step (held too where hold
// says so) and returns each job's result in the list's order.
func (c *Client) RequeueJobs(ctx context.Context, ids []int64, hold bool) ([]api.RequeueResult, error) {
	var rs []api.RequeueResult
	err := c.tr.do(ctx, http.MethodPost, "/jobs/requeue", nil, api.RequeueJobs{IDs: ids, Hold: hold}, &rs)
	return rs, err
}

// HoldJobs holds (hold true) or releases a list of jobs in one step and
// returns each job's result in the list's order.
func (c *Client) HoldJobs(ctx context.Context, ids []int64, hold bool) ([]api.HoldResult, error) {
	var rs []api.HoldResult
	path := "/jobs/release"
	if hold {
		path = "/jobs/hold"
	}
	err := c.tr.do(ctx, http.MethodPost, path, nil, api.HoldJobs{IDs: ids}, &rs)
	return rs, err
}

// Update changes a job's priority, priority class or weight; nil fields
// are kept. It returns the changed job.
func (c *Client) Update(ctx context.Context, id int64, u api.JobUpdate) (api.Job, error) {
	var j api.Job
	err := c.tr.do(ctx, http.MethodPatch, jobPath(id), nil, u, &j)
	return j, err
}

func jobPath(id int64) string { return "/jobs/" + strconv.FormatInt(id, 10) }

// LogQuery selects a page of a job's log.
type LogQuery struct {
	Task  *int          // one task only; nil for every task
	After string        // the cursor from the previous page's Next; "" from the start
	Wait  time.Duration // long poll: how long the master may hold the request for new lines
}

// Logs returns the log lines after a cursor.
func (c *Client) Logs(ctx context.Context, id int64, lq LogQuery) (api.Logs, error) {
	q := url.Values{}
	if lq.Task != nil {
		q.Set("task", strconv.Itoa(*lq.Task))
	}
	if lq.After != "" {
		q.Set("after", lq.After)
	}
	if lq.Wait > 0 {
		q.Set("wait", strconv.FormatInt(int64((lq.Wait+time.Second-1)/time.Second), 10))
	}
	var l api.Logs
	err := c.tr.do(ctx, http.MethodGet, jobPath(id)+"/logs", q, nil, &l)
	return l, err
}

// FollowWait is how long each request of Follow lets the master hold it.
const FollowWait = 30 * time.Second

// RequestSlack is how much longer than its wait Follow lets one request
// take before giving up on a master that does not answer.
const RequestSlack = 30 * time.Second

// Follow reads a job's log from the cursor lq.After on, calling fn for
// every line in order, until the job has ended and every line has been
// read (Logs.Done), fn returns an error, or ctx ends. With follow false it
// stops as soon as the master has no more lines now instead of waiting
// for new ones. Each request is bounded by its wait plus RequestSlack. It
// returns the cursor after the last page read in full, from which a
// caller can resume.
func (c *Client) Follow(ctx context.Context, id int64, lq LogQuery, follow bool, fn func(api.LogLine) error) (string, error) {
	lq.Wait = 0
	if follow {
		lq.Wait = FollowWait
	}
	for {
		reqCtx, cancel := context.WithTimeout(ctx, lq.Wait+RequestSlack)
		page, err := c.Logs(reqCtx, id, lq)
		cancel()
		if err != nil {
			return lq.After, err
		}
		for _, l := range page.Lines {
			if err := fn(l); err != nil {
				return lq.After, err
			}
		}
		if page.Next != "" {
			lq.After = page.Next
		}
		if page.Done || (!follow && len(page.Lines) == 0) {
			return lq.After, nil
		}
		if page.Next == "" && len(page.Lines) > 0 {
			return lq.After, fmt.Errorf("job %d logs: the master sent lines without a cursor to continue from", id)
		}
	}
}

// Nodes lists the registered nodes.
func (c *Client) Nodes(ctx context.Context) ([]api.Node, error) {
	nodes := []api.Node{}
	err := c.tr.do(ctx, http.MethodGet, "/nodes", nil, nil, &nodes)
	return nodes, err
}

// Pools lists the pools with their load.
func (c *Client) Pools(ctx context.Context) ([]api.Pool, error) {
	pools := []api.Pool{}
	err := c.tr.do(ctx, http.MethodGet, "/pools", nil, nil, &pools)
	return pools, err
}

// Projects lists the projects with their use.
func (c *Client) Projects(ctx context.Context) ([]api.Project, error) {
	projects := []api.Project{}
	err := c.tr.do(ctx, http.MethodGet, "/projects", nil, nil, &projects)
	return projects, err
}

// ReloadConfig asks the master to re-read its configuration file, and
// returns the warnings of a reload taken; a master before api.Reload
// answers 204 with no body, read as none.
func (c *Client) ReloadConfig(ctx context.Context) (api.Reload, error) {
	var raw rawBody
	if err := c.tr.do(ctx, http.MethodPost, "/config/reload", nil, nil, &raw); err != nil {
		return api.Reload{}, err
	}
	var r api.Reload
	if len(bytes.TrimSpace(raw)) == 0 {
		return r, nil
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return api.Reload{}, fmt.Errorf("POST /config/reload: the master's answer is not the expected JSON: %w", err)
	}
	return r, nil
}

// JobMetrics returns the metrics a job's trials reported, with a summary
// per trial.
func (c *Client) JobMetrics(ctx context.Context, id int64) (api.JobMetrics, error) {
	var m api.JobMetrics
	err := c.tr.do(ctx, http.MethodGet, jobPath(id)+"/metrics", nil, nil, &m)
	return m, err
}

// Explain returns why a job waits and what would let it start.
func (c *Client) Explain(ctx context.Context, id int64) (api.Explanation, error) {
	var x api.Explanation
	err := c.tr.do(ctx, http.MethodGet, jobPath(id)+"/explain", nil, nil, &x)
	return x, err
}
