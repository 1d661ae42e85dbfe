package master

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
)

// The wait ledger: how long each job waited for each kind of reason, so
// that the fairness audit does not call a project deprived for waits of
// its own making (trial n F15: the project that preempted the others was
// flagged DEPRIVED for a gang that waited on its own limit, then as
// demand past its quota, then on a drained node). Each pass credits the
// time since the last to the reason each job waited for in the last
// (notePending). The ledger lives in memory: a master restarted knows no
// reasons for the waits before, and the audit counts those whole, as it
// did before the ledger.

// waitKind is what a wait was for.
type waitKind uint8

const (
	// waitOther: room others' work holds, the pool's order, a
	// reservation: waits the audit counts.
	waitOther waitKind = iota
	// waitOwn: its project's limit, demand past its quota or fair
	// share (only idle slots serve it), its own max_concurrent.
	waitOwn
	// waitDown: nodes drained, lost or gone that it needs.
	waitDown
	// waitHeld: held (allot job hold, requeue --hold) by its user, a
	// lead or an admin: no wait for others' work at all, so the audit
	// shows it apart (HeldWaitS), not among the waits.
	waitHeld
	waitKinds
)

// waitSplit is a job's seconds of wait by kind.
type waitSplit [waitKinds]int64

// maxLedgerJobs bounds the jobs the ledger keeps: past it the oldest
// (smallest ids) go, whose waits then count whole.
const maxLedgerJobs = 200_000

// waitLedger has its own lock: passes write it under mu, the audit
// reads it without.
type waitLedger struct {
	mu  sync.Mutex
	by  map[int64]*waitSplit
	top int64
	// low is the smallest id that may still be kept: those below it were
	// dropped for the bound.
	low int64
}

// waitKindOf classes a pass's pending explanation.
func waitKindOf(pi *pendingInfo) waitKind {
	if pi.ctx.down != "" || pi.ctx.away != "" || pi.ctx.noneUp || pi.ctx.drained != "" {
		return waitDown
	}
	switch pi.p.Reason {
	case sched.ReasonLimit, sched.ReasonOverQuota, sched.ReasonNoSpare, sched.ReasonMaxConcurrent:
		return waitOwn
	}
	return waitOther
}

// creditPass credits to each job of roster r that the last pass left
// pending the time from that pass to now, at that pass's reason. Callers
// hold mu, before the jobs' pending explanations are replaced.
func (l *waitLedger) creditPass(r *jobRoster, now int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ri := range r.List() {
		j := r.jobs[ri]
		if j == nil || j.pending == nil || now <= j.pending.now {
			continue
		}
		l.add(j.rec.ID, waitKindOf(j.pending), now-j.pending.now)
	}
}

// hold credits a release: the job was held from from to to.
func (l *waitLedger) hold(id int64, from, to time.Time) {
	if from.IsZero() || !to.After(from) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(id, waitHeld, int64(to.Sub(from).Seconds()))
}

func (l *waitLedger) add(id int64, k waitKind, secs int64) {
	if l.by == nil {
		l.by = map[int64]*waitSplit{}
	}
	w := l.by[id]
	if w == nil {
		w = &waitSplit{}
		l.by[id] = w
		l.top = max(l.top, id)
		// Job ids grow, so the oldest go from low up: each id is passed
		// once, where a scan of the map at every new job past the bound
		// cost the whole ledger each time.
		for len(l.by) > maxLedgerJobs && l.low < l.top {
			delete(l.by, l.low)
			l.low++
		}
	}
	w[k] += secs
}

// splits copies the ledger's entries of jobs, with, for each still
// pending in read view v, the time from its last pass to now at that
// pass's reason, which no pass has credited yet (a quota pool's passes
// stop while nothing changes).
func (l *waitLedger) splits(jobs []api.HistoryRecord, v *readView, now int64) map[int64]waitSplit {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[int64]waitSplit{}
	for _, j := range jobs {
		var w waitSplit
		if got := l.by[j.ID]; got != nil {
			w = *got
		}
		r := v.job(j.ID)
		switch {
		case r != nil && r.rec.Held():
			// Held now: since its hold, which no pass credits (a held job
			// is left out of the passes, its explanation counting from no
			// pass's time).
			w[waitHeld] += max(0, now-r.rec.HeldAt.Unix())
		case r != nil && r.pending != nil && r.pending.now > 0 && now > r.pending.now:
			w[waitKindOf(r.pending)] += now - r.pending.now
		}
		if w != (waitSplit{}) {
			out[j.ID] = w
		}
	}
	return out
}

// excluded is how much of wait, job j's wait in the window, was on
// hold, of its own making and on nodes down, in the proportions of its
// whole wait.
func excluded(j api.HistoryRecord, wait int64, w waitSplit) (held, own, down int64) {
	if j.WaitS <= 0 || wait <= 0 {
		return 0, 0, 0
	}
	part := func(s int64) int64 { return min(s, j.WaitS) * wait / j.WaitS }
	held = part(heldOf(j.WaitS, w))
	own, down = min(part(w[waitOwn]), wait-held), part(w[waitDown])
	if held+own+down > wait {
		down = wait - held - own
	}
	return held, own, down
}

// heldOf is how much of a job's whole queued time, queued (historyOf's
// WaitS), was on hold by the ledger w: one rule for the audit (excluded)
// and allot history's WAIT (excludeHeld), neither of which counts a hold
// as a wait (trial 2026-11-29d D12). Holds released before the master
// last started are not in the ledger, and count as waits in both.
func heldOf(queued int64, w waitSplit) int64 { return max(0, min(w[waitHeld], queued)) }

// heldWaitNote says how long a project's jobs were held, which the audit
// shows apart from their waits: "its 1 job was held for 5m 24s (allot
// job hold), which is not counted as a wait".
func heldWaitNote(held int64, jobs int) string {
	if held <= 0 {
		return ""
	}
	return fmt.Sprintf("its %s %s held for %s (allot job hold), which is not counted as a wait",
		plural.Count(jobs, "job"), map[bool]string{true: "was", false: "were"}[jobs == 1], sched.HumanDuration(held))
}

// excludedNote says, as a sentence, what of a project's waits the audit
// left out: "its 1 job waited 11s on the project's own limit, ...,
// which is not counted as deprivation".
func excludedNote(own, down int64, jobs int) string {
	var parts []string
	if own > 0 {
		parts = append(parts, sched.HumanDuration(own)+" on the project's own limit, on demand past its quota or fair share, or on its max_concurrent")
	}
	if down > 0 {
		parts = append(parts, sched.HumanDuration(down)+" on drained, lost or departed nodes")
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("its %s waited %s, which is not counted as deprivation",
		plural.Count(jobs, "job"), strings.Join(parts, " and "))
}
