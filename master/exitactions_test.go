package master

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// TestPreemptExitActions: a LOW job is preempted again and again by HIGH
// jobs until its exit actions (its file's, else its pool's) fail it, with
// a reason that names them; its job then ends failed, and the job's view
// shows exit actions that are not the default. restart restarts the
// master after the first preemption: the retries are counted again from
// the event log.
func TestPreemptExitActions(t *testing.T) {
	const prio = `{name: default, policy: priority, preemption: true%s}`
	for _, c := range []struct {
		name       string
		pool       string // the pool's own fields
		exit       string // the job file's
		restart    bool
		fails      int // the preemption that fails the task; 0: none of the first three
		reason     string
		onPreempt  string // the view's on_preempt and max_retries (-1: none)
		maxRetries int
	}{
		{"no exit actions: rescheduled", "", "", false, 0, "", "", -1},
		{"on_preempt fail", "", `, "on_preempt": "fail"`, false, 1, "preempted; on_preempt: fail", "fail", -1},
		{"max_retries 0", "", `, "max_retries": 0`, false, 1, "preempted 1 time, max_retries 0", "reschedule", 0},
		{"max_retries 1: the second", "", `, "max_retries": 1`, false, 2, "preempted 2 times, max_retries 1", "reschedule", 1},
		{"max_retries 1 across a restart", "", `, "max_retries": 1`, true, 2, "preempted 2 times, max_retries 1", "reschedule", 1},
		{"the pool's max_retries", ", max_retries: 2", "", false, 3, "preempted 3 times, max_retries 2", "reschedule", 2},
		{"the pool's on_preempt", ", on_preempt: fail", "", false, 1, "preempted; on_preempt: fail", "fail", -1},
		{"the job's over the pool's", ", on_preempt: fail", `, "on_preempt": "reschedule"`, false, 0, "", "", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools: ["+fmt.Sprintf(prio, c.pool)+"]\n")))
			a := h.agent("n1", 4)
			a.HoldPreempt = true
			low := h.submit(jobSpec("low", 4, `, "priority": 80`+c.exit))
			v := h.job(low)
			gotMax := -1
			if v.MaxRetries != nil {
				gotMax = *v.MaxRetries
			}
			if v.OnPreempt != c.onPreempt || gotMax != c.maxRetries {
				t.Errorf("view's exit actions %q, %d; want %q, %d", v.OnPreempt, gotMax, c.onPreempt, c.maxRetries)
			}
			h.step()
			h.sync(a, a)
			for n := 1; n <= 3; n++ {
				high := h.submit(jobSpec(fmt.Sprintf("high%d", n), 4, `, "priority": 10`))
				h.step()
				h.sync(a)
				a.Exit(tid(low, 0, n), agent.OutcomePreempted, 0)
				h.sync(a)
				want := store.TaskQueued
				if n == c.fails {
					want = store.TaskFailed
				}
				if got := h.taskState(low, 0); got != want {
					t.Fatalf("preemption %d: low's task %s, want %s", n, got, want)
				}
				if want == store.TaskFailed {
					j := h.job(low)
					if j.State != "failed" {
						t.Errorf("low's job %s, want failed", j.State)
					}
					if task := j.TaskList; len(task) != 1 || task[0].Reason != c.reason {
						t.Errorf("low's task %+v, want the reason %q", task, c.reason)
					}
					// D4 (trial 2026-11-29d): the job's reason and allot
					// history's say why, and RESTARTS counts the restarts
					// that happened: n preemptions, the last failing it.
					if want := "1 of 1 task failed: " + c.reason; j.Reason != want {
						t.Errorf("low's job reason %q, want %q", j.Reason, want)
					}
					if got := j.TaskList[0].Restarts; got != n-1 {
						t.Errorf("low's task restarts %d, want %d", got, n-1)
					}
					var recs []api.HistoryRecord
					h.clock.Advance(time.Second) // the window ends before now
					if code := h.do("GET", "/api/v1/history", nil, &recs); code != http.StatusOK {
						t.Fatalf("GET /history: %d", code)
					}
					i := slices.IndexFunc(recs, func(r api.HistoryRecord) bool { return r.ID == low })
					if i < 0 || recs[i].Reason != j.Reason {
						t.Errorf("history of low (at %d): %+v, want the reason %q", i, recs, j.Reason)
					}
					return
				}
				if c.restart && n == 1 {
					h.start()
					a.Master = h.srv.URL
					if _, err := a.Register(h.ctx); err != nil {
						t.Fatal(err)
					}
				}
				h.step()
				h.sync(a, a)
				a.Exit(tid(high, 0, 1), agent.OutcomeCompleted, 0)
				h.sync(a)
				h.step()
				h.sync(a, a)
				if got := h.taskState(low, 0); got != store.TaskRunning {
					t.Fatalf("after preemption %d: low's task %s, want running again", n, got)
				}
			}
		})
	}
}

// TestSubmitExitActions: exit actions are taken in every pool, one that
// never preempts too, where they still govern an owner's requeue (and a
// lost attempt): max_retries 0 in a backfill pool makes the requeue a
// 409 (trial 2026-11-29d D10). So are those of a job that is not
// preemptible, which they govern in the same ways.
func TestSubmitExitActions(t *testing.T) {
	const fifo, quota = "pools: [{name: default, policy: fifo}]\n", "pools: [{name: default, policy: quota}]\n"
	const backfill = "pools: [{name: default, policy: backfill}]\n"
	const preempting = "pools: [{name: default, policy: priority, preemption: true}]\n"
	for _, c := range []struct {
		name, config, extra, field string
		code                       int
		requeue                    int // the owner's requeue of it running, 0: not tried
	}{
		{"on_preempt in a fifo pool", fifo, `, "priority": 80, "on_preempt": "fail"`, "", 201, 409},
		{"max_retries 0 in a backfill pool", backfill, `, "priority": 80, "max_retries": 0`, "", 201, 409},
		{"max_retries 1 in a backfill pool", backfill, `, "priority": 80, "max_retries": 1`, "", 201, 200},
		{"max_retries in a quota pool", quota, `, "priority": 80, "max_retries": 1`, "", 201, 0},
		{"max_retries 0, not preemptible", preempting, `, "priority": 40, "preemptible": false, "max_retries": 0`, "", 201, 409},
		{"max_retries 1, not preemptible", preempting, `, "priority": 40, "preemptible": false, "max_retries": 1`, "", 201, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, c.config)))
			a := h.agent("n1", 4)
			var e struct {
				ID    int64  `json:"id"`
				Field string `json:"field"`
			}
			code := h.do("POST", "/api/v1/jobs", jobSpec("j", 1, c.extra), &e)
			if code != c.code || e.Field != c.field {
				t.Fatalf("submit: %d, field %q; want %d, field %q", code, e.Field, c.code, c.field)
			}
			if c.requeue == 0 {
				return
			}
			h.step()
			h.sync(a)
			if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/requeue", e.ID), nil, nil); code != c.requeue {
				t.Errorf("requeue: %d, want %d", code, c.requeue)
			}
		})
	}
}

// TestHistoryScenarioExitActions: the what-if export writes the pool's
// exit actions as configured and each job's as they are live: its file's,
// else its pool's (left out, as the pool's). A job filed LOW with its own
// and moved out of LOW keeps them, submitted preemptible as it was; so
// do one that is not preemptible (pinned) and one filed so and moved
// into LOW (lowered): they govern its lost attempts live.
func TestHistoryScenarioExitActions(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: priority, preemption: true, max_retries: 2}\n")))
	h.agent("n1", 4)
	t0 := h.clock.Now()
	h.submit(jobSpec("own", 1, `, "priority": 80, "on_preempt": "fail"`))
	h.submit(jobSpec("capped", 1, `, "priority": 80, "max_retries": 5`))
	h.submit(jobSpec("pools", 1, `, "priority": 80`))
	raised := h.submit(jobSpec("raised", 1, `, "priority": 80, "max_retries": 0`))
	h.submit(jobSpec("pinned", 1, `, "priority": 45, "preemptible": false, "max_retries": 0`))
	lowered := h.submit(jobSpec("lowered", 1, `, "priority": 45, "preemptible": false, "on_preempt": "fail"`))
	h.clock.Advance(10 * time.Second)
	for id, prio := range map[int64]string{raised: `{"priority": 45}`, lowered: `{"priority": 80}`} {
		if code := h.do("PATCH", "/api/v1/jobs/"+strconv.FormatInt(id, 10), prio, nil); code/100 != 2 {
			t.Fatalf("change job %d: %d", id, code)
		}
	}
	h.clock.Advance(time.Minute)
	sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
	if len(sc.Pools) != 1 || sc.Pools[0].OnPreempt != spec.OnPreemptReschedule || sc.Pools[0].MaxRetries != 2 {
		t.Fatalf("pools %+v, want reschedule, max_retries 2\n%s", sc.Pools, body)
	}
	for _, c := range []struct {
		name      string
		onPreempt string
		max       int
	}{
		{"own", spec.OnPreemptFail, 2},
		{"capped", spec.OnPreemptReschedule, 5},
		{"pools", spec.OnPreemptReschedule, 2},
		{"raised", spec.OnPreemptReschedule, 0},
		{"pinned", spec.OnPreemptReschedule, 0},
		{"lowered", spec.OnPreemptFail, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, j := range sc.Jobs {
				if strings.SplitN(j.Name, "-", 2)[1] == c.name && (j.OnPreempt != c.onPreempt || j.MaxRetries != c.max) {
					t.Errorf("%s: on_preempt %q, max_retries %d; want %q, %d\n%s", j.Name, j.OnPreempt, j.MaxRetries, c.onPreempt, c.max, body)
				}
			}
		})
	}
}

// TestExitActionsRule: a job's exit actions as lifecycle.ExitRequeues
// takes them (the simulator's reading of a scenario job's) and the reason
// of a failure by them, after a preemption or a lost attempt.
func TestExitActionsRule(t *testing.T) {
	const lost = "node n1 lost"
	for _, c := range []struct {
		name       string
		ea         exitActions
		fail       bool
		max        int32
		retries    int32
		preempted  string
		lostReason string
	}{
		{"the default", defaultExitActions, false, 0, 4,
			"preempted 5 times, max_retries -1", "node n1 lost; stopped 5 times, max_retries -1"},
		{"on_preempt fail", exitActions{spec.OnPreemptFail, spec.NoRetryCap}, true, 0, 0,
			"preempted; on_preempt: fail", "node n1 lost; on_preempt: fail"},
		{"on_preempt fail over a cap", exitActions{spec.OnPreemptFail, 3}, true, 0, 0,
			"preempted; on_preempt: fail", "node n1 lost; on_preempt: fail"},
		{"max_retries 0 is fail", exitActions{spec.OnPreemptReschedule, 0}, true, 0, 0,
			"preempted 1 time, max_retries 0", "node n1 lost; stopped 1 time, max_retries 0"},
		{"max_retries 2", exitActions{spec.OnPreemptReschedule, 2}, false, 2, 2,
			"preempted 3 times, max_retries 2", "node n1 lost; stopped 3 times, max_retries 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if fail, max := c.ea.rule(); fail != c.fail || max != c.max {
				t.Errorf("rule() = %v, %d; want %v, %d", fail, max, c.fail, c.max)
			}
			if got := c.ea.failReason(preemptedLead, c.retries); got != c.preempted {
				t.Errorf("after a preemption %q, want %q", got, c.preempted)
			}
			if got := c.ea.failReason(lost, c.retries); got != c.lostReason {
				t.Errorf("after a loss %q, want %q", got, c.lostReason)
			}
		})
	}
}
