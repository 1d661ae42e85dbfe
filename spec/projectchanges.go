package spec

import (
	"fmt"
	"strconv"
	"strings"
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
	old := make(map[string]Project, len(was))
	for _, p := range was {
		old[p.Name] = p
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range now {
		seen[p.Name] = true
		o, ok := old[p.Name]
		if !ok {
			out = append(out, fmt.Sprintf("project %s added (quota %d)", p.Name, p.Quota))
			continue
		}
		if d := projectDiffs(o, p); len(d) > 0 {
			out = append(out, "project "+p.Name+": "+strings.Join(d, ", "))
		}
	}
	for _, p := range was {
		if !seen[p.Name] {
			out = append(out, fmt.Sprintf("project %s removed", p.Name))
		}
	}
	return out
}

// projectDiffs lists the settings of one project that differ, "field a
// → b".
func projectDiffs(a, b Project) []string {
	var out []string
	add := func(field, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s %s → %s", field, x, y))
		}
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	bound := func(n int) string { // 0 is no limit, no budget
		if n == 0 {
			return "none"
		}
		return strconv.Itoa(n)
	}
	add("parent", orNone(a.Parent), orNone(b.Parent))
	add("quota", strconv.Itoa(a.Quota), strconv.Itoa(b.Quota))
	add("over_quota_weight", num(a.OverQuotaWeight), num(b.OverQuotaWeight))
	add("limit", bound(a.Limit), bound(b.Limit))
	add("preempt_budget", bound(a.PreemptBudget), bound(b.PreemptBudget))
	add("shares", num(a.Shares), num(b.Shares))
	return out
}

// LicenseChanges says, one line a change, how the licenses' totals
// differ from was to now, in the order of now's licenses (licenses only
// in was last): "license matlab: total 4 → 0", "license comsol added
// (total 2)", "license abaqus removed".
func LicenseChanges(was, now []License) []string {
	old := make(map[string]int, len(was))
	for _, l := range was {
		old[l.Name] = l.Total
	}
	var out []string
	seen := map[string]bool{}
	for _, l := range now {
		seen[l.Name] = true
		switch total, ok := old[l.Name]; {
		case !ok:
			out = append(out, fmt.Sprintf("license %s added (total %d)", l.Name, l.Total))
		case total != l.Total:
			out = append(out, fmt.Sprintf("license %s: total %d → %d", l.Name, total, l.Total))
		}
	}
	for _, l := range was {
		if !seen[l.Name] {
			out = append(out, fmt.Sprintf("license %s removed", l.Name))
		}
	}
	return out
}
