package master

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/store"
)

// TestHoldRelease: a held job stays queued with reason held however many
// slots are free, keeps its id and submission time, is shown held in
// the job's view and its explanation, survives a restart of the master,
// and starts once released; holding twice and releasing a job not held
// change nothing and say so; the events and the audit list both.
func TestHoldRelease(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	ana := h.as("ana", "default=member")
	id := h.submitAs("ana", jobSpec("j", 2, ""))
	submitted := h.job(id).SubmittedAt
	path := fmt.Sprintf("/api/v1/jobs/%d", id)

	steps := []struct {
		name, verb  string
		wantChanged bool
		wantHeld    bool
		restart     bool
	}{
		{"hold", "hold", true, true, false},
		{"hold again changes nothing", "hold", false, true, false},
		{"the hold survives a restart", "", false, true, true},
		{"release", "release", true, false, false},
		{"release again changes nothing", "release", false, false, false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.restart {
				h.start()
				a.Master = h.srv.URL
				if _, err := a.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
			}
			if st.verb != "" {
				var reply api.HoldReply
				if code := h.doAs(ana, "POST", path+"/"+st.verb, nil, &reply); code != http.StatusOK || reply.Changed != st.wantChanged {
					t.Fatalf("POST %s: %d, changed %v; want 200, changed %v", st.verb, code, reply.Changed, st.wantChanged)
				}
			}
			h.step()
			j := h.job(id)
			if (j.Held != nil) != st.wantHeld {
				t.Fatalf("job held %+v, want held %v", j.Held, st.wantHeld)
			}
			if !j.SubmittedAt.Equal(submitted) {
				t.Errorf("submitted at %v, want %v kept", j.SubmittedAt, submitted)
			}
			if !st.wantHeld {
				return
			}
			if j.State != "queued" || h.taskState(id, 0) != store.TaskQueued || j.Held.By != "ana" {
				t.Fatalf("held job: state %s, task %s, held %+v; want queued, held by ana", j.State, h.taskState(id, 0), j.Held)
			}
			want := fmt.Sprintf("held by ana at 2026-05-01 12:00 UTC; `allot job release %d`", id)
			if j.Pending == nil || j.Pending.Reason != lifecycle.ReasonHeld || j.Pending.Message != want {
				t.Fatalf("pending %+v, want reason held, %q", j.Pending, want)
			}
			var x api.Explanation
			if code := h.doAs(ana, "GET", path+"/explain", nil, &x); code != http.StatusOK || !strings.Contains(x.Summary, "It is "+want) {
				t.Fatalf("explain: %d, summary %q; want it to say %q", code, x.Summary, want)
			}
		})
	}
	h.step()
	if st := h.taskState(id, 0); st != store.TaskStarting && st != store.TaskRunning {
		t.Fatalf("released job's task: %s (%+v), want started", st, h.job(id).Pending)
	}
	var evs api.JobEvents
	if code := h.doAs(ana, "GET", path+"/events", nil, &evs); code != http.StatusOK {
		t.Fatalf("GET events: %d", code)
	}
	var reasons []string
	for _, e := range evs.Events {
		if e.Task == nil && e.From == e.To {
			reasons = append(reasons, e.Reason)
		}
	}
	if want := []string{"held by ana: through the API", "released by ana: through the API"}; strings.Join(reasons, "|") != strings.Join(want, "|") {
		t.Errorf("hold events %q, want %q", reasons, want)
	}
	if e := h.newestAudit(fmt.Sprintf("POST /api/v1/jobs/%d/release", id)); e.Detail != "not held: nothing changed" {
		t.Errorf("audit of the last release: %+v", e)
	}
}

// TestHoldRefusals: who may hold and release a job, and which jobs may
// be held: its owner and admins may; another member and a viewer of its
// project may not; a job with a running task, an ended job and no job
// are refused, each naming why.
func TestHoldRefusals(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 2)
	ana := h.as("ana", "default=member")
	bea := h.as("bea", "default=member")
	cy := h.as("cy", "default=viewer")
	running := h.submitAs("ana", jobSpec("running", 1, ""))
	h.step()
	queued := h.submitAs("ana", jobSpec("queued", 2, ""))
	ended := h.submitAs("ana", jobSpec("ended", 1, ""))
	if code := h.doAs(ana, "POST", fmt.Sprintf("/api/v1/jobs/%d/kill", ended), nil, nil); code != http.StatusOK {
		t.Fatalf("kill: %d", code)
	}
	cases := []struct {
		name, token, verb string
		job               int64
		status            int
		says              string
	}{
		{"another member may not hold", bea, "hold", queued, 403, "belongs to ana"},
		{"a viewer may not hold", cy, "hold", queued, 403, "belongs to ana"},
		{"a viewer may not release", cy, "release", queued, 403, "belongs to ana"},
		{"a running job cannot be held", ana, "hold", running, 409, fmt.Sprintf("job %d is running: it has 1 task holding slots, and a hold does not preempt; to suspend it, requeue it held: allot job requeue %d --hold", running, running)},
		{"an ended job cannot be held", ana, "hold", ended, 409, fmt.Sprintf("job %d is killed: only a queued job can be held", ended)},
		{"an ended job cannot be released", ana, "release", ended, 409, "only a queued job can be released"},
		{"no such job", ana, "hold", 999, 404, "job 999 does not exist"},
		{"the owner may hold", ana, "hold", queued, 200, ""},
		{"an admin may release", h.admin, "release", queued, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e api.Error
			code := h.doAs(c.token, "POST", fmt.Sprintf("/api/v1/jobs/%d/%s", c.job, c.verb), nil, &e)
			if code != c.status || !strings.Contains(e.Error, c.says) {
				t.Fatalf("%s job %d: %d %q, want %d saying %q", c.verb, c.job, code, e.Error, c.status, c.says)
			}
		})
	}
}

// TestOthersHoldSticks: a hold an admin or a lead puts on another
// user's job is released only by an admin or a lead of its project,
// also after a restart of the master (the holder is stored); its owner
// is refused with who held it, when, and what role releases it, and
// the owner's own hold stays hers to release (TestHoldRelease).
func TestOthersHoldSticks(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 2)
	ana := h.as("ana", "default=member")
	lee := h.as("lee", "default=lead")
	byAdmin := h.submitAs("ana", jobSpec("a", 2, ""))
	byLead := h.submitAs("ana", jobSpec("b", 2, ""))
	held := h.clock.Now().UTC().Format("2006-01-02 15:04") + " UTC"
	for _, c := range []struct {
		token string
		job   int64
	}{{h.admin, byAdmin}, {lee, byLead}} {
		if code := h.doAs(c.token, "POST", fmt.Sprintf("/api/v1/jobs/%d/hold", c.job), nil, nil); code != http.StatusOK {
			t.Fatalf("hold %d: %d", c.job, code)
		}
	}
	h.start() // the rule reads the stored holder
	cases := []struct {
		name, token string
		job         int64
		status      int
		says        string
	}{
		{"the owner may not release an admin's hold", ana, byAdmin, 403,
			fmt.Sprintf(`releasing job %d, held by root at %s rather than by its owner ana (whose own holds only are the owner's to release), needs the admin role or the lead role in project "default"; user:ana has the member role`, byAdmin, held)},
		{"nor a lead's", ana, byLead, 403, "held by lee at " + held},
		{"nor in a list", ana, byLead, 403, "held by lee"},
		{"a lead may release an admin's hold", lee, byAdmin, 200, ""},
		{"an admin may release a lead's", h.admin, byLead, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e api.Error
			code := h.doAs(c.token, "POST", fmt.Sprintf("/api/v1/jobs/%d/release", c.job), nil, &e)
			if c.name == "nor in a list" {
				var res []api.HoldResult
				code = h.doAs(c.token, "POST", "/api/v1/jobs/release", api.HoldJobs{IDs: []int64{c.job}}, &res)
				if code != http.StatusOK || len(res) != 1 {
					t.Fatalf("release list: %d %+v", code, res)
				}
				code, e.Error = res[0].Status, res[0].Error
			}
			if code != c.status || !strings.Contains(e.Error, c.says) {
				t.Fatalf("release job %d: %d %q, want %d saying %q", c.job, code, e.Error, c.status, c.says)
			}
		})
	}
}

// TestHoldList: POST /jobs/hold holds a list, each job with its own
// result; POST /jobs/release releases it; a submission with hold=true
// is stored held by its user.
func TestHoldList(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 1)
	var reply api.SubmitReply
	if code := h.doAs(h.as("ana", "default=member"), "POST", "/api/v1/jobs?hold=true", jobSpec("a", 1, ""), &reply); code != http.StatusCreated {
		t.Fatalf("submit held: %d", code)
	}
	held := reply.ID
	if e := h.newestAudit("POST /api/v1/jobs"); !strings.HasSuffix(e.Detail, ", held") {
		t.Errorf("audit of the held submission: %q, want it to say held", e.Detail)
	}
	later := h.submit(jobSpec("b", 1, ""))
	h.step()
	if j := h.job(held); j.Held == nil || j.Held.By != "ana" || h.taskState(held, 0) != store.TaskQueued {
		t.Fatalf("job submitted held: %+v, task %s; want held by ana, queued", j.Held, h.taskState(held, 0))
	}
	if st := h.taskState(later, 0); st != store.TaskStarting && st != store.TaskRunning {
		t.Fatalf("the job submitted after the held one: %s, want it started on the slot the held one leaves", st)
	}
	other := h.submit(jobSpec("c", 1, ""))
	for _, verb := range []string{"hold", "release"} {
		var res []api.HoldResult
		ids := []int64{held, other, 999}
		if code := h.do("POST", "/api/v1/jobs/"+verb, api.HoldJobs{IDs: ids}, &res); code != http.StatusOK || len(res) != 3 {
			t.Fatalf("POST /jobs/%s: %d, %d results", verb, code, len(res))
		}
		wantChanged := []bool{verb == "release", true}
		for i, w := range wantChanged {
			if res[i].Reply == nil || res[i].Reply.Changed != w || (res[i].Reply.Held != nil) != (verb == "hold") {
				t.Errorf("%s result %d: %+v, want changed %v", verb, i, res[i], w)
			}
		}
		if res[2].Status != http.StatusNotFound {
			t.Errorf("%s of no such job: %+v, want 404", verb, res[2])
		}
	}
	if code := h.do("POST", "/api/v1/jobs/hold", api.HoldJobs{}, nil); code != http.StatusBadRequest {
		t.Errorf("an empty list: %d, want 400", code)
	}
}
