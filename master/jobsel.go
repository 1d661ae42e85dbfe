package master

import (
	"cmp"
	"context"
	"slices"

	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// jobsSel is what GET /jobs's query selects (jobsQuery): a store filter,
// the node a live job must have a task on ("" for any), and, for
// project=P&subprojects=true, the projects of P's subtree (P and every
// project under it in the configuration), of which a job's project must
// be one; f.Project is "" then. Nil under selects by f alone.
type jobsSel struct {
	f     store.JobFilter
	node  string
	under []string
}

// matches reports whether a live job's record passes the selection but
// its node.
func (s jobsSel) matches(rec store.Job) bool {
	return matchesLive(rec, s.f) && (s.under == nil || slices.Contains(s.under, rec.Project))
}

// subtree lists project and the projects under it in projects, in file
// order, project first; a project the configuration does not have (one
// that only old jobs name) is its own subtree.
func subtree(projects []spec.Project, project string) []string {
	out := []string{project}
	for grew := true; grew; {
		grew = false
		for _, p := range projects {
			if p.Parent != "" && slices.Contains(out, p.Parent) && !slices.Contains(out, p.Name) {
				out = append(out, p.Name)
				grew = true
			}
		}
	}
	return out
}

// storedJobs reads the stored jobs that tf selects in one of under's
// projects (tf alone when under is nil): one query per project, merged in
// tf's id order and cut to tf.Limit, so that the store needs no filter of
// its own for a subtree.
func (ja *jobsAPI) storedJobs(ctx context.Context, tf store.JobFilter, under []string) ([]store.Job, error) {
	if under == nil {
		return ja.m.st.Jobs(ctx, tf)
	}
	var out []store.Job
	for _, p := range under {
		tf.Project = p
		jobs, err := ja.m.st.Jobs(ctx, tf)
		if err != nil {
			return nil, err
		}
		out = append(out, jobs...)
	}
	slices.SortFunc(out, func(a, b store.Job) int {
		if tf.Desc {
			return cmp.Compare(b.ID, a.ID)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if tf.Limit > 0 && len(out) > tf.Limit {
		out = out[:tf.Limit]
	}
	return out, nil
}
