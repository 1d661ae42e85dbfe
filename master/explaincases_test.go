package master

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// The trial's cluster: a priority pool research (node r1, 4 slots, with
// backfill) and a quota pool shared (nodes s1 and s2, 2 slots each);
// projects A and B with a quota of 2 each in shared, A limited to 3.
const cfTrialConfig = "pools:\n  - {name: research, policy: priority, backfill: true}\n  - {name: shared, policy: quota}\n" +
	"default_pool: research\ndefault_project: A\nprojects:\n  - {name: A, quota: 2, limit: 3}\n  - {name: B, quota: 2}\n"

const (
	research = 0
	shared   = 1
	projA    = 0
	projB    = 1
	nodeR1   = 0
	nodeS1   = 1
	nodeS2   = 2
)

// cfRun is a running job of a counterfactual case: its number, pool,
// project, whether preemptible, and the slots it holds on each node;
// preempting marks a task the core already asked to stop.
type cfRun struct {
	id          int
	pool, proj  int
	preemptible bool
	on          map[int32]int32
	preempting  bool
}

// cfWait is a waiting job of a case.
type cfWait struct {
	id              int
	pool, proj      int
	slots, priority int
	preemptible     bool
	submit          int64
}

// cfSnapshot is the trial's cluster running runs, with waits waiting
// (the job asked about is the last).
func cfSnapshot(runs []cfRun, waits []cfWait) *sched.Snapshot {
	s := &sched.Snapshot{Now: 1000,
		Pools: []sched.Pool{{Name: "research", Policy: sched.PolicyPriority, Backfill: true}, {Name: "shared", Policy: sched.PolicyQuota}},
		Nodes: []sched.Node{{Name: "node-r1", Pool: research, Slots: 4}, {Name: "node-s1", Pool: shared, Slots: 2},
			{Name: "node-s2", Pool: shared, Slots: 2}},
		Projects: []sched.Project{{Name: "A", Parent: -1, Quota: 2, Limit: 3}, {Name: "B", Parent: -1, Quota: 2}},
	}
	for _, r := range runs {
		s.Jobs = append(s.Jobs, sched.Job{ID: strconv.Itoa(r.id), Pool: r.pool, Project: r.proj, Preemptible: r.preemptible, Slots: 1, QOS: -1})
		a := sched.Alloc{Job: len(s.Jobs) - 1, Start: 500, Preempting: r.preempting}
		for _, n := range []int32{nodeR1, nodeS1, nodeS2} {
			if v := r.on[n]; v > 0 {
				a.Nodes = append(a.Nodes, sched.NodeSlots{Node: n, Slots: v})
			}
		}
		s.Allocs = append(s.Allocs, a)
	}
	for _, w := range waits {
		s.Jobs = append(s.Jobs, sched.Job{ID: strconv.Itoa(w.id), Pool: w.pool, Project: w.proj, Preemptible: w.preemptible,
			Slots: w.slots, Priority: w.priority, Waiting: 1, Submit: w.submit, Seq: int64(w.id), QOS: -1})
	}
	return s
}

// TestCounterfactualCases: what explain says would let a waiting job
// start, in the trial's cluster. Quotas and limits count only the job's
// own pool; a binding limit names the project's own jobs, not another
// project's; a job being preempted is waited for (its checkpoint), and
// only what the quota rule could reclaim is called preemptible; the
// fewest jobs that free enough are named; a preemptible job held back
// behind a blocked job of its own priority is told that rule.
func TestCounterfactualCases(t *testing.T) {
	cfg := mustConfig(t, cfTrialConfig)
	tests := []struct {
		name  string
		runs  []cfRun
		waits []cfWait
		says  []string
		not   []string
	}{
		{name: "a limit counts the pool's slots alone",
			runs: []cfRun{{id: 1, pool: research, proj: projA, on: map[int32]int32{nodeR1: 2}},
				{id: 6, pool: shared, proj: projA, preemptible: true, on: map[int32]int32{nodeS2: 2}},
				{id: 13, pool: shared, proj: projA, on: map[int32]int32{nodeS1: 1}},
				{id: 11, pool: shared, proj: projB, on: map[int32]int32{nodeS1: 1}}},
			waits: []cfWait{{id: 7, pool: shared, proj: projA, slots: 1, preemptible: true}},
			says: []string{"Its project A holds 3 of its limit of 3 in pool shared; this job needs 1 more, 1 over the limit.",
				"once job 6 ends, or once the project's limit is raised"},
			not: []string{"holds 5", "job 11", "job 1 "}},
		{name: "work being preempted counts toward the limit until it lands",
			runs: []cfRun{{id: 13, pool: shared, proj: projA, on: map[int32]int32{nodeS1: 1}},
				{id: 14, pool: shared, proj: projA, on: map[int32]int32{nodeS1: 1}},
				{id: 6, pool: shared, proj: projA, preemptible: true, on: map[int32]int32{nodeS2: 1}, preempting: true}},
			waits: []cfWait{{id: 7, pool: shared, proj: projA, slots: 1}},
			says: []string{"Its project A holds 3 of its limit of 3 in pool shared (1 of them held by work being preempted until its checkpoint lands); this job needs 1 more, 1 over the limit.",
				"once project A's work being preempted in pool shared has checkpointed and let go of its 1 slot(s)"},
			not: []string{"job 13", "job 14"}},
		{name: "a quota counts the pool's slots alone",
			runs: []cfRun{{id: 2, pool: research, proj: projB, on: map[int32]int32{nodeR1: 1}},
				{id: 13, pool: shared, proj: projA, on: map[int32]int32{nodeS1: 1}},
				{id: 11, pool: shared, proj: projB, on: map[int32]int32{nodeS1: 1}},
				{id: 6, pool: shared, proj: projA, preemptible: true, on: map[int32]int32{nodeS2: 2}, preempting: true}},
			waits: []cfWait{{id: 12, pool: shared, proj: projB, slots: 1}},
			says:  []string{"It could start on node-s2 once job 6 is preempted and checkpoints."},
			not:   []string{"quota of 2", "job 13"}},
		{name: "work the reclaim would push below its quota is not preemptible",
			runs: []cfRun{{id: 13, pool: shared, proj: projA, preemptible: true, on: map[int32]int32{nodeS1: 1}},
				{id: 11, pool: shared, proj: projB, on: map[int32]int32{nodeS1: 1}},
				{id: 17, pool: shared, proj: projB, preemptible: true, on: map[int32]int32{nodeS2: 2}}},
			waits: []cfWait{{id: 12, pool: shared, proj: projB, slots: 1}},
			says:  []string{"It could start on node-s1 once job 13 ends."},
			not:   []string{"preempted"}},
		{name: "work over its quota may be reclaimed",
			runs: []cfRun{{id: 13, pool: shared, proj: projA, preemptible: true, on: map[int32]int32{nodeS1: 1}},
				{id: 11, pool: shared, proj: projB, on: map[int32]int32{nodeS1: 1}},
				{id: 14, pool: shared, proj: projA, preemptible: true, on: map[int32]int32{nodeS2: 2}}},
			waits: []cfWait{{id: 12, pool: shared, proj: projB, slots: 1}},
			says:  []string{"It could start on node-s1 once job 13 ends or is preempted."}},
		{name: "the fewest jobs that free enough",
			runs: []cfRun{{id: 2, pool: research, proj: projA, on: map[int32]int32{nodeR1: 1}},
				{id: 15, pool: research, proj: projA, on: map[int32]int32{nodeR1: 3}}},
			waits: []cfWait{{id: 16, pool: research, proj: projA, slots: 2}},
			says:  []string{"It could start on node-r1 once job 15 ends."},
			not:   []string{"job 2"}},
		{name: "a preemptible job does not backfill behind its own priority",
			runs: []cfRun{{id: 1, pool: research, proj: projA, on: map[int32]int32{nodeR1: 2}}},
			waits: []cfWait{{id: 3, pool: research, proj: projA, slots: 4, priority: 50, submit: 100},
				{id: 4, pool: research, proj: projA, slots: 1, priority: 50, preemptible: true, submit: 200}},
			says: []string{"only preemptible jobs of lower priority than the job blocked before them",
				"job 3 waiting before it has its priority (50)"},
			not: []string{"would start at once"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := cfSnapshot(tt.runs, tt.waits)
			f := &cfFacts{s: s, cfg: cfg, rec: func(int) *store.Job { return nil }}
			cf := f.counterfactual(len(s.Jobs) - 1)
			checkSays(t, "message", cf.Message, tt.says, tt.not)
		})
	}
}

// TestExplainNoNodeUp: a job of a pool whose only node has left is told
// that the pool has no node up, naming the node, in the last pass's
// reason and in what would let it start; not that no node can hold its
// task, which would send its user to shrink a job that fits.
func TestExplainNoNodeUp(t *testing.T) {
	for _, tt := range []struct {
		name  string
		leave bool
		says  []string
		not   []string
	}{
		{"its only node left", true,
			[]string{"In the last pass: pool default has no node up: n1 (left); it waits for a node to join or come back.",
				"It cannot start now: pool default has no node up: n1 (left)"},
			[]string{"can hold a task"}},
		{"its node is up: it waits for room", false,
			[]string{"once job 1 ends"}, []string{"no node up"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 2)
			if tt.leave {
				a.Leave()
				h.sync(a)
				h.sync(a)
				if n := h.node("n1"); n.State != string(store.NodeLeft) {
					t.Fatalf("node %s, want left", n.State)
				}
			} else {
				h.submit(jobSpec("busy", 2, ""))
				h.step()
				h.sync(a)
			}
			id := h.submit(jobSpec("wait", 2, ""))
			h.step()
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			checkSays(t, "summary", x.Summary, tt.says, tt.not)
		})
	}
}

// TestPoolEmptiedByReload: a job of a pool whose only node a reload
// moved to another pool (no node of it left, up or gone) is told that
// its pool has no node, not that no node can hold a task "with its
// constraints", which it does not have.
func TestPoolEmptiedByReload(t *testing.T) {
	const pools = "pools:\n  - {name: default, policy: fifo}\n  - {name: batch, policy: fifo}\n"
	withFile, path := withConfigFile(t, pools+"nodes:\n  - {name: n1, pool: batch}\n")
	h := newHarness(t, withFile)
	a := h.agent("n1", 2)
	h.sync(a)
	writeConfig(t, path, pools+"nodes:\n  - {name: n1, pool: default}\n")
	if err := h.m.Reload(h.ctx); err != nil {
		t.Fatalf("reload: %v", err)
	}
	h.sync(a)
	id := h.submit(`{"name": "w", "entrypoint": "e", "pool": "batch", "resources": {"slots": 1}}`)
	h.step()
	j := h.job(id)
	if j.Pending == nil || j.Pending.Reason != "no_nodes" {
		t.Fatalf("pending %+v, want no_nodes", j.Pending)
	}
	checkSays(t, "reason", j.Pending.Message, []string{"pool batch has no node up; it waits for a node to join or come back"},
		[]string{"constraints"})
}

// TestQuotaPositions: in a quota pool a job's position, and the jobs its
// explanation lists ahead of it, follow the core's rounds: a project
// under its quota is served before one past it, whatever the priorities;
// in a priority pool, priority alone.
func TestQuotaPositions(t *testing.T) {
	const quota = "pools:\n  - {name: default, policy: quota}\ndefault_project: a\nprojects:\n  - {name: a, quota: 2}\n  - {name: b, quota: 2}\n"
	const priority = "pools:\n  - {name: default, policy: priority}\ndefault_project: a\nprojects:\n  - {name: a, quota: 2}\n  - {name: b, quota: 2}\n"
	spec := func(name, project string, priority int, preemptible bool) string {
		return fmt.Sprintf(`{"name": %q, "project": %q, "entrypoint": "x", "resources": {"slots": 1, "priority": %d, "preemptible": %v}}`,
			name, project, priority, preemptible)
	}
	for _, tt := range []struct {
		name, config string
		// first is the job that should rank first: "a" (a's job of
		// priority 10) or "b" (b's job of priority 50).
		first string
	}{
		{"quota: the project under its quota first", quota, "b"},
		{"priority: the higher priority first", priority, "a"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.config)))
			n1 := h.agent("n1", 2)
			h.submit(`{"name": "held", "project": "a", "entrypoint": "x", "resources": {"slots": 2, "preemptible": false}}`)
			h.step()
			h.sync(n1)
			wa := h.submit(spec("wa", "a", 10, true))
			wb := h.submit(spec("wb", "b", 50, false))
			h.step()
			h.sync(n1)
			first, second := wa, wb
			if tt.first == "b" {
				first, second = wb, wa
			}
			if p1, p2 := h.job(first).Position, h.job(second).Position; p1 != 1 || p2 != 2 {
				t.Fatalf("positions %d (job %d), %d (job %d); want 1 and 2", p1, first, p2, second)
			}
			// allot jobs lists them in that order too.
			var list []api.Job
			if code := h.do("GET", "/api/v1/jobs", nil, &list); code != 200 {
				t.Fatalf("GET /jobs: %d", code)
			}
			var waiting []int64
			for _, j := range list {
				if j.Position > 0 {
					waiting = append(waiting, j.ID)
				}
			}
			if !slices.Equal(waiting, []int64{first, second}) {
				t.Errorf("GET /jobs lists the waiting jobs %v, want %v", waiting, []int64{first, second})
			}
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(second, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if len(x.Ahead) != 1 || x.Ahead[0].ID != first || x.Position != 2 || x.Queued != 2 {
				t.Fatalf("explain: %d of %d, ahead %+v; want 2nd of 2 behind job %d", x.Position, x.Queued, x.Ahead, first)
			}
		})
	}
}

// TestFairSharePositions: in a fair-share pool a job that already holds
// part of what it wants ranks after one that holds nothing, as the core's
// share queue serves them, though submitted first; in a FIFO pool, by
// submission.
func TestFairSharePositions(t *testing.T) {
	for _, tt := range []struct {
		name, policy string
		trialsFirst  bool
	}{
		{"fair share: the job holding nothing first", "fair_share", false},
		{"fifo: the first submitted first", "fifo", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: "+tt.policy+"}\n")))
			n1 := h.agent("n1", 1)
			trials := h.submit(trialsSpec("grid", 1, "", 2))
			h.step()
			h.sync(n1)
			late := h.submit(jobSpec("late", 1, ""))
			h.step()
			h.sync(n1)
			if h.job(trials).Position == 0 {
				t.Fatalf("job %d waits for nothing; want one task waiting", trials)
			}
			first, second := late, trials
			if tt.trialsFirst {
				first, second = trials, late
			}
			if p1, p2 := h.job(first).Position, h.job(second).Position; p1 != 1 || p2 != 2 {
				t.Fatalf("positions %d (job %d), %d (job %d); want 1 and 2", p1, first, p2, second)
			}
		})
	}
}

// checkSays checks that text (what names it) says each of says and none
// of not.
func checkSays(t *testing.T, what, text string, says, not []string) {
	t.Helper()
	for _, w := range says {
		if !strings.Contains(text, w) {
			t.Errorf("%s %q does not say %q", what, text, w)
		}
	}
	for _, w := range not {
		if strings.Contains(text, w) {
			t.Errorf("%s %q says %q", what, text, w)
		}
	}
}
