package sched

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestOverQuotaBorrowHint: work that may only run within quota is told
// that, submitted preemptible, it could borrow idle slots past its quota,
// but only where that is so: slots idle for a task, no limit in the way.
// Made preemptible, the same job does start: the advice holds.
func TestOverQuotaBorrowHint(t *testing.T) {
	const hint = "submitted preemptible (resources: preemptible: true) it could borrow idle slots past its quota"
	tests := []struct {
		name   string
		build  func() (*Snapshot, int)
		says   string // "" when the message must not give the hint
		starts bool   // whether the job, made preemptible, starts
	}{
		{"quota 0, idle pool: not preemptible", func() (*Snapshot, int) {
			s := quotaSnap(1, 4, "a", 0, "b", 4)
			j := addJob(s, "train", 0, 2, 1, false)
			s.Jobs[j].Preemptible = false
			return s, j
		}, hint + " (4 idle in the pool)", true},
		{"quota 0, idle pool: interactive", func() (*Snapshot, int) {
			s := quotaSnap(1, 4, "a", 0, "b", 4)
			return s, addJob(s, "notebook", 0, 1, 1, true)
		}, hint + " (4 idle in the pool)", true},
		{"quota used, some slots idle", func() (*Snapshot, int) {
			s := quotaSnap(1, 8, "a", 2, "b", 6)
			run := addJob(s, "run", 0, 2, 0, false)
			s.Jobs[run].Preemptible = false
			addRun(s, run, 0, 2, 0)
			j := addJob(s, "train", 0, 1, 1, false)
			s.Jobs[j].Preemptible = false
			return s, j
		}, hint + " (6 idle in the pool)", true},
		{"quota used, pool full", func() (*Snapshot, int) {
			s := quotaSnap(1, 4, "a", 2, "b", 2)
			run := addJob(s, "run", 0, 2, 0, false)
			s.Jobs[run].Preemptible = false
			addRun(s, run, 0, 2, 0)
			other := addJob(s, "other", 1, 2, 0, true)
			addRun(s, other, 0, 2, 0)
			j := addJob(s, "train", 0, 1, 1, false)
			s.Jobs[j].Preemptible = false
			return s, j
		}, "", false},
		{"fewer slots idle than a task needs", func() (*Snapshot, int) {
			s := quotaSnap(1, 4, "a", 0, "b", 4)
			other := addJob(s, "other", 1, 3, 0, true)
			addRun(s, other, 0, 3, 0)
			j := addJob(s, "train", 0, 2, 1, false)
			s.Jobs[j].Preemptible = false
			return s, j
		}, "", false},
		{"no node in the pool", func() (*Snapshot, int) {
			s := quotaSnap(0, 4, "a", 0)
			return s, addJob(s, "notebook", 0, 1, 1, true)
		}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, j := tc.build()
			p := mustSchedule(t, s)
			m := mustPending(t, s, &p, j, ReasonOverQuota).Message(s)
			if !strings.Contains(m, "this work may only run within quota") {
				t.Errorf("message %q does not give the reason", m)
			}
			if tc.says != "" && !strings.Contains(m, tc.says) {
				t.Errorf("message %q does not say %q", m, tc.says)
			}
			if tc.says == "" && strings.Contains(m, "preemptible") {
				t.Errorf("message %q gives the hint where borrowing is not possible", m)
			}
			s.Jobs[j].Preemptible, s.Jobs[j].Interactive = true, false
			p = mustSchedule(t, s)
			if _, waits := pendingOf(&p, j); waits == tc.starts {
				t.Errorf("made preemptible, the job waits %v, want it to start %v", waits, tc.starts)
			}
		})
	}
}

// TestOverQuotaBorrowHintAfterPlan: the advice counts the slots idle once
// the pass's plan holds what it placed, not those it gave away: a job is
// not told of idle slots the same pass started other work on, nor of a
// limit room its own project's borrowers just took. Made preemptible,
// the job starts exactly where the advice is given, and the count is
// that of the snapshot with the plan applied.
func TestOverQuotaBorrowHintAfterPlan(t *testing.T) {
	const hint = "submitted preemptible (resources: preemptible: true) it could borrow idle slots past its quota"
	tests := []struct {
		name   string
		build  func() (*Snapshot, int)
		before string // what the snapshot as it stands says (Pending.Message)
		after  string // what the plan leaves says (Plan.Message); "": no hint
		// starts is whether the job, made preemptible, starts in the
		// same pass: where the advice is not given, only if it would
		// have taken room the pass gave to others.
		starts bool
	}{
		{"within-quota work of another project takes every idle slot", func() (*Snapshot, int) {
			s := quotaSnap(1, 4, "a", 0, "b", 4)
			j := addJob(s, "train", 0, 2, 1, false)
			s.Jobs[j].Preemptible = false
			other := addJob(s, "other", 1, 4, 1, false)
			s.Jobs[other].Preemptible = false
			return s, j
		}, hint + " (4 idle in the pool)", "", false},
		{"within-quota work of another project takes some", func() (*Snapshot, int) {
			s := quotaSnap(1, 8, "a", 0, "b", 4)
			j := addJob(s, "train", 0, 2, 1, false)
			s.Jobs[j].Preemptible = false
			other := addJob(s, "other", 1, 4, 1, false)
			s.Jobs[other].Preemptible = false
			return s, j
		}, hint + " (8 idle in the pool)", hint + " (4 idle in the pool)", true},
		{"a borrower of its own project takes the room under its limit", func() (*Snapshot, int) {
			s := quotaSnap(1, 8, "a", 0, "b", 8)
			s.Projects[0].Limit = 4
			addJob(s, "borrower", 0, 3, 1, false)
			j := addJob(s, "train", 0, 2, 1, false)
			s.Jobs[j].Preemptible = false
			return s, j
		}, hint + " (8 idle in the pool)", "", false},
		{"an elastic task of another project grows in place", func() (*Snapshot, int) {
			s := quotaSnap(1, 8, "a", 8, "b", 0)
			el := addJob(s, "el", 0, 8, 0, false)
			s.Jobs[el].MinSlots = 1
			addRun(s, el, 0, 2, 10)
			j := addJob(s, "train", 1, 2, 1, false)
			s.Jobs[j].Preemptible = false
			return s, j
		}, hint + " (6 idle in the pool)", hint + " (4 idle in the pool)", true},
		{"an elastic task of its own project grows up to its limit", func() (*Snapshot, int) {
			s := quotaSnap(1, 8, "a", 1, "b", 7)
			s.Projects[0].Limit = 5
			el := addJob(s, "el", 0, 8, 0, false)
			s.Jobs[el].MinSlots = 1
			addRun(s, el, 0, 2, 10)
			j := addJob(s, "train", 0, 2, 1, false)
			s.Jobs[j].Preemptible = false
			return s, j
		}, hint + " (6 idle in the pool)", "", true},
		{"nothing else starts: before and after agree", func() (*Snapshot, int) {
			s := quotaSnap(1, 4, "a", 0, "b", 4)
			j := addJob(s, "train", 0, 2, 1, false)
			s.Jobs[j].Preemptible = false
			return s, j
		}, hint + " (4 idle in the pool)", hint + " (4 idle in the pool)", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, j := tc.build()
			checkBorrowAfterPlan(t, s, j, tc.before, tc.after, tc.starts)
		})
	}
}

// checkBorrowAfterPlan checks job j's over_quota message as s stands
// (before) and as the plan leaves it (after; "": no hint), the count
// against the snapshot with the plan applied, and whether j, made
// preemptible, starts.
func checkBorrowAfterPlan(t *testing.T, s *Snapshot, j int, before, after string, starts bool) {
	t.Helper()
	p := mustSchedule(t, s)
	pe := mustPending(t, s, &p, j, ReasonOverQuota)
	if m := pe.Message(s); !strings.Contains(m, before) {
		t.Errorf("before the plan: message %q does not say %q", m, before)
	}
	i := slices.IndexFunc(p.Pending, func(x Pending) bool { return x.Job == j })
	m := p.Message(s, i)
	if !strings.Contains(m, "this work may only run within quota") {
		t.Errorf("message %q does not give the reason", m)
	}
	if after != "" && !strings.Contains(m, after) {
		t.Errorf("after the plan: message %q does not say %q", m, after)
	}
	if after == "" && strings.Contains(m, "preemptible") {
		t.Errorf("after the plan: message %q gives the hint where the pass took the room", m)
	}
	if got, want := p.BorrowIdle(s, j, pe.Need), applyPlan(s, &p).BorrowIdle(j, pe.Need); got != want {
		t.Errorf("after the plan: %d idle, the snapshot with the plan applied says %d", got, want)
	}
	s.Jobs[j].Preemptible, s.Jobs[j].Interactive = true, false
	p = mustSchedule(t, s)
	if _, waits := pendingOf(&p, j); waits == starts {
		t.Errorf("made preemptible, the job waits %v, want it to start %v", waits, starts)
	}
}

// TestBorrowIdleAfterPlanIsTheAppliedSnapshot: on random fragmented
// clusters (quota pools, some projects with limits, moves, elastic
// resizes, preemptions), what Plan.BorrowIdle says for every job is what the
// snapshot with the plan applied says, as its driver would report it.
func TestBorrowIdleAfterPlanIsTheAppliedSnapshot(t *testing.T) {
	cases := []struct {
		name string
		seed uint64
	}{
		{"seed 1", 1},
		{"seed 2", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed, 13))
			changed, replaced := 0, 0
			for range 300 {
				s := fragSnapshot(rng)
				for pr := range s.Projects {
					if rng.IntN(3) == 0 {
						s.Projects[pr].Limit = s.Projects[pr].Quota + rng.IntN(24)
					}
				}
				p := mustSchedule(t, s)
				after := applyPlan(s, &p)
				for j := range s.Jobs {
					// Asked of every job as if it could only run within
					// quota, which the plan, made already, does not read.
					s.Jobs[j].Preemptible, s.Jobs[j].Borrow = false, false
					after.Jobs[j].Preemptible, after.Jobs[j].Borrow = false, false
					for _, need := range []int{1, max(s.Jobs[j].Slots, 1)} {
						got, want := p.BorrowIdle(s, j, need), after.BorrowIdle(j, need)
						if got != want {
							t.Fatalf("job %s needing %d: %d idle after the plan, the applied snapshot says %d\n%s",
								s.Jobs[j].ID, need, got, want, fmtPlan(s, &p))
						}
						if got != s.BorrowIdle(j, need) {
							changed++
							if len(p.Moves)+len(p.Resizes)+len(p.Preemptions) > 0 {
								replaced++
							}
						}
					}
				}
			}
			if changed == 0 || replaced == 0 {
				t.Fatalf("%d answers changed by a plan, %d with moves, resizes or preemptions: the test proves nothing", changed, replaced)
			}
			t.Logf("%d answers changed by a plan, %d with moves, resizes or preemptions", changed, replaced)
		})
	}
}
