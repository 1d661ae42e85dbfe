package master

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// features is a configuration that uses every core feature the master
// wires: a multifactor pool with fair share and a minimum run time, a
// priority pool, budgets, shares, licenses, QOS and a decay.
const features = `
default_pool: mf
default_project: vision
pools:
  - name: mf
    policy: multifactor
    preemption: true
    min_run_time: 2m
    multifactor: {fair_share: 1000, qos: 100, age: 10, max_age: 1h, fair_share_mode: fair_tree}
  - {name: prio, policy: priority, preemption: true, backfill: true}
nodes:
  - {name: n1, labels: {switch: s1}}
projects:
  - {name: lab, quota: 8}
  - {name: vision, parent: lab, quota: 4, preempt_budget: 3}
  - {name: nlp, parent: lab, quota: 4}
users:
  - {name: ana, shares: 3}
licenses: {matlab: 1}
decay: {period: 1h, per_period: 0.5}
`

func withFeatures(t testing.TB) harnessOption {
	return withConfig(mustConfig(t, features))
}

// submitAs submits a job file as user.
func (h *harness) submitAs(user, spec string) int64 {
	h.t.Helper()
	req, err := http.NewRequestWithContext(h.ctx, "POST", h.srv.URL+"/api/v1/jobs", stringsReader(spec))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.as(user))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var reply api.SubmitReply
	if err := decodeJSONBody(resp, &reply); err != nil || resp.StatusCode != http.StatusCreated {
		h.t.Fatalf("submit as %s: status %d (%v)", user, resp.StatusCode, err)
	}
	return reply.ID
}

// snapshot builds a snapshot and returns it with the view.
func (h *harness) snapshot() (*sched.Snapshot, *snapView) {
	h.m.lock()
	defer h.m.mu.Unlock()
	h.m.planner.buildSnapshot(h.m.now())
	return &h.m.planner.snap, &h.m.planner.view
}

// snapJobs are the jobs of the last snapshot, by index.
func (h *harness) snapJobs() []*mjob {
	h.m.lock()
	defer h.m.mu.Unlock()
	r := &h.m.planner.roster
	out := make([]*mjob, r.size())
	for i := range out {
		out[i] = r.at(i)
	}
	return out
}

func TestSnapshotCarriesEveryFeature(t *testing.T) {
	h := newHarness(t, withFeatures(t))
	h.agent("n1", 8)
	id := h.submitAs("ana", `{"name": "sim", "entrypoint": "e", "resources": {"slots": 8, "min_slots": 2,
		"gpu": "h100", "topology": "required", "licenses": {"matlab": 1}, "qos": "high", "nice": 5,
		"checkpoint_every": 60, "preemptible": true}}`)
	s, _ := h.snapshot()
	pool := s.Pools[0]
	if pool.MinRunTime != 120 || pool.Policy != sched.PolicyMultifactor || pool.Multifactor.FairShare != 1000 ||
		pool.Multifactor.FairShareMode != sched.FairShareTree {
		t.Errorf("pool %+v", pool)
	}
	if len(s.Nodes) != 1 || s.Nodes[0].Switch != "s1" {
		t.Errorf("nodes %+v, want n1 under switch s1", s.Nodes)
	}
	if p := s.Projects[1]; p.Name != "vision" || p.PreemptBudget != 3 || p.Preempted != 0 {
		t.Errorf("project %+v, want vision with a budget of 3", p)
	}
	if len(s.Licenses) != 1 || s.Licenses[0] != (sched.License{Name: "matlab", Total: 1}) {
		t.Errorf("licenses %+v", s.Licenses)
	}
	if len(s.QOS) != 3 || s.QOS[2].Name != "emergency" {
		t.Errorf("qos %+v, want the default list", s.QOS)
	}
	j := s.Jobs[0]
	if h.snapJobs()[0].rec.ID != id || j.MinSlots != 2 || j.GPU != "h100" || j.Topology != sched.TopologyRequired ||
		j.QOS != 1 || j.Nice != 5 || len(j.Licenses) != 1 || j.Licenses[0] != (sched.LicenseUse{License: 0, Count: 1}) {
		t.Errorf("job %+v", j)
	}
	// Accounts: the projects, then ana's leaf under vision with her shares.
	want := []sched.Account{{Name: "lab", Parent: -1, Shares: 8}, {Name: "vision", Parent: 0, Shares: 4},
		{Name: "nlp", Parent: 0, Shares: 4}, {Name: "vision/ana", Parent: 1, Shares: 3}}
	if len(s.Accounts) != len(want) || j.Account != 3 {
		t.Fatalf("accounts %+v, job account %d; want %+v and 3", s.Accounts, j.Account, want)
	}
	for i := range want {
		if s.Accounts[i] != want[i] {
			t.Errorf("account %d = %+v, want %+v", i, s.Accounts[i], want[i])
		}
	}
	if _, err := sched.Schedule(s); err != nil {
		t.Fatalf("the core rejects the snapshot: %v", err)
	}
	// A running task's last checkpoint is estimated from checkpoint_every.
	h.step()
	h.clock.Advance(150 * time.Second)
	s, _ = h.snapshot()
	if len(s.Allocs) != 1 || s.Allocs[0].Checkpoint != s.Allocs[0].Start+120 {
		t.Errorf("allocations %+v, want a checkpoint 120 s after the start", s.Allocs)
	}
}

func TestSubmitChecksQOSAndLicenses(t *testing.T) {
	h := newHarness(t, withFeatures(t))
	runBad(t, h, []badCase{
		{"unknown QOS", "POST", "/api/v1/jobs", jobSpec("j", 1, `, "qos": "gold"`), 400, "resources.qos"},
		{"unknown license", "POST", "/api/v1/jobs", jobSpec("j", 1, `, "licenses": {"matlab": 1, "comsol": 1}`), 400,
			"resources.licenses.comsol"},
		{"negative nice", "POST", "/api/v1/jobs", jobSpec("j", 1, `, "nice": -1`), 400, "resources.nice"},
	})
}

func TestLicensesLimitRunningTasks(t *testing.T) {
	h := newHarness(t, withFeatures(t))
	h.agent("n1", 8)
	first := h.submit(jobSpec("first", 1, `, "licenses": {"matlab": 1}`))
	second := h.submit(jobSpec("second", 1, `, "licenses": {"matlab": 1}`))
	h.step()
	if got := h.taskState(first, 0); got != store.TaskStarting {
		t.Fatalf("first job %s, want starting", got)
	}
	if j := h.job(second); j.Pending == nil || j.Pending.Reason != "license" {
		t.Fatalf("second job pending %+v, want license", j.Pending)
	}
}

// TestPendingMessagesNameWhatTheyWaitFor: a waiting job's message, read
// after its pass, still names what the pass's snapshot said: the license
// with its total, the GPU type and the pool.
func TestPendingMessagesNameWhatTheyWaitFor(t *testing.T) {
	h := newHarness(t, withFeatures(t))
	h.agent("n1", 8)
	h.submit(jobSpec("first", 1, `, "licenses": {"matlab": 1}`))
	license := h.submit(jobSpec("second", 1, `, "licenses": {"matlab": 1}`))
	var reply api.SubmitReply
	if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", jobSpec("a100", 1, `, "gpu": "a100"`), &reply); code != 201 {
		t.Fatalf("submit a100: %d", code)
	}
	h.step()
	tests := []struct {
		name   string
		job    int64
		reason string
		says   []string
	}{
		{"license", license, "license", []string{"license matlab", "0 of 1 free"}},
		{"GPU type", reply.ID, "gpu_type", []string{"a100", "pool mf"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := h.job(tc.job)
			if j.Pending == nil || j.Pending.Reason != tc.reason {
				t.Fatalf("pending %+v, want reason %s", j.Pending, tc.reason)
			}
			for _, w := range tc.says {
				if !strings.Contains(j.Pending.Message, w) {
					t.Errorf("message %q lacks %q", j.Pending.Message, w)
				}
			}
		})
	}
}

func TestPatchToLowMakesPreemptible(t *testing.T) {
	h := newHarness(t)
	id := h.submit(jobSpec("cmd", 1, ""))
	steps := []struct {
		patch       string
		preemptible bool
	}{
		{`{"priority_class": "LOW"}`, true},
		{`{"priority": 42}`, false}, // back to NORMAL: the job file said not preemptible
		{`{"priority": 70}`, true},
		{`{"weight": 2}`, true},
	}
	for _, st := range steps {
		var j api.Job
		if code := h.do("PATCH", "/api/v1/jobs/1", st.patch, &j); code != http.StatusOK || j.Preemptible != st.preemptible {
			t.Fatalf("PATCH %s: %d, preemptible %v, want %v", st.patch, code, j.Preemptible, st.preemptible)
		}
		h.m.lock()
		entry := h.m.jobs[id].rec.Preemptible
		h.m.mu.Unlock()
		if s, _ := h.snapshot(); entry != st.preemptible || s.Jobs[0].Preemptible != st.preemptible {
			t.Fatalf("PATCH %s: mirror %v, snapshot %v, want %v", st.patch, entry, s.Jobs[0].Preemptible, st.preemptible)
		}
	}
	events, err := h.st.Events(h.ctx, store.EventFilter{JobID: id})
	if err != nil || len(events) < 2 || !containsString(events[1].Reason, "preemptible false → true") {
		t.Fatalf("events %+v (%v), want the change to LOW to log preemptible false → true", events, err)
	}
}

// TestLeavingLowPreemptible checks OSMO's rule for a job that leaves the
// LOW class (lifecycle.PreemptibleOutsideLow, the simulator's too): it
// gets what its job file said explicitly, else its kind's default, also
// when it was filed LOW (which made it preemptible) and after a restart,
// which reads the rule's inputs back from the stored job file.
func TestLeavingLowPreemptible(t *testing.T) {
	type step struct {
		restart     bool // the master restarts before the patch
		patch       string
		preemptible bool
	}
	const experiment = `, "hyperparameters": {"x": {"type": "categorical", "vals": [1, 2]}}`
	for _, c := range []struct {
		name, resources, more string
		steps                 []step
	}{
		{"command filed LOW", `, "priority_class": "LOW"`, "", []step{
			{false, `{"priority": 45}`, false}, {false, `{"priority": 80}`, true}, {false, `{"priority_class": "HIGH"}`, false}}},
		{"command filed LOW, after a restart", `, "priority": 70`, "", []step{
			{true, `{"priority": 45}`, false}, {true, `{"priority": 80}`, true}}},
		{"LOW forces preemptible, so saying it says nothing", `, "priority_class": "LOW", "preemptible": true`, "", []step{
			{false, `{"priority": 45}`, false}}},
		{"command asked to be preemptible", `, "preemptible": true`, "", []step{
			{false, `{"priority": 80}`, true}, {true, `{"priority": 45}`, true}}},
		{"experiment filed LOW", `, "priority_class": "LOW"`, experiment, []step{
			{false, `{"priority": 45}`, true}, {true, `{"priority": 20}`, true}}},
		{"experiment asked not to be", `, "preemptible": false`, experiment, []step{
			{false, `{"priority": 70}`, true}, {true, `{"priority": 45}`, false}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			id := h.submit(fmt.Sprintf(`{"name": "j", "entrypoint": "python train.py", "resources": {"slots": 1%s}%s}`,
				c.resources, c.more))
			for _, st := range c.steps {
				if st.restart {
					h.start()
				}
				var j api.Job
				if code := h.do("PATCH", fmt.Sprintf("/api/v1/jobs/%d", id), st.patch, &j); code != http.StatusOK ||
					j.Preemptible != st.preemptible {
					t.Fatalf("PATCH %s: %d, preemptible %v, want %v", st.patch, code, j.Preemptible, st.preemptible)
				}
			}
		})
	}
}

func TestBackfillMarkSurvivesRestart(t *testing.T) { onBackends(t, backfillMarkSurvives) }

func backfillMarkSurvives(t *testing.T, h *harness) {
	a := h.agent("n1", 4)
	h.submit(jobSpec("fixed", 2, `, "priority": 50`))
	h.step()
	h.sync(a, a)
	h.submit(jobSpec("blocked", 4, `, "priority": 10`))
	low := h.submit(jobSpec("filler", 2, `, "priority": 70`))
	h.step()
	atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: low})
	if err != nil || len(atts) != 1 || !atts[0].Backfilled {
		t.Fatalf("filler's attempts %+v (%v), want one backfilled", atts, err)
	}
	h.start()
	s, v := h.snapshot()
	for i, r := range v.allocs {
		if r.t.job.rec.ID == low && !s.Allocs[i].Backfilled {
			t.Fatalf("after a restart the filler's allocation %+v lost its backfill mark", s.Allocs[i])
		}
	}
}

func TestUsageChargesFairShare(t *testing.T) { onBackends(t, usageCharges) }

func usageCharges(t *testing.T, h *harness) {
	h.opt.Config = mustConfig(t, features)
	h.start()
	a := h.agent("n1", 4)
	id := h.submitAs("ana", jobSpec("work", 2, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(10 * time.Minute)
	h.sync(a)       // keeps the node up
	h.m.Tick(h.ctx) // records the first ten minutes
	h.clock.Advance(time.Minute)
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	recs, err := h.st.Usage(h.ctx, store.UsageFilter{})
	if err != nil || len(recs) != 2 || recs[0].GPUSeconds != 1200 || recs[1].GPUSeconds != 120 ||
		recs[0].User != "ana" || recs[0].Project != "vision" || recs[0].Pool != "mf" || !recs[1].Start.Equal(recs[0].End) {
		t.Fatalf("usage records %+v (%v), want 1200 then 120 GPU-seconds of ana in vision", recs, err)
	}
	// Usage is in hours of the pool's 4 GPUs, counted per hour (the decay
	// period) and halved at each hour's end: 1200 GPU-seconds, then 120
	// more, both within 12:00-13:00, count in full until 13:00.
	want := (1200 + 120.0) / (4 * 3600)
	s, _ := h.snapshot()
	leaf := s.Accounts[len(s.Accounts)-1]
	if leaf.Name != "vision/ana" || math.Abs(leaf.Usage-want) > 1e-12 {
		t.Fatalf("account %+v, want vision/ana with usage %v", leaf, want)
	}
	h.start() // the usage is rebuilt from the store
	b := h.agent("n1", 4)
	s, _ = h.snapshot()
	if got := s.Accounts[len(s.Accounts)-1]; got.Name != leaf.Name || math.Abs(got.Usage-leaf.Usage) > 1e-12 {
		t.Fatalf("after a restart: account %+v, want %+v", got, leaf)
	}
	h.clock.Advance(49 * time.Minute) // 13:00: the hour ended, it counts half
	h.sync(b)
	s, _ = h.snapshot()
	if got := s.Accounts[len(s.Accounts)-1]; math.Abs(got.Usage-want/2) > 1e-12 {
		t.Fatalf("after the hour: account %+v, want usage %v", got, want/2)
	}
}

// TestRunningUsageCountsAtOnce: a running task's usage counts against its
// account before any record is written, and a restart neither loses it nor
// counts it twice.
func TestRunningUsageCountsAtOnce(t *testing.T) {
	h := newHarness(t, withFeatures(t))
	a := h.agent("n1", 4)
	h.submitAs("ana", jobSpec("work", 4, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(30 * time.Minute)
	h.sync(a)
	s, _ := h.snapshot()
	want := 4 * 1800.0 / (4 * 3600)
	if got := s.Accounts[3].Usage; math.Abs(got-want) > 1e-12 {
		t.Fatalf("usage %v while running, want %v", got, want)
	}
	h.m.Tick(h.ctx)
	h.start()
	h.agent("n1", 4)
	s, _ = h.snapshot()
	if got := s.Accounts[3].Usage; math.Abs(got-want) > 1e-12 {
		t.Fatalf("usage %v after a record and a restart, want %v", got, want)
	}
}

func TestPreemptBudgetCounted(t *testing.T) { onBackends(t, preemptBudgetCounted) }

func preemptBudgetCounted(t *testing.T, h *harness) {
	h.opt.Config = mustConfig(t, features)
	h.start()
	a := &mastertest.Agent{Master: h.srv.URL, Token: h.join, Name: "p1", Pool: "prio", GPUs: 2}
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	low := h.submit(`{"name": "low", "pool": "prio", "entrypoint": "e", "resources": {"slots": 2, "priority": 70}}`)
	h.step()
	h.sync(a, a)
	h.submit(`{"name": "high", "pool": "prio", "entrypoint": "e", "resources": {"slots": 2, "priority": 10}}`)
	h.step()
	if got := h.taskState(low, 0); got != store.TaskPreempting {
		t.Fatalf("low task %s, want preempting", got)
	}
	preempted := func() int {
		s, _ := h.snapshot()
		return s.Projects[1].Preempted
	}
	if n := preempted(); n != 1 {
		t.Fatalf("vision preempted %d, want 1", n)
	}
	h.start()
	if n := preempted(); n != 1 {
		t.Fatalf("after a restart vision preempted %d, want 1 (from the event log)", n)
	}
	h.clock.Advance(time.Hour + time.Second)
	if n := preempted(); n != 0 {
		t.Fatalf("an hour later vision preempted %d, want 0", n)
	}
}

func mustConfig(t testing.TB, src string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

func decodeJSONBody(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }

func containsString(s, sub string) bool { return strings.Contains(s, sub) }
