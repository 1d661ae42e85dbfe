package master

import (
	"context"
	"slices"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// jobsSel is what GET /jobs's query selects (jobsQuery.read): a store filter,
// the node a live job must have a task on ("" for any), and, for
// project=P&subprojects=true, the projects of P's subtree (P and every
// project under it in the configuration), of which a job's project must
// be one; f.Project is "" then. Nil under selects by f alone.
type jobsSel struct {
	f     store.JobFilter
	node  string
	under []string
}

// stateHeld is the state filter (GET /jobs?state=held) that selects the
// queued jobs held (allot job hold); no job is stored in it.
const stateHeld = store.JobState(api.JobStateHeld)

// matches reports whether a live job passes the selection but its node.
// A job still ending (jobRead.ending) passes state=killing, and the state
// it is stored in, killed; a queued job held passes state=held, and
// queued, as Slurm's PD lists held jobs with the others.
func (s jobsSel) matches(j *jobRead) bool {
	f := s.f
	switch {
	case j.ending() && slices.Contains(f.States, stateKilling),
		j.rec.State == store.JobQueued && j.rec.Held() && slices.Contains(f.States, stateHeld):
		f.States = nil
	}
	return matchesLive(j.rec, f) && (s.under == nil || slices.Contains(s.under, j.rec.Project))
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
// projects (tf alone when under is nil), in one query.
func (ja *jobsAPI) storedJobs(ctx context.Context, tf store.JobFilter, under []string) ([]store.Job, error) {
	tf.InProjects = under
	return ja.m.st.Jobs(ctx, tf)
}
