package master

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

func TestPreemptionRule(t *testing.T) {
	snap := func(policy sched.Policy, backfilled bool) *sched.Snapshot {
		return &sched.Snapshot{
			Pools:    []sched.Pool{{Name: "p", Policy: policy}},
			Projects: []sched.Project{{Name: "vision"}, {Name: "nlp"}},
			QOS:      []sched.QOS{{Name: "normal"}, {Name: "emergency", Preempt: true}, {Name: "high", Priority: 10}},
			Jobs: []sched.Job{
				{ID: "7", Pool: 0, Priority: 40, Project: 1, QOS: 0},
				{ID: "9", Pool: 0, Priority: 5, Project: 0, QOS: 0},
			},
			Allocs: []sched.Alloc{{Job: 0, Backfilled: backfilled}},
		}
	}
	tests := []struct {
		name     string
		s        *sched.Snapshot
		want     string
		takerQOS int // 1: emergency, 2: high
		cause    store.Cause
	}{
		{"priority", snap(sched.PolicyPriority, false), "preempted for job 9 (priority 5 runs before the preempted job's 40)", 0,
			store.CausePriority},
		{"quota reclaim", snap(sched.PolicyQuota, false), "reclaimed for job 9 of project vision, within its quota; project nlp was using more than its quota", 0,
			store.CauseQuotaReclaim},
		{"backfilled", snap(sched.PolicyPriority, true), "preempted for job 9 (this task was backfilled", 0,
			store.CauseBackfilled},
		{"fair share", snap(sched.PolicyFairShare, false), "fair share", 0, store.CauseFairShare},
		{"multifactor: the QOS's rule first (trial p F5)", snap(sched.PolicyMultifactor, false),
			"its QOS high (priority 10) ranks above the preempted job's QOS normal (0), and so does its multifactor priority", 2, store.CauseMultifactor},
		{"QOS", snap(sched.PolicyMultifactor, false), "QOS emergency may preempt QOS normal", 1, store.CauseQOS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.s.Jobs[1].QOS = tt.takerQOS
			got, cause := preemptionRule(tt.s, sched.Preemption{Alloc: 0, For: 1})
			if !strings.Contains(got, tt.want) || cause != tt.cause {
				t.Errorf("rule %q (%s), want it to say %q (%s)", got, cause, tt.want, tt.cause)
			}
		})
	}
	t.Run("same project in a quota pool", func(t *testing.T) {
		s := snap(sched.PolicyQuota, false)
		s.Jobs[0].Project = 0
		if got, cause := preemptionRule(s, sched.Preemption{Alloc: 0, For: 1}); !strings.Contains(got, "of the same project") ||
			cause != store.CauseSameProject {
			t.Errorf("rule %q (%s), want the same project's (%s)", got, cause, store.CauseSameProject)
		}
	})
	if got, cause := preemptionRule(&sched.Snapshot{}, sched.Preemption{Alloc: 3, For: 4}); got != "preempted" || cause != "" {
		t.Errorf("out of range: %q (%s)", got, cause)
	}
	// A dry run's job has no ID: its victims read the name it is given.
	lead, why, _ := preemptionAccount(snap(sched.PolicyQuota, false), sched.Preemption{Alloc: 0, For: 1}, "the submitted job")
	if want := "reclaimed for the submitted job of project vision"; !strings.HasPrefix(lead, want) || why != "" {
		t.Errorf("parts %q, %q; want a lead starting %q alone", lead, why, want)
	}
}
