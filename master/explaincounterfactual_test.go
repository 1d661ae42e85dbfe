package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// mustEndRef is what a counterfactual's must_end says of one job.
type mustEndRef struct {
	id      int64
	slots   int
	preempt string
	ends    bool // has a time limit
}

// TestCounterfactualMustEnd: the jobs that must end are each named once
// with what they hold on the node (all their tasks there, not one task's
// slots), and a job that the pool's policy could preempt for the job is
// told apart from one that must end: the message says so, and the
// soonest start there (not_before) is the end of those that must end,
// not "unknown" because one that could be preempted has no time limit;
// where the pool preempts, it says why the rule takes none of those that
// must end (trial 29e E2).
func TestCounterfactualMustEnd(t *testing.T) {
	const preempting = "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	tests := []struct {
		name    string
		config  string
		running []string
		dry     string
		want    []mustEndRef
		message string
		// notBefore is the soonest start from now; 0 for none.
		notBefore time.Duration
	}{
		{name: "a job's tasks on the node count together", config: preempting,
			running: []string{trialsSpec("grid", 1, `, "priority": 50, "time_limit": 3600`, 2),
				jobSpec("other", 2, `, "priority": 50, "time_limit": 7200`)},
			dry:  jobSpec("big", 4, `, "priority": 50`),
			want: []mustEndRef{{1, 2, "", true}, {2, 2, "", true}},
			message: "once jobs 1 and 2 end. Pool default preempts, but job 2 is not preemptible (resources.preemptible is false, " +
				"the default for jobs other than experiments), and job 1 does not rank below it (the rule takes only tasks of " +
				"a lower priority (a larger number)), so it waits for them to end.", notBefore: 2 * time.Hour},
		{name: "four tasks of one job hold four slots", config: preempting,
			running: []string{trialsSpec("grid", 1, `, "priority": 50, "time_limit": 3600`, 4)},
			dry:     jobSpec("big", 4, `, "priority": 50`),
			want:    []mustEndRef{{1, 4, "", true}},
			message: "once job 1 ends. Pool default preempts, but job 1 does not rank below it (the rule takes only tasks of " +
				"a lower priority (a larger number)), so it waits for it to end.", notBefore: time.Hour},
		{name: "one must end, the other could be preempted", config: preempting,
			running: []string{jobSpec("notebook", 2, `, "priority": 50, "time_limit": 3600`),
				jobSpec("grid", 2, `, "priority": 80, "preemptible": true`)},
			dry:  jobSpec("big", 4, `, "priority": 50`),
			want: []mustEndRef{{1, 2, "", true}, {2, 2, api.PreemptPossible, false}},
			message: "once job 1 ends and job 2 ends or is preempted. Pool default preempts, but job 1 is not preemptible " +
				"(resources.preemptible is false, the default for jobs other than experiments), so it waits for it to end.", notBefore: time.Hour},
		{name: "the same priority is never preempted: both must end", config: preempting,
			running: []string{jobSpec("notebook", 2, `, "priority": 50, "time_limit": 3600`),
				jobSpec("grid", 2, `, "priority": 50, "preemptible": true`)},
			dry:  jobSpec("big", 4, `, "priority": 50`),
			want: []mustEndRef{{1, 2, "", true}, {2, 2, "", false}},
			message: "once jobs 1 and 2 end. Pool default preempts, but job 1 is not preemptible (resources.preemptible is false, " +
				"the default for jobs other than experiments), and job 2 does not rank below it (the rule takes only tasks of " +
				"a lower priority (a larger number)), so it waits for them to end."},
		{name: "a pool that never preempts", config: "pools:\n  - {name: default, policy: fifo}\n",
			running: []string{jobSpec("grid", 2, `, "preemptible": true, "time_limit": 1800`)},
			dry:     jobSpec("big", 4, ""),
			want:    []mustEndRef{{1, 2, "", true}},
			message: "once job 1 ends.", notBefore: 30 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.config)))
			a := h.agent("n1", 4)
			for _, r := range tt.running {
				h.submit(r)
			}
			h.step()
			h.sync(a, a)
			h.step()
			now := h.clock.Now().UTC().Truncate(time.Second)
			var d api.DryRun
			if code := h.do("POST", "/api/v1/jobs?dry_run=true", tt.dry, &d); code != 200 {
				t.Fatalf("dry run: status %d", code)
			}
			cf := d.WouldStart
			if cf == nil || len(d.Preempts) > 0 {
				t.Fatalf("would_start %+v, preempts %+v: want it to wait without preempting", cf, d.Preempts)
			}
			var got []mustEndRef
			for _, r := range cf.MustEnd {
				got = append(got, mustEndRef{r.ID, r.Slots, r.Preempt, r.EndsAt != nil})
			}
			if !equalRefs(got, tt.want) || !strings.HasSuffix(cf.Message, tt.message) {
				t.Fatalf("must end %+v, %q; want %+v, %q", got, cf.Message, tt.want, tt.message)
			}
			switch {
			case tt.notBefore == 0 && cf.NotBefore != nil:
				t.Fatalf("not before %v, want none", cf.NotBefore)
			case tt.notBefore != 0 && (cf.NotBefore == nil || !cf.NotBefore.Equal(now.Add(tt.notBefore))):
				t.Fatalf("not before %v, want %v", cf.NotBefore, now.Add(tt.notBefore))
			}
		})
	}
}

func equalRefs(a, b []mustEndRef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
