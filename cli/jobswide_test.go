package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// TestJobsWideRunTimes: allot jobs -o wide gives a running job its run
// time, time limit, when the limit ends it and its nodes, as squeue's
// TIME, TIME_LIMIT, END_TIME and NODELIST (trial r R12).
func TestJobsWideRunTimes(t *testing.T) {
	fixClock(t)
	started := t0.Add(-3*time.Minute - 12*time.Second)
	yesterday := t0.Add(-23 * time.Hour)
	jobs := []api.Job{
		{ID: 4, Name: "ana-hold", State: "running", Pool: "research", Project: "vision", User: "ana", Priority: 42, Weight: 1,
			Slots: 4, Tasks: 1, Running: 1, SubmittedAt: started, StartedAt: &started, TimeLimitS: 12 * 60,
			Nodes: []string{"n2"}, Reason: "on n2 since 2024-05-01 09:56:48 UTC"},
		{ID: 5, Name: "gang", State: "running", Pool: "research", Project: "vision", User: "ana", Priority: 42, Weight: 1,
			Slots: 8, Tasks: 1, Running: 1, SubmittedAt: yesterday, StartedAt: &yesterday, TimeLimitS: 48 * 3600,
			Nodes: []string{"n1", "n10", "n2", "n3", "dgx-a"}},
		{ID: 6, Name: "asha", State: "running", Pool: "research", Project: "nlp", User: "bo", Priority: 42, Weight: 1,
			Slots: 1, Tasks: 16, Running: 4, SubmittedAt: started, StartedAt: &started, TimeLimitS: 600, Nodes: []string{"n1"}},
		{ID: 7, Name: "nolimit", State: "running", Pool: "research", Project: "nlp", User: "bo", Priority: 42, Weight: 1,
			Slots: 1, Tasks: 1, Running: 1, SubmittedAt: started, StartedAt: &started, Nodes: []string{"n4"}},
		{ID: 8, Name: "waits", State: "queued", Pool: "research", Project: "nlp", User: "bo", Priority: 42, Weight: 1,
			Slots: 1, Tasks: 1, SubmittedAt: started, TimeLimitS: 3600, Position: 1},
	}
	var b bytes.Buffer
	f := jobsFlags{estimate: "range"}
	f.out.format = outputWide
	if err := printJobs(&b, jobs, client.JobFilter{}, f); err != nil {
		t.Fatal(err)
	}
	want := `POS  ID  NAME      STATE    POOL      PROJECT  USER  PRIORITY     WEIGHT  AGE     SLOTS  TASKS  START       ELAPSED  LIMIT  ENDS                 NODES            REASON
-    4   ana-hold  running  research  vision   ana   42 (NORMAL)  1       3m 12s  4      1/1    3m 12s ago  3m 12s   12m    10:08:48             n2               on n2 since 2024-05-01 09:56:48 UTC
-    5   gang      running  research  vision   ana   42 (NORMAL)  1       23h     8      1/1    23h ago     23h      48h    2024-05-02 11:00:00  n[1-3,10],dgx-a  -
-    6   asha      running  research  nlp      bo    42 (NORMAL)  1       3m 12s  1      4/16   3m 12s ago  3m 12s   10m    -                    n1               -
-    7   nolimit   running  research  nlp      bo    42 (NORMAL)  1       3m 12s  1      1/1    3m 12s ago  3m 12s   -      -                    n4               -
1    8   waits     queued   research  nlp      bo    42 (NORMAL)  1       3m 12s  1      0/1    -           -        1h     -                    -                -
`
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
