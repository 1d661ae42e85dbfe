package cli

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobShowPreemptedBy: allot job show's REASON of a preempted attempt
// names the job that preempted it, with its user where the caller may
// read it, and the rule, then how the attempt ended; a job the caller
// may not read by number alone.
func TestJobShowPreemptedBy(t *testing.T) {
	why := "preempted for job 4 (priority 10 runs before the preempted job's 70)"
	for _, tc := range []struct {
		name  string
		by    *api.PreemptedBy
		ended string
		want  string
	}{
		{"readable", &api.PreemptedBy{Job: 4, Reason: "priority", Why: why, User: "alice", Name: "high"},
			"checkpointed after preemption",
			"preempted for alice's job 4 (priority 10 runs before the preempted job's 70); checkpointed after preemption"},
		{"private", &api.PreemptedBy{Job: 4, Reason: "priority", Why: why, Private: true},
			"preempted: killed at the grace's end",
			"preempted for job 4 (priority 10 runs before the preempted job's 70); killed at the grace's end"},
		{"quota reclaim", &api.PreemptedBy{Job: 12, Reason: "quota_reclaim", User: "bob",
			Why: "reclaimed for job 12 of project nlp, within its quota; project vision was using more than its quota"}, "",
			"reclaimed for bob's job 12 of project nlp, within its quota; project vision was using more than its quota"},
		{"no words", &api.PreemptedBy{Job: 7, Reason: "moved"}, "checkpointed after preemption",
			"preempted for job 7; checkpointed after preemption"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			tasks := []api.Task{{Index: 0, State: "queued", Attempts: []api.Attempt{{Number: 1, EndState: "preempted",
				Reason: tc.ended, PreemptedBy: tc.by}}}}
			if err := printTasks(&b, tasks); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "  "+tc.want+"\n") {
				t.Errorf("tasks:\n%s\nwant the reason %q", b.String(), tc.want)
			}
		})
	}
}
