package scenario

import (
	"slices"

	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// License is a cluster-wide consumable, such as commercial software
// seats: at most Total are held at once across every pool. It is the
// cluster spec's type (package spec), shared with the master's
// configuration.
type License = spec.License

// QOS is a quality of service jobs of priority and multifactor pools may
// name. Priority ranks QOS levels (and, divided by the highest, is the
// multifactor QOS factor); a QOS with Preempt lets its jobs preempt less
// important tasks of a lower QOS even in a pool without preemption. It is
// the cluster spec's type (package spec).
type QOS = spec.QOS

// checkJobResources checks a job's QOS and licenses against the file's
// qos and licenses sections and its pool.
func (p *parser) checkJobResources(f *yamlfield.Fields, j *Job, info *poolInfo) {
	if j.QOS != "" {
		switch {
		case len(p.QOSOrder) == 0 && p.QOSKnown:
			f.Errorf("qos", "unknown QOS %s: the file has no qos section", yamlfield.Quote(j.QOS))
		case !p.HasQOS(j.QOS) && p.QOSKnown:
			f.Errorf("qos", "unknown QOS %s%s (QOS: %s)", yamlfield.Quote(j.QOS), yamlfield.Suggest(j.QOS, p.QOSOrder), yamlfield.OneOf(p.QOSOrder))
		case info != nil && info.policy != "" && info.policy != PolicyPriority && info.policy != PolicyMultifactor:
			f.Errorf("qos", "only priority and multifactor pools use a job's QOS, and pool %s's policy is %s",
				yamlfield.Quote(j.Pool), info.policy)
		}
	}
	p.checkAllowedQOS(f, j, info)
	names := make([]string, 0, len(j.Licenses))
	for name := range j.Licenses {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		total, ok := p.License(name)
		switch {
		case !p.LicensesKnown:
		case !ok && len(p.LicenseOrder) == 0:
			f.Errorf("licenses", "unknown license %s: the file has no licenses section", yamlfield.Quote(name))
		case !ok:
			f.Errorf("licenses", "unknown license %s%s (licenses: %s)", yamlfield.Quote(name),
				yamlfield.Suggest(name, p.LicenseOrder), yamlfield.OneOf(p.LicenseOrder))
		case total >= 0 && j.Licenses[name] > total:
			f.Errorf("licenses", "a task needs %d %s licenses, but there are only %d in all", j.Licenses[name], yamlfield.Quote(name), total)
		}
	}
}

// checkAllowedQOS refuses a job whose QOS its project's qos list does not
// allow, worded as the master refuses it (resources.qos there, the job's
// qos here, or its line when it names none); a job that names none takes
// the first QOS level, as the simulator gives it. Only priority and
// multifactor pools take a job's QOS, so elsewhere there is nothing to
// check: the live job named a level its project allows, which the format
// leaves out there. keep_qos keeps a job the list refuses, as the live
// master keeps a job accepted before a reload took its level off the
// list; on a job the list allows it would never apply.
func (p *parser) checkAllowedQOS(f *yamlfield.Fields, j *Job, info *poolInfo) {
	if j.Project == "" || !p.QOSKnown || len(p.QOSOrder) == 0 || !readsQOS(info) {
		if j.KeepQOS && info != nil && info.policy != "" && !readsQOS(info) {
			f.Errorf("keep_qos", "only priority and multifactor pools use a job's QOS, and pool %s's policy is %s, so keep_qos would never apply",
				yamlfield.Quote(j.Pool), info.policy)
		}
		return
	}
	qos := j.QOS
	if qos == "" {
		qos = p.QOSOrder[0]
	} else if !p.HasQOS(qos) {
		return // reported above
	}
	err := p.CheckProjectQOS(j.Project, qos)
	switch {
	case err != nil && j.KeepQOS:
	case err != nil && j.QOS == "":
		f.Errorf("qos", "%v; the job names none, so it would take the first QOS level, %s: name one the project may use",
			err, yamlfield.Quote(qos))
	case err != nil:
		f.Errorf("qos", "%v", err)
	case j.KeepQOS:
		f.Errorf("keep_qos", "project %s may use QOS %s, so keep_qos would never apply", j.Project, yamlfield.Quote(qos))
	}
}

// readsQOS says whether a job's pool takes its QOS; true when the pool is
// not known (its own error is reported).
func readsQOS(info *poolInfo) bool {
	return info == nil || info.policy == "" || info.policy == PolicyPriority || info.policy == PolicyMultifactor
}

// DisallowedQOS says why the QOS of job j (named, or the first level it
// takes) is one its project's qos list does not allow, as Parse judges it
// (so that the file is rejected unless j says keep_qos), or nil. It is
// for writers of scenarios, such as the master's history export.
func DisallowedQOS(s *Scenario, j *Job) error {
	if j.Project == "" || len(s.QOS) == 0 {
		return nil
	}
	pool := j.Pool
	if pool == "" && len(s.Pools) > 0 {
		pool = s.Pools[0].Name
	}
	i := slices.IndexFunc(s.Pools, func(p Pool) bool { return p.Name == pool })
	if i < 0 || (s.Pools[i].Policy != PolicyPriority && s.Pools[i].Policy != PolicyMultifactor) {
		return nil
	}
	qos := j.QOS
	if qos == "" {
		qos = s.QOS[0].Name
	}
	return spec.CheckQOSAllowed(s.Projects, j.Project, qos)
}
