package master

import (
	"net/http"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
)

// Redaction. An answer about one job (its explanation, a dry run) names
// other jobs: those ahead of it, those that must end for it, those it
// would preempt. The computations name them in full, whoever asks; this
// one step, on the way out, leaves of a job the caller may not read
// (auth.Principal.CanRead, as GET /jobs/{id} decides) only what every
// user may know: its number, its project (GET /projects lists them all),
// its slots, its time limit's end and whether it may be preempted; its
// name and user go, and Private says so (BlockedByPrivate for the job a
// waiting one is blocked by, which views name by number only). The messages name other jobs by
// number only (jobList, preemptionParts), so they need no change. Admins
// and the readers of a job's project see it whole, but for its
// environment's values, which only its owner and admins see
// (auth.Principal.SeesEnvironment): every answer that gives a job view
// (GET /jobs, GET /jobs/{id}, PATCH /jobs/{id}, a kill's reply, the
// dashboard, which reads these) passes through jobs or job, which hide
// them (hideEnvironment). Agents get the values in their start commands,
// which are no job view.

// redactor hides what p may not read of the jobs an answer names; v is
// the read view that gives a job's owner when the reference lacks it.
type redactor struct {
	p auth.Principal
	v *readView
}

func (ja *jobsAPI) redactorFor(r *http.Request) redactor {
	return redactor{p: principalOf(r), v: ja.m.pub.reads()}
}

// private reports whether p may not read job id, whose project and user
// the reference gives (empty when it does not): the read view's record
// wins, and a job known to neither is private.
func (rd redactor) private(id int64, project, user string) bool {
	if j := rd.v.job(id); j != nil {
		project, user = j.rec.Project, j.rec.User
	}
	return rd.p.CanRead(project, user) != nil
}

func (rd redactor) refs(rs []api.JobRef) {
	for i := range rs {
		rd.ref(&rs[i])
	}
}

// ref redacts r when the caller may not read its job.
func (rd redactor) ref(r *api.JobRef) {
	if rd.private(r.ID, r.Project, r.User) {
		r.Name, r.User, r.Private = "", "", true
	}
}

// pending returns p, or a copy of it with BlockedByPrivate set when the
// caller may not read the blocker: its number is all the answer gives of
// it anyway, and a client that links it would lead to a 403.
func (rd redactor) pending(p *api.Pending) *api.Pending {
	if p == nil || p.BlockedBy == 0 || !rd.private(p.BlockedBy, "", "") {
		return p
	}
	c := *p
	c.BlockedByPrivate = true
	return &c
}

// jobs marks the private blockers of job views, in place.
func (rd redactor) jobs(js []api.Job) []api.Job {
	for i := range js {
		js[i].Pending = rd.pending(js[i].Pending)
		rd.hideEnvironment(&js[i])
	}
	return js
}

// job marks a job view's private blocker, and hides the jobs that
// preempted its attempts that the caller may not read.
func (rd redactor) job(j api.Job) api.Job {
	j.Pending = rd.pending(j.Pending)
	rd.hideEnvironment(&j)
	for i := range j.TaskList {
		for _, a := range j.TaskList[i].Attempts {
			if p := a.PreemptedBy; p != nil && rd.private(p.Job, p.Project, p.User) {
				p.Name, p.User, p.Private = "", "", true
			}
		}
	}
	return j
}

// hideEnvironment replaces the values of j's environment with
// api.HiddenValue, and says so, when the caller may not see them. It
// makes a new map: a view's map is the job record's own.
func (rd redactor) hideEnvironment(j *api.Job) {
	if len(j.Environment) == 0 || rd.p.SeesEnvironment(j.User) {
		return
	}
	names := make(map[string]string, len(j.Environment))
	for k := range j.Environment {
		names[k] = api.HiddenValue
	}
	j.Environment, j.EnvironmentHidden = names, true
}

// explanation redacts the jobs ahead and those that must end, and marks
// a private blocker.
func (rd redactor) explanation(x api.Explanation) api.Explanation {
	x.Pending = rd.pending(x.Pending)
	x.Ahead = cloneRefs(x.Ahead)
	rd.refs(x.Ahead)
	x.WouldStart = rd.counterfactual(x.WouldStart)
	if x.Elastic != nil {
		e := *x.Elastic
		e.Waiting = cloneRefs(e.Waiting)
		rd.refs(e.Waiting)
		x.Elastic = &e
	}
	return x
}

// dryRun redacts the victims and those that must end, and marks a
// private blocker.
func (rd redactor) dryRun(d api.DryRun) api.DryRun {
	d.Pending = rd.pending(d.Pending)
	if d.Preempts != nil {
		d.Preempts = append([]api.DryRunVictim(nil), d.Preempts...)
	}
	for i := range d.Preempts {
		v := &d.Preempts[i]
		if rd.private(v.Job, "", v.User) {
			v.Name, v.User, v.Private = "", "", true
		}
	}
	d.Resizes = rd.resizes(d.Resizes)
	d.WouldStart = rd.counterfactual(d.WouldStart)
	return d
}

// counterfactual returns cf with its MustEnd and StartFirst redacted, as a copy, so that
// an answer never changes what a computation may keep.
func (rd redactor) counterfactual(cf *api.Counterfactual) *api.Counterfactual {
	if cf == nil {
		return nil
	}
	c := *cf
	c.MustEnd = cloneRefs(c.MustEnd)
	rd.refs(c.MustEnd)
	c.StartFirst = cloneRefs(c.StartFirst)
	rd.refs(c.StartFirst)
	if c.License != nil {
		w := *c.License
		w.Holders = append([]api.LicenseHolder(nil), w.Holders...)
		for i := range w.Holders {
			rd.ref(&w.Holders[i].JobRef)
		}
		c.License = &w
	}
	return &c
}

func cloneRefs(rs []api.JobRef) []api.JobRef {
	if rs == nil {
		return nil
	}
	return append([]api.JobRef(nil), rs...)
}
