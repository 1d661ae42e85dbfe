package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// fixtureJobEvents is job id's event log: its submission, a change of its
// time limit, a start and a preemption of task 0.
func fixtureJobEvents(id int64) api.JobEvents {
	return api.JobEvents{Job: id, Events: []api.JobEvent{
		{Seq: 10, At: t0, From: "", To: "queued", Reason: "submitted"},
		{Seq: 11, At: t0.Add(time.Minute), From: "queued", To: "queued", Reason: "time limit 10m0s → 1m30s: changed through the API"},
		{Seq: 12, At: t0.Add(2 * time.Minute), Task: ptr(0), Attempt: 1, From: "queued", To: "running", Reason: "started on dgx-1"},
		{Seq: 13, At: t0.Add(3 * time.Minute), Task: ptr(0), Attempt: 1, From: "running", To: "preempting", Reason: "preempted",
			Cause: "priority", ForJob: 9, Why: "priority 5 runs before the preempted job's 40"},
	}}
}

// fakeJobEvents serves the fixture in pages of two events, as the master
// pages a long log (more, after), so that the client's paging is tested.
func fakeJobEvents(j *api.Job, r *http.Request) (any, int) {
	all := fixtureJobEvents(j.ID)
	page := api.JobEvents{Job: j.ID, Events: all.Events[:2], More: true}
	if r.URL.Query().Get("after") == "11" {
		page.Events, page.More = all.Events[2:], false
	}
	return page, http.StatusOK
}

func TestJobEventsCommand(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "table", args: []string{"job", "events", "3"},
			out: `TIME                 TASK           FROM→TO             CAUSE               REASON
2024-05-01 10:00:00  -              →queued             -                   submitted
2024-05-01 10:01:00  -              queued              -                   time limit 10m0s → 1m30s: changed through the API
2024-05-01 10:02:00  0 (attempt 1)  queued→running      -                   started on dgx-1
2024-05-01 10:03:00  0 (attempt 1)  running→preempting  priority for job 9  preempted (priority 5 runs before the preempted job's 40)
`},
		{name: "no such job", args: []string{"job", "events", "99"}, err: "job 99 does not exist"},
		{name: "bad id", args: []string{"job", "events", "x"}, err: `job ID: expected a positive integer, got "x"`},
	})
	t.Run("json", func(t *testing.T) {
		out, _, err := runAt(t, f, "job", "events", "3", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var got api.JobEvents
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("-o json: %v\n%s", err, out)
		}
		if got.Job != 3 || len(got.Events) != 4 || got.More || got.Events[3].ForJob != 9 {
			t.Fatalf("-o json: %+v, want the fixture's four events, paged together", got)
		}
	})
	t.Run("yaml", func(t *testing.T) {
		out, _, err := runAt(t, f, "job", "events", "3", "-o", "yaml")
		if err != nil || !strings.Contains(out, "for_job: 9") {
			t.Fatalf("-o yaml: %v\n%s", err, out)
		}
	})
}
