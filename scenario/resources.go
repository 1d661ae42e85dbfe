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
	p.checkAllowedQOS(f, j)
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
// allow; a job that names none takes the first QOS level, as the
// simulator gives it.
func (p *parser) checkAllowedQOS(f *yamlfield.Fields, j *Job) {
	if j.Project == "" || !p.QOSKnown || len(p.QOSOrder) == 0 {
		return
	}
	qos := j.QOS
	if qos == "" {
		qos = p.QOSOrder[0]
	} else if !p.HasQOS(qos) {
		return // reported above
	}
	if err := p.CheckProjectQOS(j.Project, qos); err != nil {
		if j.QOS == "" {
			f.Errorf("project", "%v; the job names no qos, so it would take the first level, %s: name one the project may use", err, yamlfield.Quote(qos))
			return
		}
		f.Errorf("qos", "%v", err)
	}
}
