package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/chromedp/chromedp"
)

// requeueJob answers as the master does: a running job's tasks stop and
// it waits again (held too with {"hold": true}); job 1's exit actions
// refuse it (409), as on_preempt: fail does.
func (f *fixture) requeueJob(w http.ResponseWriter, r *http.Request) {
	j := f.find(w, r)
	if j == nil {
		return
	}
	var req api.Requeue
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil && err.Error() != "EOF" {
		writeJSON(w, http.StatusBadRequest, api.Error{Error: "bad requeue: " + err.Error()})
		return
	}
	if j.ID == 1 {
		writeJSON(w, http.StatusConflict, api.Error{Error: "job 1: its exit actions (on_preempt: fail) would fail task 0 rather than requeue it; kill the job instead, or let it end"})
		return
	}
	f.mu.Lock()
	n := j.Running
	j.State, j.Running, j.Position = "queued", 0, 1
	if req.Hold {
		j.Held = &api.Held{By: "ann", At: now}
	}
	reply := api.RequeueReply{Job: *j, Requeued: n, Held: req.Hold}
	f.mu.Unlock()
	f.reply(w, http.StatusOK, reply)
}

func (f *fixture) holdJob(w http.ResponseWriter, r *http.Request)    { f.setHeld(w, r, true) }
func (f *fixture) releaseJob(w http.ResponseWriter, r *http.Request) { f.setHeld(w, r, false) }

// setHeld holds or releases a queued job, as the master does.
func (f *fixture) setHeld(w http.ResponseWriter, r *http.Request, hold bool) {
	j := f.find(w, r)
	if j == nil {
		return
	}
	f.mu.Lock()
	changed := (j.Held != nil) != hold
	j.Held = nil
	if hold {
		j.Held = &api.Held{By: "ann", At: now}
	}
	reply := api.HoldReply{Job: *j, Changed: changed}
	f.mu.Unlock()
	f.reply(w, http.StatusOK, reply)
}

// TestRequeueAsksThenPosts: a running job's page offers Requeue and
// Requeue and hold; each asks first, posts (with {"hold": true} for the
// second), and the page shows the job waiting again, or held with a
// Release that resumes it; the master's refusal (409) shows as an alert.
func TestRequeueAsksThenPosts(t *testing.T) {
	cases := []struct {
		name, job, button, dialog, confirm string
		posts                              []string // the requests it makes
		msg, state                         string   // then shown
	}{
		{name: "cancel", job: "2", button: "requeue", dialog: "Requeue job 2 (bert-finetune)?", confirm: "#confirm-cancel",
			state: "running"},
		{name: "requeue", job: "2", button: "requeue", dialog: "then it waits again and resumes from its checkpoint if it wrote one",
			confirm: "#confirm-ok", posts: []string{"POST /jobs/2/requeue"},
			msg: "Job 2 is requeued: 1 task checkpoints and stops, then it waits again.", state: "queued"},
		{name: "requeue-and-hold", job: "2", button: "requeue-hold", dialog: "Requeue and hold job 2 (bert-finetune)?",
			confirm: "#confirm-ok", posts: []string{`POST /jobs/2/requeue {"hold":true}`},
			msg: "Job 2 is requeued: 1 task checkpoints and stops; it is held until released.", state: "held"},
		{name: "refused", job: "1", button: "requeue", dialog: "Requeue job 1 (resnet-sweep)?", confirm: "#confirm-ok",
			posts: []string{"POST /jobs/1/requeue"},
			msg:   "Requeue failed: job 1: its exit actions (on_preempt: fail) would fail task 0", state: "running"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			p := openPage(t, f, "#/jobs/"+c.job, wide)
			p.expect("status of 409") // the refusal the test provokes
			p.waitFor(`!document.getElementById('requeue').hidden && !document.getElementById('requeue-hold').hidden`, "the requeue buttons")
			if hidden := evalJS[bool](p, `document.getElementById('hold').hidden && document.getElementById('release').hidden`); !hidden {
				t.Errorf("Hold or Release offered on a running job")
			}
			p.do(chromedp.Click(chromedp.ID(c.button)))
			p.waitText("#confirm", c.dialog)
			p.do(chromedp.Click(chromedp.CSS(c.confirm)))
			p.waitFor(`!document.getElementById('confirm').open`, "the dialog to close")
			if c.msg != "" {
				p.waitText("#action-msg", c.msg)
			}
			p.waitText("h1", c.state)
			if got := f.seen("POST /jobs/" + c.job + "/requeue"); strings.Join(got, "\n") != strings.Join(c.posts, "\n") {
				t.Errorf("requeue requests = %q, want %q", got, c.posts)
			}
			if role := evalJS[string](p, `document.getElementById('action-msg').getAttribute('role')`); c.name == "refused" && role != "alert" {
				t.Errorf("refusal's role = %q, want alert", role)
			}
			if c.state == "queued" {
				p.waitFor(`document.getElementById('requeue').hidden`, "Requeue to go once the job waits")
			}
		})
	}
}

// TestReleaseAfterRequeueAndHold: the job held by its requeue offers
// Release (and no requeue), which asks and resumes it.
func TestReleaseAfterRequeueAndHold(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/jobs/2", wide)
	p.waitFor(`!document.getElementById('requeue-hold').hidden`, "Requeue and hold")
	p.do(chromedp.Click(chromedp.ID("requeue-hold")))
	p.waitText("#confirm", "Requeue and hold job 2")
	p.do(chromedp.Click(chromedp.ID("confirm-ok")))
	p.waitText("h1", "held")
	p.waitFor(`!document.getElementById('release').hidden && document.getElementById('requeue').hidden`, "Release in place of Requeue")
	p.do(chromedp.Click(chromedp.ID("release")))
	p.waitText("#confirm", "Release job 2 (bert-finetune)?")
	p.do(chromedp.Click(chromedp.ID("confirm-ok")))
	p.waitText("#action-msg", "Job 2 is released: it waits again.")
	p.waitText("h1", "queued")
	if got := f.seen("POST /jobs/2/release"); len(got) != 1 {
		t.Errorf("release requests = %q, want 1", got)
	}
	if hidden := evalJS[bool](p, `document.getElementById('hold').hidden`); hidden {
		t.Errorf("a queued job not held should offer Hold")
	}
}

// TestHoldQueuedJob: a queued job offers Hold (no requeue: nothing of it
// runs), which asks and holds it; Release then takes its place.
func TestHoldQueuedJob(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/jobs/5", wide)
	p.waitFor(`!document.getElementById('hold').hidden`, "Hold")
	if hidden := evalJS[bool](p, `document.getElementById('requeue').hidden && document.getElementById('release').hidden`); !hidden {
		t.Errorf("Requeue or Release offered on a queued job not held")
	}
	p.do(chromedp.Click(chromedp.ID("hold")))
	p.waitText("#confirm", "Hold job 5 (eval-small)?")
	p.do(chromedp.Click(chromedp.ID("confirm-ok")))
	p.waitText("#action-msg", "Job 5 is held.")
	p.waitText("h1", "held")
	p.waitFor(`!document.getElementById('release').hidden && document.getElementById('hold').hidden`, "Release in place of Hold")
	if got := f.seen("POST /jobs/5/hold"); len(got) != 1 {
		t.Errorf("hold requests = %q, want 1", got)
	}
}

// TestJobsHeldFilter: the job list's State filter offers held, which
// asks the master for state=held and lists the held job alone.
func TestJobsHeldFilter(t *testing.T) {
	f := newFixture()
	f.mu.Lock()
	f.jobs[4].Held = &api.Held{By: "ann", At: now} // job 5, queued
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs", wide)
	p.waitFor(`[...document.querySelectorAll('#f-state option')].some((o) => o.value === 'held')`, "held among the states")
	p.goTo("#/jobs?state=held")
	p.waitFor(`document.querySelectorAll('tr[data-job]').length === 1 && !!document.querySelector('tr[data-job="5"]')`, "job 5 alone under state=held")
	asked := false
	for _, r := range f.seen("GET /jobs?") {
		asked = asked || strings.Contains(r, "state=held")
	}
	if !asked {
		t.Errorf("no GET /jobs with state=held sent: %q", f.seen("GET /jobs"))
	}
}
