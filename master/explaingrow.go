package master

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// A running elastic job held below its size. Its tasks grow, doubling,
// only on spare slots (sched/elastic.go, policies.md "Expanding"): after
// its pool's pass no slot job of the pool may wait for slots (a job
// waiting for a reason more slots would not cure does not count; in a
// priority or multifactor pool, a job less important than it either,
// sched/elastic_ahead.go), the task is neither interactive nor being
// stopped, it has run the pool's min_run_time, and the doubled task fits
// on free slots (its own counted; ahead of less important jobs, as much
// of the doubling as fits). In a busy pool that is never, and "It is running." alone
// hid it: explain says what it holds and which rule keeps it there.

// elasticHold explains job j, running, when it is elastic and a task of
// it holds fewer slots than it asks for; nil otherwise. Callers hold mu.
func (ja *jobsAPI) elasticHold(j *mjob) *api.ElasticHold {
	pl := ja.m.planner
	s := &pl.snap
	ji := pl.roster.index(j)
	if ji < 0 || ji >= len(s.Jobs) || s.Jobs[ji].MinSlots == 0 {
		return nil
	}
	e := &s.Jobs[ji]
	h := &api.ElasticHold{Slots: e.Slots}
	below, stopping := false, false
	start := int64(0)
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		if a.Job != ji || a.Moving {
			continue
		}
		n := sched.Slots(a.Nodes)
		h.Held = append(h.Held, n)
		below = below || n < e.Slots
		stopping = stopping || a.Preempting
		start = max(start, a.Start)
	}
	if !below {
		return nil
	}
	var mf []sched.Factors // multifactor priorities, by job index
	if s.Pools[e.Pool].Policy == sched.PolicyMultifactor {
		mf, _ = sched.PriorityFactors(s) // the pass took this snapshot
	}
	h.Waiting = ja.growthBlockers(ji, mf)
	h.Why = growthRule(s, e, h, stopping, start, mfPriority(mf, ji))
	return h
}

// mfPriority is job i's multifactor priority in mf, 0 where mf lacks it.
func mfPriority(mf []sched.Factors, i int) float64 {
	if i < len(mf) {
		return mf[i].Priority
	}
	return 0
}

// growthBlockers names the slot jobs of job ji's pool that the last pass
// left waiting for slots and that keep it from growing
// (sched.GrowthBlockedBy: in a priority or multifactor pool, those at
// least as important, by mf in a multifactor pool), in the snapshot's
// order. Callers hold mu.
func (ja *jobsAPI) growthBlockers(ji int, mf []sched.Factors) []api.JobRef {
	s := &ja.m.planner.snap
	var out []api.JobRef
	for i := range s.Jobs {
		o := &s.Jobs[i]
		if o.Pool != s.Jobs[ji].Pool || o.Slots == 0 || o.Waiting == 0 {
			continue
		}
		id, err := strconv.ParseInt(o.ID, 10, 64)
		if err != nil {
			continue
		}
		mj := ja.m.jobs[id]
		if mj == nil || mj.pending == nil || mj.pending.code != "" || !sched.GrowthBlockedBy(&s.Pools[o.Pool], &s.Jobs[ji], o, mj.pending.p.Reason, mfPriority(mf, ji), mfPriority(mf, i)) {
			continue
		}
		out = append(out, api.JobRef{ID: id, Name: mj.rec.Name, User: mj.rec.User, Project: mj.rec.Project, Slots: o.Slots})
	}
	return out
}

// growthRule says in words why the tasks of e (held h, stopping when one
// is being preempted or resized, the last started at start; of
// multifactor priority mf in a multifactor pool) do not grow, by the
// first of the growth conditions that fails.
func growthRule(s *sched.Snapshot, e *sched.Job, h *api.ElasticHold, stopping bool, start int64, mf float64) string {
	held := "It holds " + strconv.Itoa(h.Held[0]) + " of its " + slotWord(e.Slots)
	if len(h.Held) > 1 {
		held = fmt.Sprintf("Its running tasks hold %s of the %s each asks for", joinInts(h.Held), slotWord(e.Slots))
	}
	pool := s.Pools[e.Pool]
	switch {
	case e.Interactive:
		return held + "; it is interactive, and interactive tasks never grow (growing restarts a task from a checkpoint)."
	case stopping:
		return held + "; a task of it is being stopped or resized now, and grows only once it runs again."
	case pool.MinRunTime > 0 && s.Now-start < pool.MinRunTime:
		return fmt.Sprintf("%s; it grows no sooner than the pool's min_run_time (%s) after its start, at %s.",
			held, sched.HumanDuration(pool.MinRunTime), msgTime(time.Unix(start+pool.MinRunTime, 0)))
	case sched.GrowsAhead(pool.Policy):
		return held + "; " + growAheadRule(pool, h, mf)
	case len(h.Waiting) > 0:
		return fmt.Sprintf("%s; it grows only on spare slots, when no job of pool %s waits for slots (%s %s).",
			held, pool.Name, jobList(h.Waiting), waitVerb(len(h.Waiting)))
	}
	return fmt.Sprintf("%s; no job of pool %s waits for slots, so it grows, doubling, at a pass where the doubled task fits on free slots.",
		held, pool.Name)
}

// growAheadRule is growthRule's clause for a pool that grows elastic
// tasks before strictly less important jobs start (priority: the 1-99
// number; multifactor: the computed priority, mf for this job).
func growAheadRule(pool sched.Pool, h *api.ElasticHold, mf float64) string {
	less, peers := "less important jobs", "at least as important"
	if pool.Policy == sched.PolicyMultifactor {
		less = "jobs of a lower multifactor priority"
		peers = "of a multifactor priority of at least its " + sched.FormatPriority(mf)
	}
	if len(h.Waiting) > 0 {
		return fmt.Sprintf("it grows before %s start, when no job of pool %s %s waits for slots (%s %s).",
			less, pool.Name, peers, jobList(h.Waiting), waitVerb(len(h.Waiting)))
	}
	return fmt.Sprintf("no job of pool %s %s waits for slots, so it grows at a pass where slots are free: "+
		"before %s start, to as much of its doubling as fits, else, doubling, once the doubled task fits.",
		pool.Name, peers, less)
}

// waitVerb is "waits" for one job, "wait" for more.
func waitVerb(n int) string {
	if n == 1 {
		return "waits"
	}
	return "wait"
}

// joinInts writes 2, 1 and 4 as "2, 1 and 4".
func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
