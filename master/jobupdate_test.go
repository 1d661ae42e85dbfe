package master

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// jobUpdateConfig has a multifactor pool, three QOS levels and a project
// whose list allows two of them.
const jobUpdateConfig = `
pools: [{name: default, policy: multifactor, multifactor: {qos: 1000}}]
default_project: lab
qos:
  - {name: normal}
  - {name: high, priority: 10}
  - {name: emergency, priority: 100}
projects:
  - {name: lab, qos: [normal, high]}
`

// TestPatchJobLimits: PATCH /jobs/{id} changes a job's time limit, QOS and
// nice by Slurm's rules: its owner may lower the time limit, raise the
// nice and lower it back to the nice it was submitted with; raising or
// removing a limit, or lowering a nice below that, needs an admin or the
// project's lead; a QOS must be one the project may use; a job
// that ended changes no more. Each case changes a job of its own, filed
// by ana (a member of lab) with a time limit of 2h and nice 10.
func TestPatchJobLimits(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, jobUpdateConfig)))
	h.as("ana", "lab=member")
	h.as("lee", "lab=lead")
	ended := h.submitAs("ana", jobSpec("j", 1, `, "time_limit": "2h", "nice": 10`))
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", ended), nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	// raised was submitted with nice 10 and raisedFrom0 with none; their
	// owner raised both to 100.
	raised := h.submitAs("ana", jobSpec("j", 1, `, "time_limit": "2h", "nice": 10`))
	raisedFrom0 := h.submitAs("ana", jobSpec("j", 1, `, "time_limit": "2h"`))
	for _, id := range []int64{raised, raisedFrom0} {
		if code := h.doAs(h.as("ana"), "PATCH", fmt.Sprintf("/api/v1/jobs/%d", id), `{"nice": 100}`, nil); code != 200 {
			t.Fatalf("raise job %d's nice: %d", id, code)
		}
	}
	cases := []struct {
		name, who, body string
		job             int64 // 0: a new job
		status          int
		field, says     string
		check           func(j api.Job) bool
	}{
		{name: "owner lowers the time limit", who: "ana", body: `{"time_limit": "1h"}`, status: 200,
			check: func(j api.Job) bool { return j.TimeLimitS == 3600 }},
		{name: "owner lowers it in seconds", who: "ana", body: `{"time_limit_s": 1800}`, status: 200,
			check: func(j api.Job) bool { return j.TimeLimitS == 1800 }},
		{name: "owner raises it", who: "ana", body: `{"time_limit": "3h"}`, status: 403,
			says: `raising job %d's time_limit from 2h to 3h (its owner may lower it) needs the admin role or the lead role in project "lab"; user:ana has the member role`},
		{name: "owner removes it", who: "ana", body: `{"time_limit": 0}`, status: 403,
			says: `removing job %d's time_limit of 2h`},
		{name: "admin raises it", who: "root", body: `{"time_limit": "1d12h"}`, status: 200,
			check: func(j api.Job) bool { return j.TimeLimitS == 129600 }},
		{name: "lead raises it in Slurm's form", who: "lee", body: `{"time_limit": "1-00:00:00"}`, status: 200,
			check: func(j api.Job) bool { return j.TimeLimitS == 86400 }},
		{name: "admin removes it", who: "root", body: `{"time_limit_s": 0}`, status: 200,
			check: func(j api.Job) bool { return j.TimeLimitS == 0 }},
		{name: "not a duration", who: "ana", body: `{"time_limit": "2x"}`, status: 400, field: "time_limit",
			says: `time_limit: expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got "2x"`},
		{name: "a null time limit keeps it", who: "ana", body: `{"time_limit": null, "nice": 11}`, status: 200,
			check: func(j api.Job) bool { return j.TimeLimitS == 7200 && j.Nice == 11 }},
		{name: "both forms", who: "ana", body: `{"time_limit": "1h", "time_limit_s": 60}`, status: 400, field: "time_limit",
			says: "give one of them"},
		{name: "a QOS the project allows", who: "ana", body: `{"qos": "high"}`, status: 200,
			check: func(j api.Job) bool { return j.QOS == "high" }},
		{name: "an unknown QOS", who: "ana", body: `{"qos": "hihg"}`, status: 400, field: "qos",
			says: `qos: unknown QOS "hihg"; did you mean "high"?`},
		{name: "a QOS off the project's list", who: "root", body: `{"qos": "emergency"}`, status: 400, field: "qos",
			says: `qos: project lab may not use QOS "emergency" (its qos: normal, high)`},
		{name: "owner raises the nice", who: "ana", body: `{"nice": 20}`, status: 200,
			check: func(j api.Job) bool { return j.Nice == 20 }},
		{name: "owner lowers the nice below its submission's", who: "ana", body: `{"nice": 0}`, status: 403,
			says: `lowering job %d's nice from 10 to 0, below the 10 it was submitted with, which raises its priority (its owner may only raise a nice, or lower it back to 10) needs the admin role or the lead role`},
		{name: "owner lowers a raised nice back", who: "ana", body: `{"nice": 10}`, job: raised, status: 200,
			check: func(j api.Job) bool { return j.Nice == 10 }},
		{name: "owner undoes a nice on a job submitted without", who: "ana", body: `{"nice": 0}`, job: raisedFrom0, status: 200,
			check: func(j api.Job) bool { return j.Nice == 0 }},
		{name: "a negative nice", who: "root", body: `{"nice": -5}`, status: 400, field: "nice",
			says: "nice -5: expected 0..1000000000"},
		{name: "admin lowers the nice", who: "root", body: `{"nice": 0}`, status: 200,
			check: func(j api.Job) bool { return j.Nice == 0 }},
		{name: "a job that ended", who: "root", body: `{"qos": "high"}`, job: ended, status: 409,
			says: "is killed: only a job that has not ended can change"},
		{name: "slots stay fixed", who: "ana", body: `{"slots": 2}`, status: 400, field: "slots",
			says: "a job's slots is fixed when it is submitted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.job
			if id == 0 {
				id = h.submitAs("ana", jobSpec("j", 1, `, "time_limit": "2h", "nice": 10`))
			}
			token := h.admin
			if tc.who != "root" {
				token = h.as(tc.who)
			}
			var e api.Error
			var reply api.Job
			out := any(&e)
			if tc.status == 200 {
				out = &reply
			}
			code := h.doAs(token, "PATCH", fmt.Sprintf("/api/v1/jobs/%d", id), tc.body, out)
			if code != tc.status {
				t.Fatalf("status %d (%+v), want %d", code, e, tc.status)
			}
			if says := strings.ReplaceAll(tc.says, "%d", fmt.Sprint(id)); tc.status != 200 && (e.Field != tc.field || !strings.Contains(e.Error, says)) {
				t.Fatalf("refusal %+v, want field %q saying %q", e, tc.field, says)
			}
			if tc.check != nil && !tc.check(h.job(id)) {
				t.Fatalf("job after the change: %+v", h.job(id))
			}
			// The reply shows the job as changed, as GET /jobs/{id} does.
			if tc.check != nil && !tc.check(reply) {
				t.Fatalf("the change's reply: %+v", reply)
			}
		})
	}
}

// TestPatchLowersLimitKills: a time limit lowered below what a running
// task has run already kills it at once, by the time limit's rule (its
// cause), and the change is in the job's event log; a change that
// leaves the limit above what it ran leaves it running, and the job's
// QOS and nice survive a restart of the master.
func TestPatchLowersLimitKills(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, jobUpdateConfig)))
	a := h.agent("n1", 2)
	keep := h.submit(jobSpec("keep", 1, `, "time_limit": "2h"`))
	kill := h.submit(jobSpec("kill", 1, `, "time_limit": "2h"`))
	h.step()
	h.sync(a, a)
	h.clock.Advance(10 * time.Minute)
	for _, c := range []struct {
		id   int64
		body string
	}{{keep, `{"time_limit": "30m", "qos": "high", "nice": 7}`}, {kill, `{"time_limit": "5m"}`}} {
		if code := h.do("PATCH", fmt.Sprintf("/api/v1/jobs/%d", c.id), c.body, nil); code != 200 {
			t.Fatalf("patch %d: %d", c.id, code)
		}
	}
	if got := h.taskState(keep, 0); got != store.TaskRunning {
		t.Fatalf("job keep: task %s, want running (30m is past its 10m)", got)
	}
	if got := h.taskState(kill, 0); got != store.TaskKilling {
		t.Fatalf("job kill: task %s, want killing (5m is below its 10m)", got)
	}
	if got := h.causesOf(kill); len(got) != 1 || got[0] != "0 running → killing: time_limit" {
		t.Fatalf("job kill: causes %q, want its kill by the time limit", got)
	}
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: keep})
	if err != nil {
		t.Fatal(err)
	}
	want := `time limit 2h0m0s → 30m0s, qos "" → "high", nice 0 → 7: changed through the API`
	if !containsReason(evs, want) {
		t.Fatalf("job keep's events %+v, want one saying %q", evs, want)
	}
	h.start() // a restart restores the changes from the store
	if j := h.job(keep); j.TimeLimitS != 1800 || j.QOS != "high" || j.Nice != 7 {
		t.Fatalf("job keep after a restart: time limit %d, QOS %q, nice %d; want 1800, high, 7", j.TimeLimitS, j.QOS, j.Nice)
	}
}

func containsReason(evs []store.Event, reason string) bool {
	for _, e := range evs {
		if e.Reason == reason {
			return true
		}
	}
	return false
}
