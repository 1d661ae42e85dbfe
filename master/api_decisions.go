package master

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/allot-sched/allot/api"
)

// handleHistoryDecisions serves the live side of the replay proof to
// admins: the decision log of the jobs submitted in the window, which a
// replay of the window's export (GET /history/scenario, the same window
// by the same rules) must repeat. allot history check compares the two.
func (ca *clusterAPI) handleHistoryDecisions(w http.ResponseWriter, r *http.Request) {
	since, until, ok := ca.historyWindow(w, r, "reading the cluster's decision log")
	if !ok {
		return
	}
	at := ca.m.now()
	ds, err := ca.m.history.decisions(r.Context(), since, until)
	if err != nil {
		ca.fail(w, err)
		return
	}
	out := api.DecisionLog{Since: since.UTC(), Until: until.UTC(), At: at.UTC(), Lines: make([]string, 0, len(ds))}
	for _, d := range ds {
		out.Lines = append(out.Lines, d.Line())
	}
	writeJSON(w, http.StatusOK, out)
}

// historyWindow reads the window of an admin's request for the
// cluster's history (its since and until, nothing else; exportWindow),
// or answers the request with why not and reports false.
func (ca *clusterAPI) historyWindow(w http.ResponseWriter, r *http.Request, what string) (since, until time.Time, ok bool) {
	if !ca.m.access.adminOnly(w, r, what) {
		return since, until, false
	}
	q := r.URL.Query()
	if err := onlyParams(q, "since", "until"); err != nil {
		ca.fail(w, err)
		return since, until, false
	}
	since, until, err := ca.exportWindow(r.Context(), q)
	if err != nil {
		ca.fail(w, err)
		return since, until, false
	}
	return since, until, true
}

// exportWindow is the window of a history export or decision log: since
// and until as given (default: the usage window up to now), except that
// the default window of a cluster younger than it starts at the
// cluster's start, so that the replay's times count from there, not from
// days before anything ran, and no earlier than the history_retention
// horizon (retention.go), before which jobs were forgotten. A since
// given is kept, unless it is before the horizon: that is refused.
func (ca *clusterAPI) exportWindow(ctx context.Context, q url.Values) (since, until time.Time, err error) {
	since, until, err = ca.window(q.Get("since"), q.Get("until"), defaultUsageWindow)
	if err != nil {
		return since, until, err
	}
	hz, err := ca.m.history.horizon(ctx)
	if err != nil {
		return since, until, err
	}
	if q.Get("since") != "" {
		since, err = hz.clamp(since, until, true)
		return since, until, err
	}
	born, err := ca.clusterStart(ctx)
	if err != nil {
		return since, until, err
	}
	if born = born.Truncate(time.Second); born.After(since) && born.Before(until) {
		since = born
	}
	since, err = hz.clamp(since, until, false)
	return since, until, err
}
