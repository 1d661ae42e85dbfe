package web

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// endingFixture is the fixture with job 2 killed while its agent has not
// confirmed the end: stored killed, its task still killing on gpu-a2,
// holding GPUs 0-3 (the API's ending).
func endingFixture() *fixture {
	f := newFixture()
	j := f.jobs[1]
	j.State, j.Ending, j.EndedAt = "killed", true, atp(-5*time.Second)
	j.Reason = "being killed: 1 task still stopping on gpu-a2, its agent has not confirmed the end (for 5s); killed through the API by user:root"
	j.TaskList[0].State = "killing"
	return f
}

// TestJobStillKilling: the dashboard shows a job whose kill its agent has
// not confirmed as killing, not killed, in the job list (by default, and
// under the killing filter), on its page (no Ended yet), and holding its
// GPUs in the overview.
func TestJobStillKilling(t *testing.T) {
	f := endingFixture()
	p := openPage(t, f, "#/jobs", wide)
	row := p.waitText(`tr[data-job="2"]`, "killing")
	if strings.Contains(row, "killed\t") || !strings.Contains(row, "being killed: 1 task still stopping on gpu-a2") {
		t.Errorf("job 2's row = %q, want killing with the reason", row)
	}
	if cls := evalJS[string](p, `document.querySelector('tr[data-job="2"] .state').className`); cls != "state state-killing" {
		t.Errorf("job 2's badge class = %q, want state state-killing", cls)
	}
	p.goTo("#/jobs?state=killing")
	p.waitFor(`document.querySelectorAll('tr[data-job]').length === 1 && !!document.querySelector('tr[data-job="2"]')`, "job 2 alone under state=killing")

	p.goTo("#/jobs/2")
	fields := p.waitText("#fields", "Kill requested")
	for _, want := range []string{"killing being killed: 1 task", "1 still stopping of 1", "not yet: 1 task still stopping"} {
		if !strings.Contains(fields, want) {
			t.Errorf("job 2's fields = %q, want %q", fields, want)
		}
	}
	if title := p.waitText("h1", "killing"); strings.Contains(title, "killed") {
		t.Errorf("job 2's title = %q, want killing", title)
	}

	p.goTo("#/")
	p.waitFor(`document.querySelectorAll('[data-node="gpu-a2"] .gpu.held:not(.other)').length === 4`, "job 2's four GPUs on gpu-a2 held by it")
	if title := evalJS[string](p, `document.querySelector('[data-node="gpu-a2"] .gpu.held').title`); title != "GPU 0 (A100): job 2 bert-finetune, task 0, being killed" {
		t.Errorf("gpu-a2's GPU 0 = %q, want it held by job 2, being killed", title)
	}
}

// TestJobKillTimes: a running job whose task its time limit is killing
// shows as killing, with since when and no end yet; a job killed while
// its task ran shows when the kill was requested and when it ended.
func TestJobKillTimes(t *testing.T) {
	f := newFixture()
	j := f.jobs[1]
	j.Ending, j.KillRequestedAt, j.EndedAt = true, atp(-5*time.Second), nil
	j.Reason = "being killed: 1 task still stopping on gpu-a2, its agent has not confirmed the end (for 5s); time limit of 1h0m0s reached"
	j.TaskList[0].State = "killing"
	p := openPage(t, f, "#/jobs?state=killing", wide)
	p.waitFor(`document.querySelectorAll('tr[data-job]').length === 1 && !!document.querySelector('tr[data-job="2"]')`, "job 2 alone under state=killing")
	p.goTo("#/jobs/2")
	fields := p.waitText("#fields", "Kill requested")
	for _, want := range []string{"killing being killed: 1 task", "time limit of 1h0m0s reached", "not yet: 1 task still stopping"} {
		if !strings.Contains(fields, want) {
			t.Errorf("job 2's fields = %q, want %q", fields, want)
		}
	}
	if strings.Contains(fields, "Killing since") {
		t.Errorf("job 2's fields = %q, want Kill requested, the one name of the field, not Killing since", fields)
	}

	f.mu.Lock() // the fixture serves meanwhile
	j.State, j.Ending, j.KillRequestedAt, j.EndedAt = "killed", false, atp(-time.Minute), atp(-5*time.Second)
	j.Reason, j.Running, j.TaskList[0].State = "killed through the API by user:root", 0, "killed"
	f.mu.Unlock()
	p.goTo("#/jobs")
	p.goTo("#/jobs/2")
	fields = p.waitText("#fields", "Kill requested")
	if !strings.Contains(fields, "Ended") || strings.Contains(fields, "not yet") {
		t.Errorf("job 2's fields = %q, want Kill requested and Ended", fields)
	}
}

// TestJobResizingOrMoving: a running job whose task is being resized in
// place (the API's resizing; its task preempting with a resize) or moved
// (moving; move) shows as resizing or moving in the job list and on its
// page, and its task too, not running and preempting (trial k C2); one
// whose task is being preempted (preempting) shows as preempting, not
// running (trial F16).
func TestJobResizingOrMoving(t *testing.T) {
	since := time.Now().Add(-5 * time.Second)
	for _, tc := range []struct {
		name, state, reason string
		set                 func(j *api.Job)
	}{
		{name: "resizing", state: "resizing", reason: "resizing from 4 to 2 slots for job 9 (quota reclaim: ...); checkpointing since ...",
			set: func(j *api.Job) {
				j.Resizing = &api.Resizing{Task: 0, Tasks: 1, From: 4, To: 2, ForJob: 9, Why: "quota reclaim: ...", Since: since}
				j.TaskList[0].Resize = &api.SlotChange{From: 4, To: 2}
			}},
		{name: "moving", state: "moving", reason: "moving to node-b to make room for job 9; checkpointing since ...",
			set: func(j *api.Job) {
				j.Moving = &api.Moving{Task: 0, Tasks: 1, From: []string{"node-a"}, To: []string{"node-b"}, ForJob: 9, Since: since}
				j.TaskList[0].Move = &api.NodeChange{From: []string{"node-a"}, To: []string{"node-b"}}
			}},
		{name: "preempting", state: "preempting", reason: "preempted for job 9 (quota reclaim: ...); checkpointing since ...",
			set: func(j *api.Job) {
				j.Preempting = &api.Preempting{Task: 0, Tasks: 1, Since: since, Deadline: since.Add(20 * time.Second),
					Why: "preempted for job 9 (quota reclaim: ...)"}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			j := f.jobs[1]
			tc.set(j)
			j.Reason, j.TaskList[0].State = tc.reason, "preempting"
			p := openPage(t, f, "#/jobs", wide)
			if row := p.waitText(`tr[data-job="2"]`, tc.state); !strings.Contains(row, tc.reason[:20]) {
				t.Errorf("job 2's row = %q, want %s with the reason", row, tc.state)
			}
			p.goTo("#/jobs/2")
			p.waitText("h1", tc.state)
			if task := p.waitText(`#attempts tbody[data-task="0"]`, tc.state); tc.state != "preempting" && strings.Contains(task, "preempting") {
				t.Errorf("task 0 = %q, want %s, not preempting", task, tc.state)
			}
		})
	}
}
