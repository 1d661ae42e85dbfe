package sched

import (
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
