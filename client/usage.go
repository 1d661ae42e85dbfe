package client

import (
	"context"
	"net/url"

	"github.com/allot-sched/allot/api"
)

// Window bounds a usage or history query: RFC 3339 times or durations
// ago ("36h", "7d"); empty fields take the master's defaults.
type Window struct{ Since, Until string }

func (w Window) values() url.Values {
	q := url.Values{}
	if w.Since != "" {
		q.Set("since", w.Since)
	}
	if w.Until != "" {
		q.Set("until", w.Until)
	}
	return q
}

// Usage returns the GPU-hours used in the window, grouped by "project",
// "user", "pool" or "all" ("" for the master's default, project).
func (c *Client) Usage(ctx context.Context, w Window, by string, only UsageFilter) (api.Usage, error) {
	q := w.values()
	for k, v := range map[string]string{"by": by, "user": only.User, "project": only.Project} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out api.Usage
	return out, c.tr.do(ctx, "GET", "/usage", q, nil, &out)
}

// UsageFilter narrows GET /usage to one user's or one project's records;
// empty fields select all the caller may read.
type UsageFilter struct{ User, Project string }

// HistoryFilter selects jobs of GET /history; empty fields select all.
type HistoryFilter struct {
	Window
	User, Project, Pool, State string
}

// History lists the jobs active in the filter's window.
func (c *Client) History(ctx context.Context, f HistoryFilter) ([]api.HistoryRecord, error) {
	out := []api.HistoryRecord{}
	return out, c.tr.do(ctx, "GET", "/history", f.query(), nil, &out)
}

func (f HistoryFilter) query() url.Values {
	q := f.values()
	for k, v := range map[string]string{"user": f.User, "project": f.Project, "pool": f.Pool, "state": f.State} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// HistoryPage returns one page of at most limit records, oldest first,
// after cursor ("" for the first page); its Next is the cursor of the
// following page, "" after the last.
func (c *Client) HistoryPage(ctx context.Context, f HistoryFilter, limit int, cursor string) (api.HistoryPage, error) {
	var out api.HistoryPage
	err := c.tr.do(ctx, "GET", "/history", pageValues(f.query(), limit, cursor), nil, &out)
	return out, err
}

// EachHistoryPage calls fn with every page of the history, in order,
// until the last page or an error from fn.
func (c *Client) EachHistoryPage(ctx context.Context, f HistoryFilter, limit int, fn func([]api.HistoryRecord) error) error {
	return eachPage(func(cursor string) ([]api.HistoryRecord, string, error) {
		p, err := c.HistoryPage(ctx, f, limit, cursor)
		return p.Jobs, p.Next, err
	}, fn)
}

// Fairness returns the fairness audit of the window.
func (c *Client) Fairness(ctx context.Context, w Window) (api.Fairness, error) {
	var out api.Fairness
	return out, c.tr.do(ctx, "GET", "/fairness", w.values(), nil, &out)
}

// HistoryScenario exports the jobs submitted in the window, with the
// cluster's pools, projects and nodes, as a scenario file (YAML). Admins
// only.
func (c *Client) HistoryScenario(ctx context.Context, w Window) ([]byte, error) {
	var out rawBody
	err := c.tr.do(ctx, "GET", "/history/scenario", w.values(), nil, &out)
	return out, err
}
