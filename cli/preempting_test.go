package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// f16Jobs is trial F16's pair: job 16 (another project's, over quota)
// being preempted for job 17, which waits for its checkpoint; the pool's
// grace is 20s and the master's answer is as of asOf.
func f16Jobs(asOf time.Time) (victim, taker api.Job) {
	since := t0
	deadline := since.Add(20 * time.Second)
	victim = api.Job{ID: 16, Name: "sweep", State: "running", Pool: "research", Project: "nlp", Slots: 4, Tasks: 1, Running: 1,
		Reason:     "preempted for job 17 (quota reclaim); checkpointing since 2024-05-01 10:00:00 UTC, killed at 10:00:20 UTC if not stopped by then",
		Preempting: &api.Preempting{Task: 0, Tasks: 1, Since: since, Deadline: deadline, Why: "preempted for job 17 (quota reclaim)"}}
	start := maxOf(deadline, asOf)
	taker = api.Job{ID: 17, Name: "train", State: "queued", Pool: "research", Project: "vision", Slots: 4, Tasks: 1, Position: 1,
		Pending: &api.Pending{Reason: "checkpointing", Message: "slots were freed by preemption; waiting for the preempted tasks to checkpoint (needs 4 slots)",
			EstimatedStart: &start, EstimateBasis: "checkpoint", AsOf: &asOf}}
	return victim, taker
}

func maxOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// TestJobsPreempting: allot jobs shows a job whose task is being
// preempted as preempting, not running, with its deadline in the
// reason, and the job waiting for its checkpoint as starting within the
// grace (trial F16), or now once the grace is over.
func TestJobsPreempting(t *testing.T) {
	const victimRow = "preempting  research  nlp      4      1/1    "
	const reason = "preempted for job 17 (quota reclaim); checkpointing since 2024-05-01 10:00:00 UTC, killed at 10:00:20 UTC if not stopped by then"
	const waits = "slots were freed by preemption; waiting for the preempted tasks to checkpoint (needs 4 slots)"
	for _, tc := range []struct {
		name string
		asOf time.Time
		want string
	}{
		{name: "within the grace", asOf: t0.Add(5 * time.Second), want: `POS  ID  NAME   STATE       POOL      PROJECT  SLOTS  TASKS  START    REASON
-    16  sweep  ` + victimRow + `-        ` + reason + `
1    17  train  queued      research  vision   4      0/1    in ≤15s  ` + waits + `
`},
		{name: "grace over", asOf: t0.Add(25 * time.Second), want: `POS  ID  NAME   STATE       POOL      PROJECT  SLOTS  TASKS  START  REASON
-    16  sweep  ` + victimRow + `-      ` + reason + `
1    17  train  queued      research  vision   4      0/1    now    ` + waits + `
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			victim, taker := f16Jobs(tc.asOf)
			var b bytes.Buffer
			if err := printJobs(&b, []api.Job{victim, taker}, client.JobFilter{}, jobsFlags{estimate: "range"}); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

// TestExplainCheckpointing: explain of a job waiting for the checkpoint
// of a job preempted for it gives its start by the grace's end, naming
// that job, never a forecast in the past, and the table gives the
// victim's checkpoint deadline, not its time limit, which no longer
// matters (trial F16); a table with a job that must end besides gives
// each its own under FREES BY.
func TestExplainCheckpointing(t *testing.T) {
	fixClock(t)
	deadline, limit := t0.Add(20*time.Second), t0.Add(19*time.Minute+45*time.Second)
	victim := api.JobRef{ID: 16, Project: "nlp", Slots: 4, Private: true, EndsAt: &limit, Preempt: api.PreemptUnderWay, CheckpointBy: &deadline}
	other := api.JobRef{ID: 9, Name: "eval", User: "bo", Project: "vision", Slots: 2, EndsAt: &limit}
	for _, tc := range []struct {
		name string
		asOf time.Time
		refs []api.JobRef
		want []string
		not  []string
	}{
		{name: "within the grace", asOf: t0, refs: []api.JobRef{victim}, want: []string{
			"Start:    by 2024-05-01 10:00:20 (in 20s), when job 16's checkpoint grace ends\n",
			"  JOB  NAME                     USER  PROJECT  SLOTS  CHECKPOINT BY\n" +
				"  16   (another project's job)  -     nlp      4      2024-05-01 10:00:20 (in 20s)\n",
		}, not: []string{"LIMIT ENDS", "19m 45s", "ago", "forecast"}},
		{name: "grace over, the end not yet confirmed", asOf: t0.Add(25 * time.Second), refs: []api.JobRef{victim}, want: []string{
			"Start:    now: job 16's checkpoint grace ended 2024-05-01 10:00:20 (5s ago); it starts once the end is confirmed\n",
		}},
		{name: "one must end besides", asOf: t0, refs: []api.JobRef{victim, other}, want: []string{
			"SLOTS  FREES BY                       WAIT FOR\n",
			"  4      2024-05-01 10:00:20 (in 20s)   its preemption\n",
			"  2      2024-05-01 10:19 (in 19m 45s)  its end\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, taker := f16Jobs(tc.asOf)
			x := api.Explanation{Job: 17, State: "queued", Pool: "research", Policy: "quota", Position: 1, Queued: 1,
				Order: "by priority", Pending: taker.Pending, AsOf: tc.asOf, Summary: "It waits for job 16's checkpoint.",
				WouldStart: &api.Counterfactual{Nodes: []string{"n1"}, MustEnd: tc.refs, Message: "m"}}
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			for _, w := range tc.not {
				if strings.Contains(b.String(), w) {
					t.Errorf("output says %q:\n%s", w, b.String())
				}
			}
		})
	}
}

// TestExplainPreemptingHeading: explain of a job whose task is being
// preempted heads it preempting, as allot jobs shows it, not running.
func TestExplainPreemptingHeading(t *testing.T) {
	victim, _ := f16Jobs(t0)
	for _, tc := range []struct {
		name       string
		preempting *api.Preempting
		want       string
	}{
		{name: "being preempted", preempting: victim.Preempting, want: "Job 16 (preempting, pool research, quota)\n"},
		{name: "running", want: "Job 16 (running, pool research, quota)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := api.Explanation{Job: 16, State: "running", Pool: "research", Policy: "quota", Preempting: tc.preempting, AsOf: t0,
				Summary: "It is running."}
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(b.String(), tc.want) {
				t.Errorf("output does not begin %q:\n%s", tc.want, b.String())
			}
		})
	}
}
