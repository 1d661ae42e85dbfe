package master

import (
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store/pgtest"
)

// TestHistoryScenarioRoundTrip: the jobs a live cluster ran, exported as
// a scenario, replay in the simulator to the same starts and waits as
// they had live (FIFO, exact run times); a job killed while it waited is
// killed in the replay too.
func TestHistoryScenarioRoundTrip(t *testing.T) {
	cfg := mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")
	t.Run("sqlite", func(t *testing.T) { testHistoryRoundTrip(t, newHarness(t, withConfig(cfg))) })
	t.Run("postgres", func(t *testing.T) {
		testHistoryRoundTrip(t, newHarnessOn(t, pgtest.DSN(t), t.TempDir(), withConfig(cfg)))
	})
}

func testHistoryRoundTrip(t *testing.T, h *harness) {
	a := h.agent("n1", 2)
	t0 := h.clock.Now()
	big := h.submit(jobSpec("big", 2, ""))
	h.step()
	h.sync(a, a)
	h.clock.Advance(10 * time.Minute)
	small := h.submit(jobSpec("small", 1, ""))
	gone := h.submit(jobSpec("gone", 2, ""))
	h.step()
	h.clock.Advance(20 * time.Minute)
	h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(gone, 10)+"/kill", nil, nil)
	h.clock.Advance(30 * time.Minute)
	a.Exit(tid(big, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	h.sync(a, a)
	h.clock.Advance(30 * time.Minute)
	a.Exit(tid(small, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)

	q := window(t0, h.clock.Now())
	code, body, hdr := h.raw("GET", "/api/v1/history/scenario"+q, "")
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/yaml") {
		t.Fatalf("export: %d %s", code, body)
	}
	sc, err := scenario.Parse("history.yaml", []byte(body))
	if err != nil {
		t.Fatalf("the exported scenario does not parse: %v\n%s", err, body)
	}
	res := replayScenario(t, sc, -1)
	waits := liveWaits(h, q)
	for _, j := range res.Jobs {
		t.Run(j.Name, func(t *testing.T) {
			switch {
			case strings.HasSuffix(j.Name, "-gone"):
				if j.State != sim.StateKilled || j.Start != nil {
					t.Errorf("replayed %+v, want killed before it started", j)
				}
			case j.Wait == nil || *j.Wait != waits[j.Name]:
				t.Errorf("replayed wait %v, live %d s", j.Wait, waits[j.Name])
			}
		})
	}
	if len(res.Jobs) != 3 {
		t.Fatalf("%d jobs replayed, want 3:\n%s", len(res.Jobs), body)
	}
	for _, path := range []string{"/api/v1/history/scenario", "/api/v1/history/decisions"} {
		if code := h.doAs(h.as("ann", "default=member"), "GET", path, nil, nil); code != 403 {
			t.Errorf("a member read %s: %d, want 403", path, code)
		}
	}
}

// clusterConfig sets every pool, project, license, QOS and decay field
// the scenario format shares with the master's, on a pool of each policy.
const clusterConfig = `
pools:
  - {name: fifo, policy: fifo, placement: spread, min_run_time: 90s}
  - {name: bf, policy: backfill, reservations: conservative}
  - {name: prio, policy: priority, preemption: true, backfill: true, min_run_time: 1h}
  - {name: fs, policy: fair_share, preemption: true}
  - {name: quota, policy: quota, placement: spread}
  - name: mf
    policy: multifactor
    preemption: true
    backfill: true
    reservations: conservative
    multifactor: {age: 2, fair_share: 3, job_size: 4, qos: 5, pool: 6, max_age: 2h, fair_share_mode: classic,
      favor_small: true, pool_priority: 7}
  - {name: mf2, policy: multifactor, multifactor: {qos: 1, max_age: 1h}}
nodes:
  - {name: n-fifo, pool: fifo}
  - {name: n-bf, pool: bf}
  - {name: n-prio, pool: prio}
  - {name: n-fs, pool: fs}
  - {name: n-quota, pool: quota}
  - {name: n-mf, pool: mf}
  - {name: n-mf2, pool: mf2}
projects:
  - {name: lab, quota: 8, over_quota_weight: 2.5, limit: 12, preempt_budget: 3, shares: 4}
  - {name: a, parent: lab, quota: 5, limit: 6, preempt_budget: 1, qos: [normal, urgent]}
  - {name: b, parent: lab, quota: 0, over_quota_weight: 0.5}
  - {name: default}
default_pool: fifo
licenses: {matlab: 4, vasp: 0}
qos:
  - {name: low}
  - {name: normal, priority: 5}
  - {name: urgent, priority: 50, preempt: true}
default_qos: normal
decay: {period: 1h, per_period: 0.7}
`

// TestHistoryScenarioCluster: every pool, project, license, QOS and decay
// field of the configuration survives the export as a scenario, read
// back with the scenario parser: the cluster spec's types go out and come
// back. What the formats define apart is the exception: scenario quota
// pools say no preemption (they reclaim regardless), a scenario's
// multifactor settings come only with their weights, and its projects take
// no shares (accounts do).
func TestHistoryScenarioCluster(t *testing.T) {
	cfg := mustConfig(t, clusterConfig)
	h := newHarness(t, withConfig(cfg))
	for _, n := range cfg.Nodes {
		h.agent(n.Name, 2)
	}
	sc, body := exportScenario(t, h, "")
	// The header's compare line uses --policy current, the name sim
	// compare documents for the cluster's own settings.
	if want := "#   allot sim compare FILE --policy current --policy easy\n"; !strings.Contains(body, want) {
		t.Errorf("the export's header does not say %q:\n%s", want, body)
	}
	if len(sc.Pools) != len(cfg.Pools) {
		t.Fatalf("%d pools exported, want %d:\n%s", len(sc.Pools), len(cfg.Pools), body)
	}
	for i, want := range cfg.Pools {
		want, got := want.Pool, sc.Pools[i].Pool
		want.Line, got.Line = 0, 0
		if want.Policy == sched.PolicyQuota {
			want.Preemption = false
		}
		if mf := &want.Multifactor; want.Policy == sched.PolicyMultifactor {
			if mf.Age == 0 {
				mf.MaxAge = 0
			}
			if mf.FairShare == 0 {
				mf.FairShareMode = ""
			}
			mf.FavorSmall = mf.FavorSmall && mf.JobSize > 0
		}
		if got != want {
			t.Errorf("pool %s came back as\n%+v, want\n%+v", want.Name, got, want)
		}
		if n := sc.Pools[i].Nodes; len(n) != 1 || n[0].Slots != 2 {
			t.Errorf("pool %s: nodes %+v", want.Name, n)
		}
	}
	for i, want := range cfg.Projects {
		want.Line, want.Shares = 0, 0
		if got := sc.Projects[i]; i >= len(sc.Projects) || !reflect.DeepEqual(noLine(got), want) {
			t.Errorf("project %d came back as %+v, want %+v", i, sc.Projects, want)
		}
	}
	if len(sc.Projects) != len(cfg.Projects) {
		t.Errorf("%d projects exported, want %d", len(sc.Projects), len(cfg.Projects))
	}
	if !slices.Equal(spec.SchedLicenses(sc.Licenses), cfg.SchedLicenses()) {
		t.Errorf("licenses %+v, want %+v", sc.Licenses, cfg.Licenses)
	}
	if !slices.Equal(spec.SchedQOS(sc.QOS), cfg.SchedQOS()) {
		t.Errorf("QOS %+v, want %+v", sc.QOS, cfg.QOS)
	}
	if sc.Decay.Sched() != cfg.SchedDecay() {
		t.Errorf("decay %+v, want %+v", sc.Decay, cfg.Decay)
	}
	for i, p := range cfg.Projects {
		if i >= len(sc.Accounts) || sc.Accounts[i].Name != p.Name || sc.Accounts[i].Parent != p.Parent || sc.Accounts[i].Shares != p.Shares {
			t.Errorf("account %d: %+v, want project %+v's tree and shares", i, sc.Accounts, p)
		}
	}
}

func noLine(p spec.Project) spec.Project {
	p.Line = 0
	return p
}

// TestHistoryScenarioMultifactor: the export of a multifactor pool
// parses and replays. Its jobs charge their project's account and name
// no priority, which multifactor pools compute: a job submitted with one
// made an export that did not parse.
func TestHistoryScenarioMultifactor(t *testing.T) {
	cfg := mustConfig(t, "pools:\n  - {name: default, policy: multifactor}\nqos: [{name: low}, {name: normal, priority: 5}]\ndefault_qos: normal\n")
	h := newHarness(t, withConfig(cfg))
	a := h.agent("n1", 2)
	job := h.submit(jobSpec("train", 2, `, "priority": 10`))
	h.step()
	h.sync(a, a)
	h.clock.Advance(time.Hour)
	a.Exit(tid(job, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	sc, body := exportScenario(t, h, "?since=7d")
	if len(sc.Jobs) != 1 || sc.Jobs[0].Account != "default" || sc.Jobs[0].QOS != "normal" || sc.Jobs[0].Duration != 3600 {
		t.Fatalf("jobs %+v, want one of an hour charging account default at QOS normal:\n%s", sc.Jobs, body)
	}
	replayScenario(t, sc, -1)
}

// exportScenario fetches the what-if export for the query q ("" or
// "?since=...") and parses it; it returns the scenario and the body for
// failure messages.
func exportScenario(t *testing.T, h *harness, q string) (*scenario.Scenario, string) {
	t.Helper()
	code, body, _ := h.raw("GET", "/api/v1/history/scenario"+q, "")
	if code != 200 {
		t.Fatalf("export: %d %s", code, body)
	}
	sc, err := scenario.Parse("history.yaml", []byte(body))
	if err != nil {
		t.Fatalf("the exported scenario does not parse: %v\n%s", err, body)
	}
	return sc, body
}

// window is the export's query for [since, until).
func window(since, until time.Time) string {
	return "?since=" + url.QueryEscape(since.Format(time.RFC3339)) + "&until=" + url.QueryEscape(until.Format(time.RFC3339))
}

// replayScenario runs an exported scenario through the simulator until
// until (-1: until every job ended), with every attempt in the result.
func replayScenario(t *testing.T, sc *scenario.Scenario, until int64) *sim.Result {
	t.Helper()
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: until, Attempts: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// liveWaits are the live master's waits of the jobs in the history page
// q, in seconds, by the names the export gives them (jID-NAME).
func liveWaits(h *harness, q string) map[string]int64 {
	var live []api.HistoryRecord
	h.do("GET", "/api/v1/history"+q, nil, &live)
	waits := map[string]int64{}
	for _, r := range live {
		waits["j"+strconv.FormatInt(r.ID, 10)+"-"+r.Name] = r.WaitS
	}
	return waits
}

// TestHistoryScenarioLateFail: a task that failed live after more work
// than the job's exported run time (the mean of its completed tasks)
// gets a run time of its own that reaches its failure (runs), since a
// scenario refuses a failure its task would complete before: the export
// parses, and the replay fails the task when it failed live.
func TestHistoryScenarioLateFail(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	a := h.agent("n1", 3)
	t0 := h.clock.Now()
	id := h.submit(`{"name": "exp", "entrypoint": "python train.py", "resources": {"slots": 1},
		"hyperparameters": {"x": {"type": "categorical", "vals": [1, 2, 3]}}}`)
	h.step()
	h.sync(a, a)
	h.clock.Advance(5 * time.Minute)
	a.Exit(tid(id, 1, 1), agent.OutcomeFailed, 1) // fails early: exported
	h.sync(a)
	h.clock.Advance(5 * time.Minute)
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.clock.Advance(20 * time.Minute)
	a.Exit(tid(id, 2, 1), agent.OutcomeFailed, 1) // fails after 30m of work, past the 10m run time
	h.sync(a)

	code, body, _ := h.raw("GET", "/api/v1/history/scenario"+window(t0, h.clock.Now()), "")
	if code != 200 {
		t.Fatalf("export: %d %s", code, body)
	}
	sc, err := scenario.Parse("history.yaml", []byte(body))
	if err != nil {
		t.Fatalf("the exported scenario does not parse: %v\n%s", err, body)
	}
	if len(sc.Jobs) != 1 || sc.Jobs[0].Duration != 600 {
		t.Fatalf("exported jobs %+v, want one of run time 600 s\n%s", sc.Jobs, body)
	}
	if f := sc.Jobs[0].Fails; len(f) != 2 || f[0].Task != 1 || f[0].After >= 600 || f[1].Task != 2 || f[1].After != 1800 {
		t.Errorf("exported fails %+v, want task 1's early and task 2's after 1800 s\n%s", f, body)
	}
	if r := sc.Jobs[0].Runs; len(r) != 1 || r[0].Task != 2 || r[0].Work != 1800 {
		t.Errorf("exported runs %+v, want task 2's of 1800 s\n%s", r, body)
	}
}

// TestHistoryScenarioNodeEvents: the losses and returns of the nodes in
// the window, from the store's node history, are node_down and node_up
// events at their offsets; a loss before the window, and the return that
// follows it, are not; the scenario carries the lost_node_grace.
func TestHistoryScenarioNodeEvents(t *testing.T) {
	for _, c := range []struct {
		name, config string
		grace        time.Duration
	}{
		{"no grace", "lost_node_grace: 0s\n", 0},
		{"a grace", "lost_node_grace: 90s\n", 90 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, c.config)))
			a, b := h.agent("n1", 2), h.agent("n2", 2)
			lose := func(name string) {
				h.m.lock()
				defer h.m.mu.Unlock()
				if err := h.m.batches.inBatch(h.ctx, func() error { return h.m.agents.loseNode(h.ctx, h.m.nodes[name], "test") }); err != nil {
					t.Fatal(err)
				}
			}
			back := func(ag *mastertest.Agent) {
				if _, err := ag.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
			}
			lose("n2") // before the window
			h.clock.Advance(10 * time.Second)
			t0 := h.clock.Now()
			h.clock.Advance(5 * time.Second)
			back(b)
			h.clock.Advance(95 * time.Second)
			lose("n1")
			h.clock.Advance(30 * time.Second)
			back(a)
			h.clock.Advance(time.Minute)
			sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
			want := []scenario.Event{{At: 100, Kind: scenario.EventNodeDown, Node: "n1"}, {At: 130, Kind: scenario.EventNodeUp, Node: "n1"}}
			checkNodeEvents(t, sc, body, want)
			if sc.LostNodeGrace != c.grace || strings.Contains(body, "lost_node_grace (") {
				t.Errorf("lost_node_grace %s, want %s, and no note\n%s", sc.LostNodeGrace, c.grace, body)
			}
		})
	}
}

// TestHistoryScenarioSubSecondFail: a task that failed within its first
// second did no whole second of work and is exported failing after 0,
// which the replay fails as it starts, as it did live, so the job that
// waited for its slot starts in the same second in both; after 1 held
// the slot a second longer. One that failed after a second and a half is
// exported after its one whole second.
func TestHistoryScenarioSubSecondFail(t *testing.T) {
	cases := []struct {
		name      string
		failsIn   time.Duration
		wantAfter int64
	}{
		{"within its first second", 500 * time.Millisecond, 0},
		{"after a second and a half", 1500 * time.Millisecond, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
			a := h.agent("n1", 1)
			t0 := h.clock.Now()
			quick := h.submit(jobSpec("quick", 1, ""))
			next := h.submit(jobSpec("next", 1, ""))
			h.step()
			h.sync(a, a)
			h.clock.Advance(tc.failsIn)
			a.Exit(tid(quick, 0, 1), agent.OutcomeFailed, 1)
			h.sync(a)
			h.step()
			h.sync(a, a)
			h.clock.Advance(10 * time.Minute)
			a.Exit(tid(next, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)

			q := window(t0, h.clock.Now())
			code, body, _ := h.raw("GET", "/api/v1/history/scenario"+q, "")
			if code != 200 {
				t.Fatalf("export: %d %s", code, body)
			}
			sc, err := scenario.Parse("history.yaml", []byte(body))
			if err != nil {
				t.Fatalf("the exported scenario does not parse: %v\n%s", err, body)
			}
			if len(sc.Jobs) != 2 {
				t.Fatalf("%d jobs exported, want 2:\n%s", len(sc.Jobs), body)
			}
			if f := sc.Jobs[0].Fails; len(f) != 1 || f[0].Task != 0 || f[0].After != tc.wantAfter {
				t.Fatalf("exported fails %+v, want task 0 after %d s\n%s", f, tc.wantAfter, body)
			}
			res := replayScenario(t, sc, -1)
			waits := liveWaits(h, q)
			for _, j := range res.Jobs {
				switch {
				case strings.HasSuffix(j.Name, "-quick"):
					if a := j.Attempts; j.State != sim.StateFailed || len(a) != 1 || a[0].End == nil || *a[0].End-a[0].Start != tc.wantAfter {
						t.Errorf("replayed %s %+v, want failed after %d s", j.State, a, tc.wantAfter)
					}
				case j.Wait == nil || *j.Wait != waits[j.Name]:
					t.Errorf("%s replayed wait %v, live %d s", j.Name, j.Wait, waits[j.Name])
				}
			}
		})
	}
}

// TestHistoryScenarioAccountsNeedAPool: the export declares fair-share
// accounts only when a multifactor pool that weighs fair share is
// exported; one left out for want of nodes made an export the scenario
// parser refuses ("no multifactor pool has a fair_share weight").
func TestHistoryScenarioAccountsNeedAPool(t *testing.T) {
	cfg := mustConfig(t, `
pools:
  - {name: prio, policy: priority}
  - {name: mf, policy: multifactor, multifactor: {fair_share: 10}}
nodes:
  - {name: n-prio, pool: prio}
  - {name: n-mf, pool: mf}
projects:
  - {name: lab, shares: 4}
  - {name: default}
default_pool: prio
`)
	tests := []struct {
		name     string
		nodes    []string
		accounts bool
	}{
		{"fair-share pool without nodes", []string{"n-prio"}, false},
		{"fair-share pool with a node", []string{"n-prio", "n-mf"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(cfg))
			for _, n := range tt.nodes {
				h.agent(n, 2)
			}
			sc, body := exportScenario(t, h, "")
			if got := len(sc.Accounts) > 0; got != tt.accounts {
				t.Errorf("accounts exported: %v, want %v:\n%s", got, tt.accounts, body)
			}
		})
	}
}
