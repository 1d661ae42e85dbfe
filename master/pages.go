package master

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// Page sizes of the paginated lists (GET /jobs and /history with limit
// or cursor).
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

// pageReq is a request for one page: at most limit items after the
// cursor's (0: from the start).
type pageReq struct {
	limit  int
	cursor int64
}

// pageQuery reads limit and cursor; nil means neither was given, and the
// caller answers with the whole list as a bare array, as before paging
// existed. A cursor is the next of an earlier page of the same endpoint
// (what names: "jobs" or "history"); clients must not build one.
func pageQuery(r *http.Request, what string) (*pageReq, error) {
	q := r.URL.Query()
	ls, cs := q.Get("limit"), q.Get("cursor")
	if !q.Has("limit") && !q.Has("cursor") {
		return nil, nil
	}
	pg := &pageReq{limit: defaultPageSize}
	if ls != "" || q.Has("limit") {
		n, err := strconv.Atoi(ls)
		if err != nil || n < 1 || n > maxPageSize {
			return nil, badRequest("limit", "limit %q: expected a whole number from 1 to %d", ls, maxPageSize)
		}
		pg.limit = n
	}
	if cs != "" || q.Has("cursor") {
		id, err := strconv.ParseInt(cs, 10, 64)
		if err != nil || id <= 0 {
			return nil, badRequest("cursor", "cursor %q: not a cursor of GET /%s; pass the next of the previous page as it is", cs, what)
		}
		pg.cursor = id
	}
	return pg, nil
}

// nextCursor is the cursor after a page whose last item has id last; ""
// when the page was not full, as then nothing follows.
func nextCursor(n, limit int, last int64) string {
	if n < limit || n == 0 {
		return ""
	}
	return strconv.FormatInt(last, 10)
}

// matchesLive reports whether a live job passes f's states, pool,
// project, user and submission bound.
func matchesLive(rec store.Job, f store.JobFilter) bool {
	switch {
	case len(f.States) > 0 && !slices.Contains(f.States, rec.State),
		f.Pool != "" && rec.Pool != f.Pool,
		f.Project != "" && rec.Project != f.Project,
		f.User != "" && rec.User != f.User,
		!f.SubmittedSince.IsZero() && rec.SubmittedAt.Before(f.SubmittedSince):
		return false
	}
	return true
}

// jobsPage is one page of GET /jobs: the jobs f selects that p may read,
// newest first, with ids below the cursor. Live jobs come from the read
// view (their state is the freshest committed) and ended ones from the store; each
// source gives at most a page, so a page costs O(limit) reads whatever
// the store's size. A job that ends between two pages stays on the side
// of the cursor it was on, so none is listed twice or skipped.
func (ja *jobsAPI) jobsPage(ctx context.Context, p auth.Principal, sel jobsSel, pg pageReq) (page api.JobPage, missing bool, err error) {
	var stored []store.Job
	if tf, ok := endedFilter(sel.f); ok && sel.node == "" {
		tf.Projects, tf.OrUser = visibleTo(p)
		tf.BeforeID, tf.Desc, tf.Limit = pg.cursor, true, pg.limit
		if stored, err = ja.storedJobs(ctx, tf, sel.under); err != nil {
			// Through a store outage the page has the live jobs alone
			// (outageread.go).
			if !ja.outage(err) {
				return api.JobPage{}, false, err
			}
			missing, err = true, nil
		}
	}
	v, now := ja.m.pub.reads(), ja.asOf()
	live := livePage(v, p, sel, pg)
	out := make([]api.Job, 0, pg.limit)
	i, k := 0, 0
	for len(out) < pg.limit && (i < len(live) || k < len(stored)) {
		switch {
		case k >= len(stored) || (i < len(live) && live[i].rec.ID >= stored[k].ID):
			if k < len(stored) && live[i].rec.ID == stored[k].ID {
				k++ // the mirror's copy of a job that ended but still holds tasks
			}
			out = append(out, ja.jobView(v, live[i], now))
			i++
		default:
			out = append(out, ja.storedJobView(stored[k]))
			k++
		}
	}
	page = api.JobPage{Jobs: out}
	if len(out) > 0 {
		page.Next = nextCursor(len(out), pg.limit, out[len(out)-1].ID)
	}
	return page, missing, nil
}

// livePage lists, newest first, up to a page of v's jobs below the
// cursor that sel selects and p may read.
func livePage(v *readView, p auth.Principal, sel jobsSel, pg pageReq) []*jobRead {
	var out []*jobRead
	for j := range v.jobs.below(pg.cursor) {
		if len(out) == pg.limit {
			break
		}
		if !sel.matches(j) || (sel.node != "" && !j.on(v, sel.node)) || p.CanRead(j.rec.Project, j.rec.User) != nil {
			continue
		}
		out = append(out, j)
	}
	return out
}
