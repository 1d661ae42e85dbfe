package sched

import (
	"fmt"
	"slices"
)

// License is a cluster-wide consumable resource, such as a pool of
// commercial software licenses: at most Total are held at once, across
// every pool.
//
// Licenses are counted, not placed. A task holds its job's licenses from
// its start until its allocation is gone, checkpointing included, so a
// preempted task's licenses are not free until it has stopped: preemption
// never frees licenses for the task it makes room for. A task starts only
// when every license it needs has Count free; otherwise it waits with
// ReasonLicense, and in FIFO and priority order it blocks the jobs behind
// it like any other resource. A task whose need exceeds a license's Total
// can never start and blocks nobody. When Total is lowered below what
// running tasks hold, they keep running and nothing new takes that license
// until enough are back.
//
// Reservations count licenses too. EASY finds the head's shadow time from
// the time limits of every task that holds a license it needs, in any pool,
// and a later job may backfill only if it ends by then or leaves the head
// its licenses at that time. Conservative reservations keep one
// availability profile per license beside the slot profile. Under priority
// backfill a lower-priority job never takes licenses a blocked job needs.
// Reservations protect licenses only within their pool: pools are
// scheduled in order, and another pool's jobs may take licenses a head is
// waiting for.
type License struct {
	Name  string
	Total int
}

// LicenseUse is what each task of a job holds while it runs: Count of the
// license at index License in Snapshot.Licenses.
type LicenseUse struct {
	License int
	Count   int
}

// licensePass is the license stage every policy checks: it owns the pass's
// license counts, indexed by license (free, the EASY shadow counts, and
// conservative backfill's per-license profiles with their releases). It
// reads the snapshot, the plan's starts, the evicted marks and the pool's
// conservative profile, whose reservations it also writes (reserveAll);
// licenseNever records a Pending entry.
type licensePass struct {
	p *pass
	// s and st are the pass's snapshot and planning state.
	s  *Snapshot
	st *state
	// free is Total less what allocations hold and this plan took; it
	// may be negative when Total was lowered below what is held.
	free []int
	// shadow is what will be free at an EASY head's shadow time, less
	// what backfilled tasks that outlast it hold.
	shadow []int
	prof   []profile
	rel    []licRelease
}

// licRelease is when a task's licenses come back.
type licRelease struct {
	at  int64
	job int32
}

// validateLicenses checks totals and every job's uses.
func validateLicenses(s *Snapshot) error {
	for i := range s.Licenses {
		if s.Licenses[i].Total < 0 {
			return fmt.Errorf("license %q: total must not be negative, got %d", s.Licenses[i].Name, s.Licenses[i].Total)
		}
	}
	return nil
}

// validateJobLicenses checks a job's license uses.
func validateJobLicenses(s *Snapshot, j *Job) error {
	for k, u := range j.Licenses {
		switch {
		case u.License < 0 || u.License >= len(s.Licenses):
			return fmt.Errorf("job %q: license use %d names license index %d, out of range (%d licenses)",
				j.ID, k, u.License, len(s.Licenses))
		case u.Count <= 0:
			return fmt.Errorf("job %q: license %q: count must be positive, got %d", j.ID, s.Licenses[u.License].Name, u.Count)
		}
		for _, v := range j.Licenses[:k] {
			if v.License == u.License {
				return fmt.Errorf("job %q: license %q listed twice", j.ID, s.Licenses[u.License].Name)
			}
		}
	}
	return nil
}

// reset counts what running allocations hold.
func (lp *licensePass) reset(s *Snapshot) {
	lp.free = resize(lp.free, len(s.Licenses))
	for i := range s.Licenses {
		lp.free[i] = s.Licenses[i].Total
	}
	if len(s.Licenses) == 0 {
		return
	}
	for ai := range s.Allocs {
		if s.Allocs[ai].Moving {
			continue // the task's licenses count once, with its new placement
		}
		for _, u := range s.Jobs[s.Allocs[ai].Job].Licenses {
			lp.free[u.License] -= u.Count
		}
	}
}

// licensesFit reports whether one more task of j has its licenses free.
func (lp *licensePass) licensesFit(j int32) bool {
	for _, u := range lp.s.Jobs[j].Licenses {
		if lp.free[u.License] < u.Count {
			return false
		}
	}
	return true
}

func (lp *licensePass) takeLicenses(j int32) {
	for _, u := range lp.s.Jobs[j].Licenses {
		lp.free[u.License] -= u.Count
	}
}

// licensePending explains the first license j is short of.
func (lp *licensePass) licensePending(j int32) Pending {
	job := &lp.s.Jobs[j]
	pe := Pending{Job: int(j), Reason: ReasonLicense, Blocker: -1, Need: job.Slots, At: -1}
	for _, u := range job.Licenses {
		if free := lp.free[u.License]; free < u.Count {
			pe.License, pe.LicenseNeed, pe.LicenseFree = u.License, u.Count, max(free, 0)
			break
		}
	}
	return pe
}

// licenseNever reports, and records, a job that needs more of a license
// than exist.
func (lp *licensePass) licenseNever(j int32) bool {
	job := &lp.s.Jobs[j]
	for _, u := range job.Licenses {
		if u.Count > lp.s.Licenses[u.License].Total {
			lp.p.addPending(Pending{Job: int(j), Reason: ReasonLicense, Blocker: -1, Need: job.Slots, At: -1,
				License: u.License, LicenseNeed: u.Count, LicenseFree: max(lp.free[u.License], 0)})
			return true
		}
	}
	return false
}

// licensesLeave reports whether j may take its licenses without taking
// any that blocker, waiting ahead of it, needs.
func (lp *licensePass) licensesLeave(j, blocker int32) bool {
	for _, u := range lp.s.Jobs[j].Licenses {
		for _, b := range lp.s.Jobs[blocker].Licenses {
			if b.License == u.License && lp.free[u.License]-u.Count < b.Count {
				return false
			}
		}
	}
	return true
}

// shadowFromFree starts the EASY shadow count from what is free now.
func (lp *licensePass) shadowFromFree() {
	lp.shadow = append(lp.shadow[:0], lp.free...)
}

// shadowRelease gives back (sign 1) or takes (−1) one task's licenses in
// the EASY shadow count.
func (lp *licensePass) shadowRelease(j int32, sign int) {
	for _, u := range lp.s.Jobs[j].Licenses {
		lp.shadow[u.License] += sign * u.Count
	}
}

// shadowFits reports whether the head's licenses are free at the shadow
// time, after one more task of job with (or of no job, with < 0) takes
// its own.
func (lp *licensePass) shadowFits(head, with int32) bool {
	for _, h := range lp.s.Jobs[head].Licenses {
		have := lp.shadow[h.License]
		if with >= 0 {
			for _, u := range lp.s.Jobs[with].Licenses {
				if u.License == h.License {
					have -= u.Count
				}
			}
		}
		if have < h.Count {
			return false
		}
	}
	return true
}

// licenseEnds adds, for an EASY head that needs licenses, the release of
// every license-holding task that the pool's own slot releases leave out:
// tasks of other pools, and this pool's checkpointing tasks. Their nodes
// are left out, so only their licenses come back.
func (lp *licensePass) licenseEnds(pool int, head int32, firstStart int, ends []release) []release {
	if len(lp.s.Jobs[head].Licenses) == 0 {
		return ends
	}
	for ai := range lp.s.Allocs {
		al := &lp.s.Allocs[ai]
		job := &lp.s.Jobs[al.Job]
		if len(job.Licenses) == 0 || al.Moving || (job.Pool == pool && !al.Preempting && !lp.p.sc.evicted[ai]) {
			continue
		}
		if end := al.End(lp.s.Jobs); end != Never {
			ends = append(ends, release{at: max(end, lp.s.Now), job: int32(al.Job)})
		}
	}
	for _, st := range lp.p.plan.Starts[:firstStart] {
		job := &lp.s.Jobs[st.Job]
		if len(job.Licenses) > 0 && job.TimeLimit > 0 {
			ends = append(ends, release{at: lp.s.Now + job.TimeLimit, job: int32(st.Job)})
		}
	}
	return ends
}

// buildLicenseProfiles makes, when a job of the queue needs licenses, one
// availability profile per license: what is free now, plus what each
// holding task (any pool, this plan's starts included) gives back at the
// end of its time limit.
func (lp *licensePass) buildLicenseProfiles(jobs []int32) {
	if len(lp.s.Licenses) == 0 || !slices.ContainsFunc(jobs, func(j int32) bool { return len(lp.s.Jobs[j].Licenses) > 0 }) {
		lp.prof = lp.prof[:0]
		return
	}
	rel := lp.rel[:0]
	for ai := range lp.s.Allocs {
		al := &lp.s.Allocs[ai]
		if end := al.End(lp.s.Jobs); end != Never && len(lp.s.Jobs[al.Job].Licenses) > 0 && !al.Moving {
			rel = append(rel, licRelease{at: max(end, lp.s.Now), job: int32(al.Job)})
		}
	}
	for _, st := range lp.p.plan.Starts {
		if job := &lp.s.Jobs[st.Job]; len(job.Licenses) > 0 && job.TimeLimit > 0 {
			rel = append(rel, licRelease{at: lp.s.Now + job.TimeLimit, job: int32(st.Job)})
		}
	}
	slices.SortStableFunc(rel, func(a, b licRelease) int { return cmp64(a.at, b.at) })
	lp.rel = rel
	for len(lp.prof) < len(lp.s.Licenses) {
		lp.prof = append(lp.prof, profile{})
	}
	lp.prof = lp.prof[:len(lp.s.Licenses)]
	for l := range lp.prof {
		pr := &lp.prof[l]
		pr.hit = false
		pr.at = append(pr.at[:0], lp.s.Now)
		pr.free = append(pr.free[:0], int64(lp.free[l]))
	}
	for _, r := range rel {
		for _, u := range lp.s.Jobs[r.job].Licenses {
			pr := &lp.prof[u.License]
			last := len(pr.at) - 1
			if pr.at[last] == r.at {
				pr.free[last] += int64(u.Count)
				continue
			}
			pr.at = append(pr.at, r.at)
			pr.free = append(pr.free, pr.free[last]+int64(u.Count))
		}
	}
}

// earliestAll finds the first time at which a task of j has its slots in
// the pool's profile and its licenses in theirs, for dur seconds. Each
// profile's earliest start at or after t only moves forward, so taking the
// latest of them until none moves finds the first common start.
func (lp *licensePass) earliestAll(j int32, need, dur int64) int64 {
	return lp.earliestAllFrom(j, need, dur, lp.s.Now)
}

// earliestAllFrom is earliestAll for starts at or after t.
func (lp *licensePass) earliestAllFrom(j int32, need, dur, t int64) int64 {
	pr := &lp.p.sc.profile
	uses := lp.s.Jobs[j].Licenses
	if len(uses) == 0 || len(lp.prof) == 0 {
		return pr.earliestFrom(t, need, dur)
	}
	for {
		moved := false
		t = pr.earliestFrom(t, need, dur)
		for _, u := range uses {
			if t == Never {
				return Never
			}
			if t2 := lp.prof[u.License].earliestFrom(t, int64(u.Count), dur); t2 != t {
				t, moved = t2, true
			}
		}
		if !moved || t == Never {
			return t
		}
	}
}

// reserveAll takes (sign 1) or gives back (sign −1) a task's slots and
// licenses over [at, at+dur) in the conservative profiles.
func (lp *licensePass) reserveAll(j int32, at, dur, need int64, sign int64) {
	lp.p.sc.profile.reserve(at, dur, sign*need)
	if len(lp.prof) == 0 {
		return
	}
	for _, u := range lp.s.Jobs[j].Licenses {
		lp.prof[u.License].reserve(at, dur, sign*int64(u.Count))
	}
}

// earliestFrom finds the first time >= t at which need stays free for
// dur seconds, or Never; t is never before the profile's first step.
func (pr *profile) earliestFrom(t, need, dur int64) int64 {
	n := len(pr.at)
	s, _ := slices.BinarySearch(pr.at, t)
	if s == n || pr.at[s] != t {
		s-- // t lies inside step s
	}
	start := t
	for s < n {
		if pr.free[s] < need {
			s++
			if s < n {
				start = pr.at[s]
			}
			continue
		}
		end := addTime(start, dur)
		k := s + 1
		for ; k < n && pr.at[k] < end; k++ {
			if pr.free[k] < need {
				break
			}
		}
		if k < n && pr.at[k] < end {
			s = k // step k is short: start after it
			continue
		}
		return start
	}
	return Never
}
