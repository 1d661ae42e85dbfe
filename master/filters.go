package master

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/store"
)

// maxListed bounds how many valid values an unknown-value error lists.
const maxListed = 20

// jobsQuery reads and checks GET /jobs's query against the configuration
// and the jobs: a part of jobsAPI (query), not embedded, so that its
// methods are not jobsAPI's.
type jobsQuery struct {
	server
}

// read reads GET /jobs's query: a store filter, the node and, with
// subprojects=true, the project's subtree (jobsSel). A value
// that names nothing is a 400 that names it and lists the valid ones, so
// that a typo is not mistaken for an empty queue. A pool, project or user
// that the configuration no longer has but some job still names is
// valid, so that old jobs can still be listed.
func (jq jobsQuery) read(ctx context.Context, r *http.Request) (jobsSel, error) {
	f, node, err := jq.filter(ctx, r)
	if err != nil {
		return jobsSel{}, err
	}
	sel := jobsSel{f: f, node: node}
	sub, err := boolParam(r, "subprojects")
	switch {
	case err != nil:
		return sel, err
	case sub && f.Project == "":
		return sel, badRequest("subprojects", "subprojects=true needs a project")
	case sub:
		sel.under, sel.f.Project = subtree(jq.m.Config().Projects, f.Project), ""
	}
	return sel, nil
}

// filter reads GET /jobs's query but subprojects: a store filter and
// the node.
func (jq jobsQuery) filter(ctx context.Context, r *http.Request) (store.JobFilter, string, error) {
	q := r.URL.Query()
	if err := onlyParams(q, "state", "pool", "project", "subprojects", "user", "node", "since", "limit", "cursor"); err != nil {
		return store.JobFilter{}, "", err
	}
	f := store.JobFilter{Pool: q.Get("pool"), Project: q.Get("project"), User: q.Get("user")}
	states, err := parseJobStates(q.Get("state"))
	if err != nil {
		return f, "", err
	}
	f.States = states
	if s := q.Get("since"); s != "" {
		if f.SubmittedSince, err = parseWhen(s, jq.m.now()); err != nil {
			return f, "", badRequest("since", "since %q: %v", s, err)
		}
	}
	cfg := jq.m.Config()
	if f.Pool != "" && cfg.PoolIndex(f.Pool) < 0 {
		if err := jq.namedByAJob(ctx, "pool", f.Pool, store.JobFilter{Pool: f.Pool}, cfg.PoolNames()); err != nil {
			return f, "", err
		}
	}
	if f.Project != "" && cfg.ProjectIndex(f.Project) < 0 && f.Project != cfg.DefaultProject {
		names := cfg.ProjectNames()
		if len(names) == 0 {
			names = []string{cfg.DefaultProject}
		}
		if err := jq.namedByAJob(ctx, "project", f.Project, store.JobFilter{Project: f.Project}, names); err != nil {
			return f, "", err
		}
	}
	if f.User != "" {
		if err := jq.checkUser(ctx, f.User, principalOf(r)); err != nil {
			return f, "", err
		}
	}
	node := q.Get("node")
	if node != "" {
		if v := jq.m.pub.reads(); v.node(node) == nil {
			return f, "", unknownValue("node", node, v.nodeNames())
		}
	}
	return f, node, nil
}

// checkUser accepts a user of the store, or one that some job names.
// The refusal lists the users only to a caller who may see every
// project's (an admin, a role in every project): to a member it was the
// list of every account, admins included, that the rest of the API
// keeps from her (trial 2026-11-29b B9).
func (jq jobsQuery) checkUser(ctx context.Context, user string, p auth.Principal) error {
	users, err := jq.m.st.Users(ctx)
	if err != nil {
		return fmt.Errorf("list users: %w", err)
	}
	names := make([]string, 0, len(users))
	for _, u := range users {
		if u.Name == user {
			return nil
		}
		names = append(names, u.Name)
	}
	err = jq.namedByAJob(ctx, "user", user, store.JobFilter{User: user}, names)
	if _, all := p.Projects(); err != nil && !all && errors.As(err, new(*httpError)) {
		return badRequest("user", "user %q: no such user", user)
	}
	return err
}

// namedByAJob returns nil when a live or stored job matches f (whose one
// field holds value), else the unknown-value error for what, listing
// valid.
func (jq jobsQuery) namedByAJob(ctx context.Context, what, value string, f store.JobFilter, valid []string) error {
	for j := range jq.m.pub.reads().jobs.all() {
		if (f.Pool != "" && j.rec.Pool == f.Pool) || (f.Project != "" && j.rec.Project == f.Project) ||
			(f.User != "" && j.rec.User == f.User) {
			return nil
		}
	}
	f.Limit = 1
	jobs, err := jq.m.st.Jobs(ctx, f)
	if err != nil {
		return fmt.Errorf("look for jobs of %s %q: %w", what, value, err)
	}
	if len(jobs) > 0 {
		return nil
	}
	return unknownValue(what, value, valid)
}

// unknownValue is the 400 for a filter value that names nothing:
// `pool "nosuch": no such pool (pools: default, batch)`.
func unknownValue(what, value string, valid []string) error {
	list := "none"
	if len(valid) > 0 {
		shown := valid
		if len(shown) > maxListed {
			shown = shown[:maxListed]
		}
		list = strings.Join(shown, ", ")
		if len(valid) > maxListed {
			list += fmt.Sprintf(" and %d more", len(valid)-maxListed)
		}
	}
	return badRequest(what, "%s %q: no such %s (%ss: %s)", what, value, what, what, list)
}

// parseJobStates reads GET /jobs's state filter: parseStates's, killing
// (stateKilling: the jobs still ending, readview_ending.go) and held
// (stateHeld: the queued jobs held), which the live jobs answer
// (jobsSel.matches) and endedFilter keeps from the store. "all" is every state, as no filter is (the CLI's -t all, a
// dashboard link #/jobs?state=all).
func parseJobStates(s string) ([]store.JobState, error) {
	if strings.TrimSpace(s) == "all" {
		return nil, nil
	}
	return statesIn(s, []store.JobState{store.JobQueued, stateHeld, store.JobRunning, stateKilling, store.JobCompleted, store.JobFailed, store.JobKilled})
}

// parseStates reads a state filter: one job state or several separated
// by commas ("queued,running": the live jobs); "" selects every state.
func parseStates(s string) ([]store.JobState, error) { return statesIn(s, jobStates) }

// statesIn reads a state filter of the states in allowed.
func statesIn(s string, allowed []store.JobState) ([]store.JobState, error) {
	if s == "" {
		return nil, nil
	}
	var out []store.JobState
	for _, v := range strings.Split(s, ",") {
		st := store.JobState(strings.TrimSpace(v))
		if !slices.Contains(allowed, st) {
			names := make([]string, len(allowed))
			for i, a := range allowed {
				names[i] = string(a)
			}
			return nil, badRequest("state", "state %q: expected one of %s, or several separated by commas", v, strings.Join(names, ", "))
		}
		if !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out, nil
}
