package spec

import (
	"fmt"
	"strconv"
)

// ProjectChanges says, one line a project, how the projects' scheduling
// settings differ from was to now, as PoolChanges does the pools', in
// the order of now's projects (projects only in was last): "project
// vision: quota 4 → 8, over_quota_weight 4 → 8", "project x added
// (quota 2)", "project y removed". The settings are those the scheduler
// places and charges jobs by (parent, quota, over_quota_weight, limit,
// preempt_budget, shares), as in force: a weight or shares that default
// to the quota change with it. The qos list and max_priority_class,
// checked at submission only, are no change here, nor line numbers.
func ProjectChanges(was, now []Project) []string {
	return entries[Project]{kind: "project", name: func(p Project) string { return p.Name },
		added: func(p Project) string { return fmt.Sprintf("quota %d", p.Quota) }, diffs: projectDiffs}.changes(was, now)
}

// projectDiffs lists the settings of one project that differ, "field a
// → b".
func projectDiffs(a, b Project) []string {
	var d differ
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	bound := func(n int) string { // 0 is no limit, no budget
		if n == 0 {
			return "none"
		}
		return strconv.Itoa(n)
	}
	d.add("parent", orNone(a.Parent), orNone(b.Parent))
	d.add("quota", strconv.Itoa(a.Quota), strconv.Itoa(b.Quota))
	d.add("over_quota_weight", num(a.OverQuotaWeight), num(b.OverQuotaWeight))
	d.add("limit", bound(a.Limit), bound(b.Limit))
	d.add("preempt_budget", bound(a.PreemptBudget), bound(b.PreemptBudget))
	d.add("shares", num(a.Shares), num(b.Shares))
	return d
}

// LicenseChanges says, one line a change, how the licenses' totals
// differ from was to now, in the order of now's licenses (licenses only
// in was last): "license matlab: total 4 → 0", "license comsol added
// (total 2)", "license abaqus removed".
func LicenseChanges(was, now []License) []string {
	return entries[License]{kind: "license", name: func(l License) string { return l.Name },
		added: func(l License) string { return fmt.Sprintf("total %d", l.Total) },
		diffs: func(a, b License) []string {
			var d differ
			d.add("total", strconv.Itoa(a.Total), strconv.Itoa(b.Total))
			return d
		}}.changes(was, now)
}
