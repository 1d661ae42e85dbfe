package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestLostNodeComesBack: a non-preemptible task on a node that went silent
// (a stopped agent, a network cut) is not failed while the node may come
// back: when its agent syncs again within lost_node_grace, the task goes
// on, or ends with the outcome the agent reports; a kill ends it at once.
func TestLostNodeComesBack(t *testing.T) {
	tests := []struct {
		name string
		// back runs once the node is lost, with the agent and job.
		back func(h *harness, a *mastertest.Agent, id int64)
		want store.TaskState
	}{
		{"still running, then completes", func(h *harness, a *mastertest.Agent, id int64) {
			if _, err := a.Register(h.ctx); err != nil {
				h.t.Fatal(err)
			}
			h.sync(a)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				h.t.Fatalf("back with the task running: task %s, want running", got)
			}
			for _, c := range a.Commands() {
				if c.Type == api.CommandKill {
					h.t.Fatalf("the master killed the task of a node that came back: %+v", c)
				}
			}
			a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
		}, store.TaskCompleted},
		{"ended while lost with exit 0", func(h *harness, a *mastertest.Agent, id int64) {
			a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
			if _, err := a.Register(h.ctx); err != nil {
				h.t.Fatal(err)
			}
			h.sync(a)
		}, store.TaskCompleted},
		{"ended while lost with exit 1", func(h *harness, a *mastertest.Agent, id int64) {
			a.Exit(tid(id, 0, 1), agent.OutcomeFailed, 1)
			if _, err := a.Register(h.ctx); err != nil {
				h.t.Fatal(err)
			}
			h.sync(a)
		}, store.TaskFailed},
		{"killed while lost", func(h *harness, a *mastertest.Agent, id int64) {
			if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", id), nil, nil); code != 200 {
				h.t.Fatalf("kill: %d", code)
			}
			h.m.Tick(h.ctx)
		}, store.TaskKilled},
		// At the kill, with no tick, its attempt killed (the simulator's
		// kill; replay case priority-node-loss-grace-kill); back, the
		// node is told to kill what it still runs.
		{"killed while lost, ended at the kill", func(h *harness, a *mastertest.Agent, id int64) {
			if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", id), nil, nil); code != 200 {
				h.t.Fatalf("kill: %d", code)
			}
			atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: id})
			if err != nil {
				h.t.Fatal(err)
			}
			if len(atts) != 1 || atts[0].EndState != store.AttemptKilled {
				h.t.Fatalf("attempts %+v, want one, killed", atts)
			}
			if _, err := a.Register(h.ctx); err != nil {
				h.t.Fatal(err)
			}
			h.sync(a)
			if len(a.Running()) != 0 {
				h.t.Fatalf("the node back still runs %v", a.Running())
			}
		}, store.TaskKilled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, a, id := lostWithTask(t)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task %s on the just-lost node, want running", got)
			}
			h.clock.Advance(time.Minute)
			tt.back(h, a, id)
			if got := h.taskState(id, 0); got != tt.want {
				t.Fatalf("task %s, want %s", got, tt.want)
			}
			if j := h.job(id); j.State != string(tt.want) {
				t.Fatalf("job %s, want %s", j.State, tt.want)
			}
		})
	}
}

// TestLostNodeLastSeenSurvivesRestart: a lost node's last contact is
// stored exactly when it is marked lost, and a restarted master shows it
// rather than the time of the restart.
func TestLostNodeLastSeenSurvivesRestart(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 1)
	h.clock.Advance(5 * time.Second) // less than a third of the timeout: the sync stores nothing
	h.sync(a)
	last := h.clock.Now()
	h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
	h.m.Tick(h.ctx)
	if n := h.node("n1"); n.State != "lost" || !n.HeartbeatAt.Equal(last) {
		t.Fatalf("lost node %s last seen %s, want lost, last seen %s", n.State, n.HeartbeatAt, last)
	}
	for _, restart := range []string{"first", "second"} {
		h.clock.Advance(time.Hour)
		h.start()
		h.m.Tick(h.ctx)
		if n := h.node("n1"); n.State != "lost" || !n.HeartbeatAt.Equal(last) {
			t.Fatalf("after the %s restart: node %s last seen %s, want lost, last seen %s", restart, n.State, n.HeartbeatAt, last)
		}
	}
	// Coming back is contact again.
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	if n := h.node("n1"); n.State != "up" || !n.HeartbeatAt.Equal(h.clock.Now()) {
		t.Fatalf("node back: %s last seen %s, want up, seen now", n.State, n.HeartbeatAt)
	}
}

// lostWithTask is a harness whose node n1, running a task of job id that
// is not preemptible, has just been found lost: its agent a stopped
// syncing past the agent timeout.
func lostWithTask(t *testing.T) (*harness, *mastertest.Agent, int64) {
	t.Helper()
	h := newHarness(t)
	a := h.agent("n1", 2)
	id := h.submit(jobSpec("train", 1, `, "preemptible": false`))
	h.step()
	h.sync(a, a)
	h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
	h.m.Tick(h.ctx)
	if h.m.nodes["n1"].up() {
		t.Fatal("node not lost after the agent timeout")
	}
	return h, a, id
}

// TestLostNodeGraceSurvivesRestart: the lost_node_grace of a task held
// through its node's loss counts from the loss, across a restart of the
// master (restoreLosses), not from the restart: lost 3m before the
// restart, the task is lost 2m after it, once the 5m grace is over.
func TestLostNodeGraceSurvivesRestart(t *testing.T) {
	h, _, id := lostWithTask(t)
	if h.m.cfg.LostNodeGrace != 5*time.Minute {
		t.Fatalf("lost_node_grace %s, want the default 5m", h.m.cfg.LostNodeGrace)
	}
	lostAt := h.clock.Now()
	h.clock.Advance(3 * time.Minute)
	h.start()
	h.m.Tick(h.ctx)
	if got := h.taskState(id, 0); got != store.TaskRunning {
		t.Fatalf("task %s 3m into the grace, after the restart; want running (held)", got)
	}
	// GET /nodes says since when the node is lost and until when its
	// task is held, from the loss, across the restart.
	var nodes []api.Node
	if code := h.do("GET", "/api/v1/nodes", nil, &nodes); code != 200 || len(nodes) != 1 || nodes[0].LostAt == nil ||
		!nodes[0].LostAt.Equal(lostAt) || nodes[0].HeldUntil == nil || !nodes[0].HeldUntil.Equal(lostAt.Add(5*time.Minute)) {
		t.Fatalf("GET /nodes: %d %+v, want lost at %v, held until 5m later", code, nodes, lostAt)
	}
	h.clock.Advance(2*time.Minute + time.Second)
	h.m.Tick(h.ctx)
	if got := h.taskState(id, 0); got != store.TaskFailed {
		t.Fatalf("task %s 5m1s after its node's loss, across a restart; want failed (not preemptible, lost)", got)
	}
}
