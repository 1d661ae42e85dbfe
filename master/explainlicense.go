package master

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// licenseHolder is a running job that holds some of a license.
type licenseHolder struct {
	job, count int
	end        int64 // the last of its holding tasks' ends; sched.Never without a time limit
}

// licenseShort is the counterfactual of job e when a license it needs has
// fewer free than one task takes: free slots would not start it, only the
// jobs holding that license ending would. Licenses are cluster-wide, so
// the holders may run in any pool; a preemption does not free them for
// the job it makes room for (sched.License), so each must end. Nil when
// every license e needs has enough free.
func (f *cfFacts) licenseShort(e *sched.Job) *api.Counterfactual {
	s := f.s
	for _, lu := range e.Licenses {
		if lu.License < 0 || lu.License >= len(s.Licenses) {
			continue // Feasible reported it
		}
		held, holders := licenseHolders(s, lu.License)
		l := &s.Licenses[lu.License]
		free := l.Total - held
		if free >= lu.Count {
			continue
		}
		// The fewest jobs that free enough: the largest holders first,
		// then the soonest to end.
		slices.SortFunc(holders, func(a, b licenseHolder) int {
			return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.end, b.end), cmp.Compare(a.job, b.job))
		})
		w := &api.LicenseWait{Name: l.Name, PerTask: lu.Count, Free: max(free, 0), Total: l.Total}
		var named []string
		for _, h := range holders {
			if free >= lu.Count {
				break
			}
			free += h.count
			named = append(named, f.holderPhrase(h))
			w.Holders = append(w.Holders, api.LicenseHolder{JobRef: f.holderRef(h), Holding: h.count})
		}
		if len(named) == 0 {
			continue // nothing running holds it: the pass will see to it
		}
		return &api.Counterfactual{License: w, Message: fmt.Sprintf(
			"It needs %d of license %s per task, and %d of its %d are free (licenses count across every pool): it could start once %s.",
			lu.Count, l.Name, w.Free, l.Total, andList(named))}
	}
	return nil
}

// licenseHolders sums what running tasks hold of license li, per job, in
// the snapshot's job order.
func licenseHolders(s *sched.Snapshot, li int) (held int, holders []licenseHolder) {
	at := map[int]int{}
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		for _, u := range s.Jobs[a.Job].Licenses {
			if u.License != li {
				continue
			}
			held += u.Count
			i, ok := at[a.Job]
			if !ok {
				i = len(holders)
				at[a.Job] = i
				holders = append(holders, licenseHolder{job: a.Job})
			}
			holders[i].count += u.Count
			holders[i].end = max(holders[i].end, a.End(s.Jobs))
		}
	}
	return held, holders
}

// holderPhrase names a holder by number alone, as messages name other
// jobs (a caller may not read its name), with what it holds.
func (f *cfFacts) holderPhrase(h licenseHolder) string {
	id := f.s.Jobs[h.job].ID
	if rec := f.rec(h.job); rec != nil {
		id = fmt.Sprint(rec.ID)
	}
	return fmt.Sprintf("job %s (holding %d) ends", id, h.count)
}

// holderRef names holder h as a JobRef: all it holds, and when its
// time limit ends it, if it has one.
func (f *cfFacts) holderRef(h licenseHolder) api.JobRef {
	ref := f.jobRef(h.job, nil)
	for ai := range f.s.Allocs {
		if a := &f.s.Allocs[ai]; a.Job == h.job {
			ref.Slots += sched.Slots(a.Nodes)
		}
	}
	if h.end != sched.Never {
		t := time.Unix(h.end, 0).UTC()
		ref.EndsAt = &t
	}
	return ref
}

// andList joins phrases as "a", "a and b", "a, b and c".
func andList(p []string) string {
	if len(p) < 2 {
		return strings.Join(p, "")
	}
	return strings.Join(p[:len(p)-1], ", ") + " and " + p[len(p)-1]
}
