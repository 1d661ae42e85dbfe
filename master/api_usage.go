package master

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Accounting. Usage comes from the store's usage records, which the
// master writes when an attempt ends and every usageInterval while it
// runs, so that totals survive restarts of the master, the agents and the
// database; the part of open attempts not yet recorded is added from the
// mirror, so that the figures are current. Records are clipped to the
// window, so a window's total is exact to the second.

// defaultUsageWindow is /usage's window when no since is given.
const defaultUsageWindow = 7 * 24 * time.Hour

func (ca *clusterAPI) handleUsage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := onlyParams(q, "since", "until", "by", "user", "project"); err != nil {
		ca.fail(w, err)
		return
	}
	since, until, err := ca.window(q.Get("since"), q.Get("until"), defaultUsageWindow)
	if err != nil {
		ca.fail(w, err)
		return
	}
	by := cmp.Or(q.Get("by"), "project")
	if !slices.Contains(api.UsageGroupings, by) {
		ca.fail(w, badRequest("by", "by %q: expected one of %s", by, strings.Join(api.UsageGroupings, ", ")))
		return
	}
	recs, err := ca.usageIn(r.Context(), since, until)
	if err != nil {
		ca.readUnavailable(w, err, "the usage records") // outageread.go
		return
	}
	p := principalOf(r)
	// user and project narrow what the caller may read anyway (as sacct's
	// -u and -A do): a filter never shows more.
	user, project := q.Get("user"), q.Get("project")
	if user != "" && user != noUser && !slices.ContainsFunc(recs, func(u store.Usage) bool { return u.User == user }) {
		// As GET /jobs: a typo is not a total of 0.
		if err := (jobsQuery{ca.server}).checkUser(r.Context(), user, p); err != nil {
			ca.fail(w, err)
			return
		}
	}
	out := api.Usage{Since: since, Until: until, By: by, Rows: []api.UsageRow{}}
	type acc struct {
		row      api.UsageRow
		jobs     map[int64]bool
		attempts map[[3]int64]bool
	}
	groups := map[api.UsageRow]*acc{}
	hidden := map[string]bool{}
	for _, u := range recs {
		if (user != "" && cmp.Or(u.User, noUser) != user) || (project != "" && u.Project != project) {
			continue
		}
		if p.CanRead(u.Project, u.User) != nil {
			// Said apart, without whose (trial 2026-11-29a A3): a
			// member's table read as the whole cluster's.
			hidden[u.Project] = true
			out.HiddenGPUHours += u.GPUSeconds / 3600
			continue
		}
		key := groupKey(u, by)
		g := groups[key]
		if g == nil {
			g = &acc{row: key, jobs: map[int64]bool{}, attempts: map[[3]int64]bool{}}
			groups[key] = g
		}
		g.row.GPUHours += u.GPUSeconds / 3600
		out.TotalGPUHours += u.GPUSeconds / 3600
		if u.JobID != 0 {
			g.jobs[u.JobID] = true
			g.attempts[[3]int64{u.JobID, int64(u.Index), int64(u.Attempt)}] = true
		}
	}
	for _, g := range groups {
		g.row.Jobs, g.row.Attempts = len(g.jobs), len(g.attempts)
		out.Rows = append(out.Rows, g.row)
	}
	slices.SortFunc(out.Rows, func(a, b api.UsageRow) int {
		return cmp.Or(cmp.Compare(b.GPUHours, a.GPUHours), cmp.Compare(a.Pool, b.Pool),
			cmp.Compare(a.Project, b.Project), cmp.Compare(a.User, b.User))
	})
	out.HiddenProjects = len(hidden)
	ca.fairShares(&out, p, user, project)
	writeJSON(w, http.StatusOK, out)
}

// fairShares adds to out the fair-share standing p may read, narrowed
// as the rows are to user and project where given (keptShares), with
// how usage decays when there is any.
func (ca *clusterAPI) fairShares(out *api.Usage, p auth.Principal, user, project string) {
	out.Shares = ca.shares(p, user, project)
	if len(out.Shares) > 0 {
		ca.m.lock()
		out.Decay = decayNote(ca.m.cfg.Decay, ca.m.now().Unix())
		ca.m.unlock()
	}
}

// groupKey is the row a record adds to under the grouping.
func groupKey(u store.Usage, by string) api.UsageRow {
	switch by {
	case "project":
		return api.UsageRow{Project: u.Project}
	case "user":
		return api.UsageRow{User: cmp.Or(u.User, noUser)}
	case "pool":
		return api.UsageRow{Pool: u.Pool}
	}
	return api.UsageRow{Pool: u.Pool, Project: u.Project, User: cmp.Or(u.User, noUser)}
}

// window parses since and until: RFC 3339 times or durations before now
// ("36h", "7d"). until defaults to now, since to until minus def.
func (ca *clusterAPI) window(sinceS, untilS string, def time.Duration) (since, until time.Time, err error) {
	now := ca.m.now()
	until = now
	if untilS != "" {
		if until, err = parseWhen(untilS, now); err != nil {
			return since, until, badRequest("until", "until %q: %v", untilS, err)
		}
	}
	since = until.Add(-def)
	if sinceS != "" {
		if since, err = parseWhen(sinceS, now); err != nil {
			return since, until, badRequest("since", "since %q: %v", sinceS, err)
		}
	}
	// The message names the parameters given: an until left out is now.
	switch {
	case !since.Before(until) && untilS == "":
		return since, until, badRequest("since", "since %s is not in the past (now is %s): give an earlier since, or an until after it",
			since.Format(time.RFC3339), until.Format(time.RFC3339))
	case !since.Before(until):
		return since, until, badRequest("since", "since %s is not before until %s",
			since.Format(time.RFC3339), until.Format(time.RFC3339))
	}
	return since, until, nil
}

// parseWhen reads a time parameter by the rule the CLI checks its flags
// with (api.ParseWhen); a bad one is the client's fault.
func parseWhen(s string, now time.Time) (time.Time, error) {
	t, err := api.ParseWhen(s, now)
	if err != nil {
		return t, errWhen
	}
	return t, nil
}

var errWhen = &httpError{status: http.StatusBadRequest, msg: api.ErrWhen.Error()}

// usageIn returns the usage of [since, until): the stored records clipped
// to the window, and what open attempts used since their last record.
func (ca *clusterAPI) usageIn(ctx context.Context, since, until time.Time) ([]store.Usage, error) {
	var out []store.Usage
	f := store.UsageFilter{Since: since, Limit: 10000}
	for {
		page, err := ca.m.st.Usage(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, u := range page {
			if c, ok := clip(u, since, until); ok {
				out = append(out, c)
			}
		}
		if len(page) < f.Limit {
			break
		}
		f.AfterID = page[len(page)-1].ID
	}
	ca.m.lock()
	defer ca.m.unlock()
	now := ca.m.now()
	for _, j := range ca.m.jobs {
		for _, t := range j.tasks {
			if u := usageOf(t, now); u != nil {
				if c, ok := clip(*u, since, until); ok {
					out = append(out, c)
				}
			}
		}
	}
	return out, nil
}

// clip cuts a record to [since, until), scaling its GPU-seconds.
func clip(u store.Usage, since, until time.Time) (store.Usage, bool) {
	start, end := u.Start, u.End
	if start.Before(since) {
		start = since
	}
	if end.After(until) {
		end = until
	}
	if !end.After(start) {
		return u, false
	}
	if span := u.End.Sub(u.Start); span > 0 && (start != u.Start || end != u.End) {
		u.GPUSeconds *= end.Sub(start).Seconds() / span.Seconds()
	}
	u.Start, u.End = start, end
	return u, true
}

// shares is sshare's view of the last snapshot's accounts, when a pool
// weighs fair share, limited to the projects p may read and to the
// accounts of user and project where given (keptShares).
func (ca *clusterAPI) shares(p auth.Principal, user, project string) []api.Share {
	ca.m.lock()
	defer ca.m.unlock()
	mode := sched.FairShareMode("")
	for _, pl := range ca.m.cfg.Pools {
		if pl.Policy == sched.PolicyMultifactor && pl.Multifactor.FairShare > 0 {
			mode = cmp.Or(pl.Multifactor.FairShareMode, sched.FairShareClassic)
			break
		}
	}
	if mode == "" || len(ca.m.planner.snap.Accounts) == 0 {
		return nil
	}
	st, err := sched.AccountShares(&ca.m.planner.snap, mode)
	if err != nil {
		return nil // the pass reports a bad snapshot
	}
	var out []api.Share
	kept := keptShares(ca.m.planner.snap.Accounts, user, project)
	for i, a := range ca.m.planner.snap.Accounts {
		project, user, _ := strings.Cut(a.Name, "/")
		if p.CanRead(project, user) != nil || !kept[i] {
			continue
		}
		sh := api.Share{Account: a.Name, RawShares: a.Shares, NormShares: st[i].NormShares,
			EffectiveUsage: st[i].EffectiveUsage}
		if st[i].Ranked {
			sh.FairShare = &st[i].Factor
			sh.Rank, sh.Users = st[i].Rank, st[i].Users
		}
		out = append(out, sh)
	}
	return out
}

// keptShares marks the accounts allot usage -u/-A (user=, project=)
// keep in the fair-share table, as they keep the usage rows: a user's
// account ("project/user") whose user is user and whose project is
// project, where given, and the accounts above each, so that the tree
// still reads; every account without either filter. The table was the
// whole cluster's under a filter (trial 2026-11-29j J11). Ranks stay
// the cluster's: a user's rank is among every user.
func keptShares(accounts []sched.Account, user, project string) []bool {
	kept := make([]bool, len(accounts))
	for i, a := range accounts {
		pr, u, isUser := strings.Cut(a.Name, "/")
		switch {
		case user == "" && project == "":
			kept[i] = true
		case user != "" && (!isUser || u != user), project != "" && pr != project:
		default:
			// Its parents, up to the top; the walk stops after as many
			// steps as there are accounts, so a cycle cannot trap it.
			for at, steps := i, 0; at >= 0 && steps <= len(accounts); at, steps = accounts[at].Parent, steps+1 {
				kept[at] = true
			}
		}
	}
	return kept
}
