package master

import (
	"errors"
	"net/http"

	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/jobfile"
)

// The master's checks of a job file against its configuration (its pool,
// project, QOS and licenses) report every error they find in one answer,
// as the CLI's own checks of the file do: they answered one at a time,
// so a file with an unknown pool and an unknown project took two
// submissions to hear of both (trial 29e E9).

// fieldErrors gathers a request's errors in the order found.
type fieldErrors struct {
	errs []*httpError
	// other is the first error that is no refusal of a field (a fault
	// of the master's): it is returned alone.
	other error
}

// add gathers err; nil adds nothing. An error of several (httpError.also)
// adds each.
func (fe *fieldErrors) add(err error) {
	var he *httpError
	switch {
	case err == nil:
	case errors.As(err, &he):
		fe.errs = append(fe.errs, &httpError{status: he.status, field: he.field, msg: he.msg})
		fe.errs = append(fe.errs, he.also...)
	case fe.other == nil:
		fe.other = err
	}
}

// has says whether an error of field was gathered.
func (fe *fieldErrors) has(field string) bool {
	for _, e := range fe.errs {
		if e.field == field {
			return true
		}
	}
	return false
}

// err is nil, the one error gathered, or the first with the others after
// it (httpError.also). Its status is a 400 when any error is one (a
// refusal of the project, a 403, comes with the file's mistakes, not
// after they are fixed), else the first's.
func (fe *fieldErrors) err() error {
	if fe.other != nil {
		return fe.other
	}
	if len(fe.errs) == 0 {
		return nil
	}
	first := *fe.errs[0]
	first.also = fe.errs[1:]
	for _, e := range fe.errs {
		if e.status == http.StatusBadRequest {
			first.status = http.StatusBadRequest
		}
	}
	if len(first.also) == 0 {
		first.also = nil
	}
	return &first
}

// resolveNames resolves job file spec's pool and project for p against
// cfg, and checks the names its resources give (QOS, licenses, and the
// QOS against the project's list), with every error at once. A user
// who is no admin, refused a project by the users: section, is told to
// ask an admin for the change (config.ForNonAdmin).
func resolveNames(cfg *config.Config, spec *jobfile.Job, p auth.Principal) (pool, project string, err error) {
	var fe fieldErrors
	pool, perr := cfg.ResolvePool(spec.Pool)
	if perr != nil {
		fe.add(badRequest("pool", "%v", perr))
	}
	fe.add(checkSpecAgainst(cfg, pool, spec.Resources))
	project, jerr := cfg.ResolveProject(p.User, spec.Project)
	switch {
	case errors.Is(jerr, config.ErrNotAllowed):
		if !p.Admin {
			jerr = config.ForNonAdmin(jerr)
		}
		fe.add(&httpError{status: http.StatusForbidden, field: "project", msg: jerr.Error()})
	case jerr != nil:
		fe.add(badRequest("project", "%v", jerr))
	case !fe.has("resources.qos"):
		// An unknown QOS is said once, not again as off the project's list.
		fe.add(checkProjectQOS(cfg, project, spec.Resources.QOS, "resources.qos"))
	}
	return pool, project, fe.err()
}
