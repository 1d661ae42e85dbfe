package master

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// node returns one node as GET /nodes lists it.
func (h *harness) node(name string) api.Node {
	h.t.Helper()
	var nodes []api.Node
	if code := h.do("GET", "/api/v1/nodes", nil, &nodes); code != http.StatusOK {
		h.t.Fatalf("list nodes: %d", code)
	}
	for _, n := range nodes {
		if n.Name == name {
			return n
		}
	}
	h.t.Fatalf("node %s not listed in %+v", name, nodes)
	return api.Node{}
}

// TestNodeDrain: a drained node takes no new task, slots or zero-slot,
// while the one it runs finishes; it reads draining, then drained; the
// drain outlives a master restart and the agent registering again; resume
// makes it schedulable.
func TestNodeDrain(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	first := h.submit(jobSpec("first", 1, ""))
	h.step()
	h.sync(a)
	var n api.Node
	if code := h.do("POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: " new PSU "}, &n); code != http.StatusOK {
		t.Fatalf("drain: %d", code)
	}
	if n.Drain != api.NodeDraining || n.DrainReason != "new PSU" || n.DrainedBy != "root" || n.DrainedAt == nil {
		t.Fatalf("drained node %+v, want draining for new PSU by root", n)
	}
	second := h.submit(jobSpec("second", 1, ""))
	zero := h.submit(jobSpec("zero", 0, ""))
	h.step()
	h.sync(a)
	for _, id := range []int64{second, zero} {
		if got := h.taskState(id, 0); got != store.TaskQueued {
			t.Fatalf("job %d on a draining node with a free GPU: task %s, want queued", id, got)
		}
	}
	if got := h.taskState(first, 0); got != store.TaskRunning {
		t.Fatalf("the draining node's own task is %s, want running on", got)
	}
	a.Exit(tid(first, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.step()
	if n := h.node("n1"); n.Drain != api.NodeDrained || n.Used != 0 {
		t.Fatalf("emptied node %+v, want drained", n)
	}

	h.start() // a master restart, and the agent registering again
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.step()
	h.sync(a)
	if n := h.node("n1"); n.Drain != api.NodeDrained || n.DrainReason != "new PSU" {
		t.Fatalf("node after a restart %+v, want still drained for new PSU", n)
	}
	if got := h.taskState(second, 0); got != store.TaskQueued {
		t.Fatalf("after a restart the drained node started a task: %s", got)
	}

	var resumed api.Node
	if code := h.do("POST", "/api/v1/nodes/n1/resume", nil, &resumed); code != http.StatusOK || resumed.Drain != "" || resumed.DrainReason != "" {
		t.Fatalf("resume: %d, node %+v; want schedulable", code, resumed)
	}
	h.step()
	for _, id := range []int64{second, zero} {
		if got := h.taskState(id, 0); got != store.TaskStarting {
			t.Fatalf("job %d on a resumed node: task %s, want starting", id, got)
		}
	}
}

// TestDeleteNode: a node that runs nothing is forgotten, and its agent
// comes back as a new node, schedulable; one that runs tasks is not.
func TestDeleteNode(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, ""))
	h.step()
	h.sync(a)
	if code := h.do("POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: "retire"}, nil); code != http.StatusOK {
		t.Fatalf("drain: %d", code)
	}
	var e api.Error
	if code := h.do("DELETE", "/api/v1/nodes/n1", nil, &e); code != http.StatusConflict ||
		!strings.Contains(e.Error, "1 task (1/0)") {
		t.Fatalf("delete a busy node: %d %+v, want 409 naming task 1/0", code, e)
	}
	// Drained already, it is told to wait, not to drain it.
	if strings.Contains(e.Error, "drain it") || !strings.Contains(e.Error, "it is draining: wait for them to end") {
		t.Errorf("delete a draining node: %q, want it told to wait for its tasks", e.Error)
	}
	a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a)
	h.clock.Advance(time.Hour)
	if code := h.do("DELETE", "/api/v1/nodes/n1", nil, nil); code != http.StatusOK {
		t.Fatalf("delete an idle node: %d", code)
	}
	var nodes []api.Node
	h.do("GET", "/api/v1/nodes", nil, &nodes)
	if len(nodes) != 0 {
		t.Fatalf("nodes after the delete: %+v", nodes)
	}
	if recs, err := h.st.Nodes(h.ctx); err != nil || len(recs) != 0 {
		t.Fatalf("stored nodes after the delete: %+v (%v)", recs, err)
	}
	if _, err := a.Sync(h.ctx, 0); err == nil {
		t.Fatal("a deleted node's sync was answered")
	}
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	n := h.node("n1")
	if n.Drain != "" || !n.RegisteredAt.Equal(h.clock.Now()) {
		t.Fatalf("node registered after its delete %+v, want a new, schedulable node", n)
	}
	second := h.submit(jobSpec("again", 1, ""))
	h.step()
	if got := h.taskState(second, 0); got != store.TaskStarting {
		t.Fatalf("a job on the new node: %s, want starting", got)
	}
}

// TestNodeAdminRejects: drain, resume and delete are for admins, name an
// existing node and need a reason.
func TestNodeAdminRejects(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 1)
	user := h.as("ada")
	tests := []struct {
		name         string
		token        string
		method, path string
		body         any
		code         int
		field, says  string
	}{
		{"drain as a user", user, "POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: "x"}, 403, "", "admin"},
		{"resume as a user", user, "POST", "/api/v1/nodes/n1/resume", nil, 403, "", "admin"},
		{"delete as a user", user, "DELETE", "/api/v1/nodes/n1", nil, 403, "", "admin"},
		{"drain an unknown node", h.admin, "POST", "/api/v1/nodes/n9/drain", api.NodeDrainRequest{Reason: "x"}, 404, "name", `node "n9": no such node (nodes: n1)`},
		{"resume an unknown node", h.admin, "POST", "/api/v1/nodes/n9/resume", nil, 404, "name", "no such node"},
		{"delete an unknown node", h.admin, "DELETE", "/api/v1/nodes/n9", nil, 404, "name", "no such node"},
		{"no reason", h.admin, "POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: "  "}, 400, "reason", "reason is empty"},
		{"a reason too long", h.admin, "POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: strings.Repeat("x", 1025)}, 400, "reason", "longer than 1024"},
		{"an unknown field", h.admin, "POST", "/api/v1/nodes/n1/drain", `{"reason": "x", "until": 5}`, 400, "until", "unknown field"},
		{"no body", h.admin, "POST", "/api/v1/nodes/n1/drain", nil, 400, "", "empty request body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e api.Error
			code := h.doAs(tt.token, tt.method, tt.path, tt.body, &e)
			if code != tt.code || e.Field != tt.field || !strings.Contains(e.Error, tt.says) {
				t.Fatalf("%d %+v, want %d naming field %q and saying %q", code, e, tt.code, tt.field, tt.says)
			}
		})
	}
	if n := h.node("n1"); n.Drain != "" {
		t.Fatalf("node after refused requests %+v, want schedulable", n)
	}
}

// TestDrainingNodeKeepsItsTasks: in a pool that preempts, a more important
// job does not preempt a task of a draining node, whose GPUs would not be
// free for it; the snapshot shows the node full.
func TestDrainingNodeKeepsItsTasks(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, `
default_pool: prio
pools:
  - {name: prio, policy: priority, preemption: true}
`)))
	a := h.agent("n1", 2)
	low := h.submit(jobSpec("low", 1, `, "priority": 80`))
	h.step()
	h.sync(a, a)
	if code := h.do("POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: "retire"}, nil); code != http.StatusOK {
		t.Fatalf("drain: %d", code)
	}
	s, _ := h.snapshot()
	if len(s.Nodes) != 1 || s.Nodes[0].Slots != 1 || s.Nodes[0].ZeroSlotLimit != 0 {
		t.Fatalf("draining node in the snapshot %+v, want 1 slot (its task's) and no zero-slot room", s.Nodes)
	}
	high := h.submit(jobSpec("high", 1, `, "priority": 10`))
	h.step()
	h.sync(a)
	h.step()
	if got := h.taskState(low, 0); got != store.TaskRunning {
		t.Fatalf("the draining node's task is %s, want running on", got)
	}
	if got := h.taskState(high, 0); got != store.TaskQueued {
		t.Fatalf("the important job is %s, want queued", got)
	}
}

// TestPoolsShowReservations: GET /pools shows the start the last pass
// reserved for the blocked head of a backfill pool, and the backfill
// window: the free GPUs until then.
func TestPoolsShowReservations(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, `
default_pool: bf
pools:
  - {name: bf, policy: backfill}
`)))
	a := h.agent("n1", 4)
	h.submit(jobSpec("long", 3, `, "time_limit": 3600`))
	h.step()
	h.sync(a)
	start := h.clock.Now()
	h.clock.Advance(10 * time.Minute)
	big := h.submit(jobSpec("big", 4, ""))
	h.step()
	var pools []api.Pool
	if code := h.do("GET", "/api/v1/pools", nil, &pools); code != http.StatusOK || len(pools) != 1 {
		t.Fatalf("pools: %d %+v", code, pools)
	}
	p := pools[0]
	if !p.Backfill {
		t.Errorf("pool %+v says it does not backfill; a backfill pool always does (trial p F6)", p)
	}
	want := start.Add(time.Hour)
	if len(p.Reservations) != 1 || p.Reservations[0].Job != big || !p.Reservations[0].Start.Equal(want) || p.Reservations[0].Slots != 4 {
		t.Fatalf("reservations %+v, want job %d at %s for 4 slots", p.Reservations, big, want)
	}
	w := p.BackfillWindow
	if w == nil || w.Slots != 1 || w.Seconds != 50*60 || w.Until == nil || !w.Until.Equal(want) {
		t.Fatalf("backfill window %+v, want 1 slot for 50 min", w)
	}
}

// TestFairShareCapacityKeepsNodes: a drain or a loss does not change
// what the accounts' usage is worth: fair-share usage stays a share of
// every node's slots in a multifactor pool, a drained or lost node's
// included, as the simulator measures it (sim's chargedSlots;
// lifecycle.InFairShareCapacity), so that a replay of a run with a
// drain or a loss sees the same fair-share factors. A deleted node's
// slots leave it: n2's deletion halves the capacity, and doubles the
// usage, as the simulator's node_delete does; n2 registering again with
// more GPUs grows it.
func TestFairShareCapacityKeepsNodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		off   func(h *harness)
		scale float64 // of the usage, after
	}{
		{"deleted", func(h *harness) {
			if code := h.do("DELETE", "/api/v1/nodes/n2", nil, nil); code != http.StatusOK {
				t.Fatalf("delete: %d", code)
			}
		}, 2},
		{"drained", func(h *harness) {
			if code := h.do("POST", "/api/v1/nodes/n2/drain", api.NodeDrainRequest{Reason: "retire"}, nil); code != http.StatusOK {
				t.Fatalf("drain: %d", code)
			}
		}, 1},
		// n2 registers again with 12 GPUs: the capacity doubles
		// (reshape.go), as at the simulator's node_reshape.
		{"reshaped", func(h *harness) { h.agent("n2", 12) }, 0.5},
		{"lost", func(h *harness) {
			h.m.lock()
			err := h.m.batches.inBatch(h.ctx, func() error { return h.m.agents.loseNode(h.ctx, h.m.nodes["n2"], "node n2 lost") })
			h.m.mu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, multifactorConfig)))
			a, b := h.agent("n1", 4), h.agent("n2", 4)
			h.submit(`{"name": "a1", "entrypoint": "e", "project": "a", "resources": {"slots": 2}}`)
			h.step()
			h.sync(a, b)
			h.clock.Advance(10 * time.Minute)
			usage := func() []float64 {
				s, _ := h.snapshot()
				var out []float64
				for _, acc := range s.Accounts {
					out = append(out, acc.Usage)
				}
				return out
			}
			before := usage()
			if !slices.ContainsFunc(before, func(u float64) bool { return u > 0 }) {
				t.Fatalf("no account has usage before n2 is %s: %v", tc.name, before)
			}
			tc.off(h)
			want := slices.Clone(before)
			for i := range want {
				want[i] *= tc.scale
			}
			if after := usage(); !slices.Equal(want, after) {
				t.Errorf("accounts' usage %v with n2 %s, want %v (%v before)", after, tc.name, want, before)
			}
		})
	}
}

// TestPoolsShowLicenseReservations: a job short of a license whose start
// the pass reserved (at the holder's time limit) is among the pool's
// reservations, naming the license, as a slot reservation is.
func TestPoolsShowLicenseReservations(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, `
default_pool: bf
licenses: {matlab: 1}
pools:
  - {name: bf, policy: backfill}
`)))
	a := h.agent("n1", 4)
	h.submit(jobSpec("holder", 1, `, "time_limit": 3600, "licenses": {"matlab": 1}`))
	h.step()
	h.sync(a)
	start := h.clock.Now()
	waiter := h.submit(jobSpec("waiter", 1, `, "time_limit": 600, "licenses": {"matlab": 1}`))
	h.step()
	h.step()
	var pools []api.Pool
	if code := h.do("GET", "/api/v1/pools", nil, &pools); code != http.StatusOK || len(pools) != 1 {
		t.Fatalf("pools: %d %+v", code, pools)
	}
	want := start.Add(time.Hour)
	r := pools[0].Reservations
	if len(r) != 1 || r[0].Job != waiter || !r[0].Start.Equal(want) || r[0].Slots != 1 || r[0].License != "matlab" {
		t.Fatalf("reservations %+v, want job %d at %s for 1 slot, license matlab", r, waiter, want)
	}
}
