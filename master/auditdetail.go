package master

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// The detail of a successful change in the audit log. A refusal's detail
// is its error; a success's says what changed, as slurmctld's log does
// ("update_job: setting time_limit to 1 for JobId=2"): without it, the
// log showed that user:bo PATCHed job 2 but not that the PATCH set the
// time limit that killed it, and a user's disable and enable read the
// same. The handler that makes the change knows it; it notes the detail
// on the request (noteAudit) and the audit middleware writes it.

// noteAudit sets the audit detail of the request whose context ctx is;
// it does nothing outside a request (a test's direct call).
func noteAudit(ctx context.Context, format string, args ...any) {
	if ri, ok := ctx.Value(reqInfoKey{}).(*reqInfo); ok {
		ri.detail = fmt.Sprintf(format, args...)
	}
}

// noteAuditTarget names the object a successful request made, which its
// path does not name (a submission's POST /jobs: the job it created).
func noteAuditTarget(ctx context.Context, target string) {
	if ri, ok := ctx.Value(reqInfoKey{}).(*reqInfo); ok {
		ri.target = target
	}
}

// submitDetail says what a submission asked for, as sbatch's
// "Submitted batch job" line with its request: an admin reading the log
// learns who asked for how many GPUs where without opening the job.
func submitDetail(j store.Job, tasks int) string {
	d := fmt.Sprintf("submitted %q: project %s, pool %s, %s of %s",
		j.Name, j.Project, j.Pool, plural.Count(tasks, "task"), plural.Count(j.Slots, "GPU"))
	if j.TimeLimit > 0 {
		d += ", time_limit " + shortLimit(j.TimeLimit)
	}
	if j.Preemptible {
		d += ", preemptible"
	}
	if j.Held() {
		d += ", held"
	}
	return d
}

// nodeDeleteDetail says what a node's deletion removed: its pool and
// GPUs as the master last knew them.
func nodeDeleteDetail(n *mnode) string {
	d := "deleted"
	if n.pool != "" {
		d += " from pool " + n.pool
	}
	if g := len(n.rec.GPUs); g > 0 {
		d += fmt.Sprintf(", %s", plural.Count(g, "GPU"))
		if t := n.rec.GPUs[0].Type; t != "" {
			d += " " + t
		}
	}
	return d
}

// jobChangeDetail says what a job's change changed, each field as
// "field old → new", from its record before (was) and after (now);
// defaultQOS names the QOS of a job that names none.
func jobChangeDetail(was, now store.Job, defaultQOS string) string {
	var out []string
	if was.TimeLimit != now.TimeLimit {
		out = append(out, fmt.Sprintf("time_limit %s → %s", shortLimit(was.TimeLimit), shortLimit(now.TimeLimit)))
	}
	wq, wn := was.QOSNice()
	nq, nn := now.QOSNice()
	if wq != nq {
		out = append(out, fmt.Sprintf("qos %s → %s", qosWords(wq, defaultQOS), qosWords(nq, defaultQOS)))
	}
	if wn != nn {
		out = append(out, fmt.Sprintf("nice %d → %d", wn, nn))
	}
	if was.Priority != now.Priority {
		out = append(out, fmt.Sprintf("priority %d → %d", was.Priority, now.Priority))
	}
	if was.Weight != now.Weight {
		out = append(out, fmt.Sprintf("weight %v → %v", was.Weight, now.Weight))
	}
	if was.Preemptible != now.Preemptible {
		out = append(out, fmt.Sprintf("preemptible %v → %v", was.Preemptible, now.Preemptible))
	}
	if len(out) == 0 {
		return "no change"
	}
	return strings.Join(out, ", ")
}

// shortLimit is a time limit as a person writes it: 10m, 1m30s, 2h, or
// none.
func shortLimit(d time.Duration) string {
	if d <= 0 {
		return "none"
	}
	return spec.Span(d)
}

func qosWords(q, def string) string {
	switch {
	case q != "":
		return q
	case def != "":
		return def + " (default)"
	}
	return "default"
}

// userChangeDetail says what a user's change changed: disabled or
// enabled, and each role as "role on P: old → new" (none for no role).
func userChangeDetail(was, now store.User) string {
	var out []string
	if was.Disabled != now.Disabled {
		out = append(out, map[bool]string{true: "disabled", false: "enabled"}[now.Disabled])
	}
	projects := map[string]bool{}
	for p := range was.Roles {
		projects[p] = true
	}
	for p := range now.Roles {
		projects[p] = true
	}
	for _, p := range sortedKeys(projects) {
		if was.Roles[p] != now.Roles[p] {
			out = append(out, fmt.Sprintf("role on %s: %s → %s", p, roleWords(was.Roles[p]), roleWords(now.Roles[p])))
		}
	}
	if len(out) == 0 {
		return "no change"
	}
	return strings.Join(out, ", ")
}

func roleWords(r store.Role) string {
	if r == "" {
		return "none"
	}
	return string(r)
}

// rolesDetail lists roles as "lead on ml, viewer on *".
func rolesDetail(roles map[string]store.Role) string {
	var out []string
	for _, p := range sortedKeys(roles) {
		out = append(out, fmt.Sprintf("%s on %s", roles[p], p))
	}
	if len(out) == 0 {
		return "no roles"
	}
	return strings.Join(out, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// tokenDetail names a credential for the audit log: its id, kind, whose
// it is, its note and expiry; never its secret or hash.
func tokenDetail(c store.Credential) string {
	s := fmt.Sprintf("token %d (%s", c.ID, c.Kind)
	if c.Kind == store.CredUser || c.Kind == store.CredNode {
		s += " of " + c.Subject
	}
	if c.Note != "" {
		s += fmt.Sprintf(", note %q", c.Note)
	}
	if !c.ExpiresAt.IsZero() {
		s += ", expires " + c.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return s + ")"
}

// reloadDetail summarizes a reload by the names it added and removed, of
// pools, projects, QOS levels and licenses: "pools +1 -0 (+b), projects
// +0 -0, ...". A change of settings alone reads +0 -0 throughout.
func reloadDetail(was, now *config.Config, warnings int) string {
	kinds := []struct {
		what     string
		was, now []string
	}{
		{"pools", namesOf(was.Pools, poolName), namesOf(now.Pools, poolName)},
		{"projects", namesOf(was.Projects, func(p spec.Project) string { return p.Name }),
			namesOf(now.Projects, func(p spec.Project) string { return p.Name })},
		{"qos", namesOf(was.QOS, func(q spec.QOS) string { return q.Name }), namesOf(now.QOS, func(q spec.QOS) string { return q.Name })},
		{"licenses", namesOf(was.Licenses, func(l spec.License) string { return l.Name }),
			namesOf(now.Licenses, func(l spec.License) string { return l.Name })},
	}
	var out []string
	for _, k := range kinds {
		var names []string
		added, removed := 0, 0
		for _, n := range k.now {
			if !slices.Contains(k.was, n) {
				added++
				names = append(names, "+"+n)
			}
		}
		for _, n := range k.was {
			if !slices.Contains(k.now, n) {
				removed++
				names = append(names, "-"+n)
			}
		}
		s := fmt.Sprintf("%s +%d -%d", k.what, added, removed)
		if len(names) > 0 {
			s += " (" + strings.Join(names, " ") + ")"
		}
		out = append(out, s)
	}
	s := strings.Join(out, ", ")
	if warnings > 0 {
		s += fmt.Sprintf("; %d warning(s)", warnings)
	}
	return s
}

func poolName(p config.Pool) string { return p.Name }

// namesOf lists the names of a configuration's entries.
func namesOf[T any](xs []T, name func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, name(x))
	}
	return out
}

// newUserDetail says what a new user may do: admin, and its roles.
func newUserDetail(u store.User) string {
	if u.Admin {
		return "admin, " + rolesDetail(u.Roles)
	}
	return rolesDetail(u.Roles)
}

// drainDetail says what a drain or resume of a node did: the drain's
// reason, or the drain a resume ended (was) and whose it was.
func drainDetail(was, now *store.NodeDrain) string {
	switch {
	case now != nil && was != nil:
		return fmt.Sprintf("drained: %s (was drained by %s: %s)", now.Reason, was.By, was.Reason)
	case now != nil:
		return "drained: " + now.Reason
	case was != nil:
		return fmt.Sprintf("resumed (drained since %s by %s: %s)", was.At.UTC().Format(time.RFC3339), was.By, was.Reason)
	}
	return "resumed (it was not drained)"
}
