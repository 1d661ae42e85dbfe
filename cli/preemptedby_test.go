package cli

import (
	"strings"
	"testing"
	"time"

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

// TestJobShowResizedEnd: the END of an attempt the core resized (a
// fair-share shrink, a growth) or moved reads resized or moved, not
// preempted: the store ends it as preempted, but the task ran on at once.
func TestJobShowResizedEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    api.Attempt
		want string
	}{
		{"shrunk for a job", api.Attempt{EndState: "preempted", Reason: "checkpointed to resize",
			PreemptedBy: &api.PreemptedBy{Job: 10, Reason: "resized", Why: "resizing to 1 slot for job 10"}}, "resized"},
		{"grown", api.Attempt{EndState: "preempted", Reason: "checkpointed to resize"}, "resized"},
		{"moved", api.Attempt{EndState: "preempted", Reason: "checkpointed to move",
			PreemptedBy: &api.PreemptedBy{Job: 7, Reason: "moved"}}, "moved"},
		{"preempted", api.Attempt{EndState: "preempted", Reason: "checkpointed after preemption",
			PreemptedBy: &api.PreemptedBy{Job: 4, Reason: "priority"}}, "preempted"},
		{"completed", api.Attempt{EndState: "completed", Reason: "completed"}, "completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			tc.a.Number = 1
			if err := printTasks(&b, []api.Task{{Index: 0, State: "running", Attempts: []api.Attempt{tc.a}}}); err != nil {
				t.Fatal(err)
			}
			// No start or end time: each column is one field, END the 8th.
			if row := strings.Fields(strings.Split(b.String(), "\n")[1]); len(row) < 8 || row[7] != tc.want {
				t.Errorf("tasks:\n%s\nwant END %s", b.String(), tc.want)
			}
		})
	}
}

// TestJobShowResizingState: a task preempting to be resized in place
// (the master's resize) reads resizing in STATE, and its job in the State
// row (allot jobs reads the same ShownState); one preempting to be moved
// reads moving, its job too, unless another is being resized; a task
// preempted for good reads preempting, and a job ending killing (trial k
// C2).
func TestJobShowResizingState(t *testing.T) {
	resize := &api.SlotChange{From: 4, To: 2}
	move := &api.NodeChange{From: []string{"node-a"}, To: []string{"node-b"}}
	moving := &api.Moving{Tasks: 1, From: move.From, To: move.To}
	for _, tc := range []struct {
		name              string
		task              api.Task
		job               api.Job
		wantTask, wantJob string
	}{
		{"resizing", api.Task{State: "preempting", Resize: resize},
			api.Job{State: "running", Resizing: &api.Resizing{From: 4, To: 2}}, "resizing", "resizing"},
		{"moving", api.Task{State: "preempting", Move: move}, api.Job{State: "running", Moving: moving}, "moving", "moving"},
		{"a job with a task resized, another moved", api.Task{State: "preempting", Move: move},
			api.Job{State: "running", Moving: moving, Resizing: &api.Resizing{From: 4, To: 2}}, "moving", "resizing"},
		{"preempting", api.Task{State: "preempting"}, api.Job{State: "running"}, "preempting", "running"},
		{"a moved task since running", api.Task{State: "running", Move: move}, api.Job{State: "queued", Moving: moving},
			"running", "queued"},
		{"a killed job ending", api.Task{State: "killing"}, api.Job{State: "killed", Ending: true,
			Resizing: &api.Resizing{From: 4, To: 2}, Moving: moving}, "killing", "killing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			tc.task.Attempts = []api.Attempt{{Number: 1}}
			if err := printTasks(&b, []api.Task{tc.task}); err != nil {
				t.Fatal(err)
			}
			if row := strings.Fields(strings.Split(b.String(), "\n")[1]); len(row) < 2 || row[1] != tc.wantTask {
				t.Errorf("tasks:\n%s\nwant STATE %s", b.String(), tc.wantTask)
			}
			b.Reset()
			if err := printJob(&b, tc.job); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), "State "+tc.wantJob+" ") {
				t.Errorf("job:\n%s\nwant State %s", b.String(), tc.wantJob)
			}
		})
	}
}

// TestJobShowExitedEarlier: an attempt the master heard of materially
// after it exited (an outage) shows when it exited beside ENDED, since
// usage is charged to the exit; one heard of within a sync or two, or
// with no exit time, shows ENDED alone.
func TestJobShowExitedEarlier(t *testing.T) {
	ended := time.Date(2026, 11, 28, 4, 31, 57, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := ended.Add(d); return &x }
	for _, tc := range []struct {
		name   string
		exited *time.Time
		want   string
	}{
		{"heard after an outage", at(-97 * time.Second), "(exited 04:30:20)"},
		{"heard the day after", at(-5 * time.Hour), "(exited 2026-11-27 23:31:57)"},
		{"heard after a master's restart", at(-29 * time.Second), "(exited 04:31:28)"},
		{"heard at the next sync", at(-2 * time.Second), ""},
		{"no exit time", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(z *time.Location) { displayZone = z }(displayZone)
			displayZone = time.UTC
			var b strings.Builder
			a := api.Attempt{Number: 1, EndState: "completed", EndedAt: &ended, ExitedAt: tc.exited}
			if err := printTasks(&b, []api.Task{{Index: 0, State: "completed", Attempts: []api.Attempt{a}}}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "2026-11-28 04:31:57") || (tc.want != "" && !strings.Contains(out, "04:31:57 "+tc.want)) ||
				(tc.want == "" && strings.Contains(out, "exited")) {
				t.Errorf("tasks:\n%s\nwant ENDED 04:31:57 %s", out, tc.want)
			}
		})
	}
}

// TestJobShowLostStopped: an attempt lost with its node whose agent
// reported, once back, that it had stopped before the loss (its task
// shim's fence) shows when it exited beside ENDED, however soon before,
// and how it stopped in REASON; a lost attempt with no report shows the
// loss alone.
func TestJobShowLostStopped(t *testing.T) {
	ended := time.Date(2026, 11, 28, 18, 45, 24, 0, time.UTC)
	exited := ended.Add(-11 * time.Second)
	for _, tc := range []struct {
		name    string
		stopped string
		want    []string
	}{
		{"fenced", "fenced by its task shim, checkpoint requested", []string{"18:45:24 (exited 18:45:13)",
			"node qa lost: no contact for 30s; it had stopped at 18:45:13, 11s before (fenced by its task shim, checkpoint requested)"}},
		{"no report", "", []string{"18:45:24  lost"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(z *time.Location) { displayZone = z }(displayZone)
			displayZone = time.UTC
			var b strings.Builder
			x := exited
			if tc.stopped == "" {
				x = ended
			}
			a := api.Attempt{Number: 1, EndState: "lost", EndedAt: &ended, ExitedAt: &x, Reason: "node qa lost: no contact for 30s",
				Stopped: tc.stopped}
			if tc.stopped != "" {
				a.ReportedEnd = "preempted"
			}
			if err := printTasks(&b, []api.Task{{Index: 0, State: "running", Attempts: []api.Attempt{a}}}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("tasks:\n%s\nwant %q", out, w)
				}
			}
			if tc.stopped == "" && (strings.Contains(out, "exited") || strings.Contains(out, "stopped")) {
				t.Errorf("tasks:\n%s\nwant the loss alone", out)
			}
		})
	}
}
