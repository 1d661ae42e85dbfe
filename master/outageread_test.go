package master

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestOutageViewOfStoppingTask: through a store outage, a live job's
// view from memory (X-Allot-Partial) gives its task's open attempt what
// the stored view gives: its placement, start and running time, whether
// the task runs or is being stopped (preempted, killed), and after a
// master restart too, where the memory view used to leave a stopping
// task's running time out.
func TestOutageViewOfStoppingTask(t *testing.T) {
	const pool = "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	for _, tc := range []struct {
		name    string
		state   store.TaskState
		stop    func(h *harness, id int64)
		restart bool
	}{
		{name: "running", state: store.TaskRunning, stop: func(*harness, int64) {}},
		{name: "being preempted", state: store.TaskPreempting, stop: func(h *harness, _ int64) {
			h.submit(jobSpec("urgent", 1, `, "priority": 10`))
			h.step()
		}},
		{name: "being killed", state: store.TaskKilling, stop: func(h *harness, id int64) {
			if code := h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/kill", nil, nil); code != 200 {
				h.t.Fatalf("kill job %d: %d", id, code)
			}
		}},
		{name: "being preempted, after a master restart", state: store.TaskPreempting, restart: true, stop: func(h *harness, _ int64) {
			h.submit(jobSpec("urgent", 1, `, "priority": 10`))
			h.step()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ds *deadStore
			h := newHarness(t, withConfig(mustConfig(t, pool)), func(o *Options) { ds = &deadStore{Store: o.Store}; o.Store = ds })
			a := h.agent("n1", 1)
			a.HoldPreempt, a.HoldKill = true, true
			id := h.submit(jobSpec("train", 1, `, "priority": 80, "preemptible": true`))
			h.step()
			h.clock.Advance(time.Minute) // the running time is not the start
			h.sync(a, a)
			tc.stop(h, id)
			if tc.restart {
				h.start()
				a.Master = h.srv.URL
				if _, err := a.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
			}
			if st := h.taskState(id, 0); st != tc.state {
				t.Fatalf("task %s, want %s", st, tc.state)
			}
			stored := openAttemptOf(t, h, id, false)
			ds.down.Store(true)
			memory := openAttemptOf(t, h, id, true)
			ds.down.Store(false)
			if stored.RunningAt == nil || !stored.RunningAt.After(stored.StartedAt) {
				t.Fatalf("stored open attempt %+v: want running after its start", stored)
			}
			stored.PreemptedBy = nil // the event log's, which the partial view says it lacks
			want, _ := json.Marshal(stored)
			if got, _ := json.Marshal(memory); string(got) != string(want) {
				t.Errorf("open attempt from memory:\n%s\nwant as stored:\n%s", got, want)
			}
		})
	}
}

// openAttemptOf is job id's task 0's open attempt as GET /jobs/{id}
// gives it, marked partial (from memory) or not as partial says.
func openAttemptOf(t *testing.T, h *harness, id int64, partial bool) api.Attempt {
	t.Helper()
	code, body, hdr := h.raw("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10), "")
	if code != 200 || (hdr.Get(api.PartialHeader) != "") != partial {
		t.Fatalf("GET job %d: %d, %s %q; want 200, partial %v\n%s", id, code, api.PartialHeader, hdr.Get(api.PartialHeader), partial, body)
	}
	var j api.Job
	if err := json.Unmarshal([]byte(body), &j); err != nil {
		t.Fatal(err)
	}
	for _, a := range j.TaskList[0].Attempts {
		if a.EndedAt == nil {
			return a
		}
	}
	t.Fatalf("job %d's task 0 has no open attempt: %+v", id, j.TaskList[0])
	return api.Attempt{}
}
