package master

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/storetest"
)

// flakyStore fails every write while Down is set; tests give it
// methods of their own to fail more.
type flakyStore struct{ *storetest.Flaky }

var errStoreDown = storetest.ErrDown

// TestFailedExitWriteIsRetried: an exit report that the store could not
// record is applied when the agent sends it again, so the task does not
// stay running, holding its GPUs, after the store comes back.
func TestFailedExitWriteIsRetried(t *testing.T) {
	var flaky *flakyStore
	h := newHarness(t, func(o *Options) { flaky = &flakyStore{&storetest.Flaky{Store: o.Store}}; o.Store = flaky })
	h.m.health.minGap = 0
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, ""))
	h.step()
	h.sync(a, a)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("task %s, want running", got)
	}
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	flaky.Down.Store(true)
	if _, err := a.Sync(h.ctx, 0); err == nil {
		t.Fatal("the sync succeeded while the store was down")
	}
	flaky.Down.Store(false)
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskCompleted {
		t.Fatalf("after the store came back and the agent resent: task %s, want completed", got)
	}
	if j := h.job(id); j.State != "completed" {
		t.Fatalf("job %s, want completed", j.State)
	}
	// Its GPU is free again: the next job starts.
	next := h.submit(jobSpec("next", 1, ""))
	h.step()
	h.sync(a)
	if got := h.taskState(next, 0); got == store.TaskQueued {
		t.Fatal("the next job does not start: the GPU is still held")
	}
}

// TestExitReportAfterAgentRestart: an agent that restarts and delivers the
// exit report its predecessor journaled gets the task recorded with its
// real outcome, not as lost.
func TestExitReportAfterAgentRestart(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, `, "preemptible": false`))
	h.step()
	h.sync(a, a)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("task %s, want running", got)
	}
	// The new agent process lists nothing running, then reports the exit.
	reg := api.Register{Name: "n1", GPUs: []api.GPU{{Index: 0, UUID: "GPU-n1-0", Type: "h100"}}}
	if code := h.do("POST", "/api/v1/agents/register", reg, nil); code != 200 {
		t.Fatalf("register: %d", code)
	}
	zero := 0
	sync := api.Sync{Reports: []api.Report{{Seq: 1, Task: tid(id, 0, 1), Event: api.EventExited,
		Outcome: string(agent.OutcomeCompleted), ExitCode: &zero, At: h.clock.Now()}}}
	if code := h.do("POST", "/api/v1/agents/n1/sync", sync, nil); code != 200 {
		t.Fatalf("sync: %d", code)
	}
	if got := h.taskState(id, 0); got != store.TaskCompleted {
		t.Fatalf("task %s, want completed", got)
	}
}

// TestStoreOutage: while the store refuses writes the master says so
// (/readyz 503, /livez 200, requests 503 with Retry-After), changes
// nothing, and does not judge agents by the syncs it could not take; when
// the store is back it recovers by itself, with every task as it was.
func TestStoreOutage(t *testing.T) {
	var flaky *flakyStore
	h := newHarness(t, func(o *Options) { flaky = &flakyStore{&storetest.Flaky{Store: o.Store}}; o.Store = flaky })
	h.m.health.minGap = 0
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, ""))
	h.step()
	h.sync(a, a)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("task %s, want running", got)
	}

	flaky.Down.Store(true)
	h.m.Tick(h.ctx)
	if !h.m.health.isDown() {
		t.Fatal("the tick's probe did not notice the store was down")
	}
	for _, c := range []struct{ path, want string }{
		{"/readyz", "store unavailable since"},
		{"/healthz", "store unavailable since"},
	} {
		t.Run(c.path, func(t *testing.T) {
			code, body, hdr := h.raw("GET", c.path, "")
			if code != 503 || !strings.Contains(body, c.want) || hdr.Get("Retry-After") == "" {
				t.Fatalf("%s: %d %q (Retry-After %q), want 503 with %q and Retry-After", c.path, code, body, hdr.Get("Retry-After"), c.want)
			}
		})
	}
	if code, body, _ := h.raw("GET", "/livez", ""); code != 200 {
		t.Fatalf("/livez %d %q while only the store is down, want 200", code, body)
	}
	code, body, hdr := h.raw("POST", "/api/v1/jobs", jobSpec("late", 1, ""))
	if code != 503 || hdr.Get("Retry-After") == "" || !strings.Contains(body, "store is unavailable") {
		t.Fatalf("submit while down: %d %q, want 503 with Retry-After", code, body)
	}
	// Longer than the agent timeout passes without a sync the master could
	// take: the node must not be lost for that.
	h.clock.Advance(2 * DefaultAgentTimeout)
	h.m.Tick(h.ctx)

	flaky.Down.Store(false)
	h.m.Tick(h.ctx)
	if h.m.health.isDown() {
		t.Fatal("the store is back but the master still says it is down")
	}
	if code, _, _ := h.raw("GET", "/readyz", ""); code != 200 {
		t.Fatalf("/readyz %d after recovery, want 200", code)
	}
	h.m.Tick(h.ctx)
	h.sync(a)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("after the outage the task is %s, want still running", got)
	}
	var nodes []api.Node
	h.do("GET", "/api/v1/nodes", nil, &nodes)
	if len(nodes) != 1 || nodes[0].State != "up" {
		t.Fatalf("nodes after the outage: %+v, want n1 up", nodes)
	}
	h.submit(jobSpec("after", 1, ""))
}

// TestStoreOutageNoted: an outage the master outlived is recorded when
// the store is back, and the what-if export of a window that holds it
// notes it (from, until, how long, the requests refused), so that a
// history check's difference around it has a lead; a window without it
// has no such note.
func TestStoreOutageNoted(t *testing.T) {
	var flaky *flakyStore
	h := newHarness(t, func(o *Options) { flaky = &flakyStore{&storetest.Flaky{Store: o.Store}}; o.Store = flaky })
	h.m.health.minGap = 0
	t0 := h.clock.Now()
	h.agent("n1", 1)
	h.clock.Advance(time.Minute)
	flaky.Down.Store(true)
	h.m.Tick(h.ctx)
	if code, _, _ := h.raw("POST", "/api/v1/jobs", jobSpec("late", 1, "")); code != 503 {
		t.Fatalf("submit while down: %d, want 503", code)
	}
	h.clock.Advance(90 * time.Second)
	flaky.Down.Store(false)
	h.m.Tick(h.ctx)
	h.clock.Advance(time.Minute)
	cases := []struct {
		name        string
		from, until time.Time
		want        string // "": no outage note
	}{
		{"a window that holds it", t0, h.clock.Now(), "(at 60s to 150s, 1m30s, 1 request refused)"},
		{"a window after it", t0.Add(3 * time.Minute), h.clock.Now().Add(time.Minute), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := h.raw("GET", "/api/v1/history/scenario"+window(c.from, c.until), "")
			if code != 200 {
				t.Fatalf("export: %d %s", code, body)
			}
			noted := strings.Contains(body, "store was unavailable")
			if c.want == "" && noted {
				t.Fatalf("the export notes an outage outside its window:\n%s", body)
			}
			if c.want != "" && (!noted || !strings.Contains(body, c.want)) {
				t.Fatalf("the export does not note the outage with %q:\n%s", c.want, body)
			}
		})
	}
	// The audit log marks the gap (trial r R7): the submission refused
	// during it has no entry of its own.
	entries, err := h.st.Audit(h.ctx, store.AuditFilter{Actor: "master"})
	if err != nil {
		t.Fatal(err)
	}
	var marks []string
	for _, e := range entries {
		if e.Action == "store outage" {
			marks = append(marks, e.Detail)
		}
	}
	wantMark := "(1m30s): 1 request refused; 1 audit entry of that time not recorded here"
	if len(marks) != 1 || !strings.Contains(marks[0], wantMark) {
		t.Errorf("audit entries for the outage: %q, want one with %q", marks, wantMark)
	}
}
