package master

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
)

func TestPreemptionRule(t *testing.T) {
	snap := func(policy sched.Policy, backfilled bool) *sched.Snapshot {
		return &sched.Snapshot{
			Pools:    []sched.Pool{{Name: "p", Policy: policy}},
			Projects: []sched.Project{{Name: "vision"}, {Name: "nlp"}},
			QOS:      []sched.QOS{{Name: "normal"}, {Name: "emergency", Preempt: true}},
			Jobs: []sched.Job{
				{ID: "7", Pool: 0, Priority: 40, Project: 1, QOS: 0},
				{ID: "9", Pool: 0, Priority: 5, Project: 0, QOS: 0},
			},
			Allocs: []sched.Alloc{{Job: 0, Backfilled: backfilled}},
		}
	}
	tests := []struct {
		name      string
		s         *sched.Snapshot
		want      string
		emergency bool
	}{
		{"priority", snap(sched.PolicyPriority, false), "preempted for job 9 (priority 5 runs before the preempted job's 40)", false},
		{"quota reclaim", snap(sched.PolicyQuota, false), "reclaimed for job 9 of project vision, within its quota; project nlp was using more than its quota", false},
		{"backfilled", snap(sched.PolicyPriority, true), "preempted for job 9 (this task was backfilled", false},
		{"fair share", snap(sched.PolicyFairShare, false), "fair share", false},
		{"QOS", snap(sched.PolicyMultifactor, false), "QOS emergency may preempt QOS normal", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.emergency {
				tt.s.Jobs[1].QOS = 1
			}
			if got := preemptionRule(tt.s, sched.Preemption{Alloc: 0, For: 1}); !strings.Contains(got, tt.want) {
				t.Errorf("rule %q, want it to say %q", got, tt.want)
			}
		})
	}
	if got := preemptionRule(&sched.Snapshot{}, sched.Preemption{Alloc: 3, For: 4}); got != "preempted" {
		t.Errorf("out of range: %q", got)
	}
	// A dry run's job has no ID: its victims read the name it is given.
	lead, why := preemptionParts(snap(sched.PolicyQuota, false), sched.Preemption{Alloc: 0, For: 1}, "the job submitted")
	if want := "reclaimed for the job submitted of project vision"; !strings.HasPrefix(lead, want) || why != "" {
		t.Errorf("parts %q, %q; want a lead starting %q alone", lead, why, want)
	}
}
