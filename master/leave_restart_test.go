package master

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// TestAgentLeaveMasterRestart: a master restarted while an agent leaves
// reads the leave back from the node history (restoreLeaves): the node
// is listed leaving, and no pass places a task on it before the agent's
// next sync, where the master used to forget the leave until then and
// start a waiting task on the node's free GPU. The agent's next word
// behaves as without the restart: the leaving agent, registering again
// as agentd does after the 404 (Rejoin), its registration saying it
// leaves (api.Register.Leaving), goes on leaving and its final sync
// marks the node left; a new agent process, registering with the task
// running and without saying it leaves, ends the leave at once (where
// the master used to keep it until the agent's first sync, and a new
// agent that never synced left the node draining); an agent that is
// never heard again is lost at the agent timeout. The node history and the what-if export drain the node from
// the goodbye (at 10s) to the leave's end, as the master did.
func TestAgentLeaveMasterRestart(t *testing.T) {
	drain := scenario.Event{At: 10, Kind: scenario.EventDrain, Node: "n1"}
	tests := []struct {
		name string
		// end is what the agent does after the restart, at 25s; it
		// returns whether the task submitted after the restart may run
		// on n1 since.
		end func(h *harness, a *mastertest.Agent, train agent.TaskID) bool
		// history is the node history, events the export's node events.
		history []string
		events  []scenario.Event
	}{
		{"the leaving agent registers again, leaving, and leaves", func(h *harness, a *mastertest.Agent, train agent.TaskID) bool {
			a.Master = h.srv.URL
			if _, err := a.Rejoin(h.ctx); err != nil {
				h.t.Fatal(err)
			}
			checkLeaving(h, "after the leaving agent registered again", true)
			h.step()
			h.sync(a) // leaving, its task still stopping
			checkLeaving(h, "after the leaving agent's sync", true)
			h.clock.Advance(5 * time.Second)
			a.Exit(train, agent.OutcomePreempted, 0)
			h.sync(a) // the final sync
			if n := h.node("n1"); n.State != string(store.NodeLeft) || n.Leaving {
				h.t.Fatalf("node %s (leaving %v) after the final sync, want left, no longer leaving", n.State, n.Leaving)
			}
			return false
		}, []string{"->up", "up->leaving", "up->left"},
			[]scenario.Event{drain, {At: 30, Kind: scenario.EventNodeDown, Node: "n1"}}},
		{"a new agent process registers, not leaving", func(h *harness, a *mastertest.Agent, _ agent.TaskID) bool {
			a.Master = h.srv.URL
			if _, err := a.Register(h.ctx); err != nil {
				h.t.Fatal(err)
			}
			// The registration says it is not the leaving agent.
			checkLeaving(h, "after a new agent registered, before its first sync", false)
			h.step()
			h.sync(a)
			checkLeaving(h, "after the new agent's first sync", false)
			return true
		}, []string{"->up", "up->leaving", "leaving->up"},
			[]scenario.Event{drain, {At: 25, Kind: scenario.EventResume, Node: "n1"}}},
		{"the agent is never heard again", func(h *harness, a *mastertest.Agent, _ agent.TaskID) bool {
			h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			h.m.Tick(h.ctx)
			if n := h.node("n1"); n.State != string(store.NodeLost) || n.Leaving {
				h.t.Fatalf("node %s (leaving %v) past the agent timeout, want lost, not leaving", n.State, n.Leaving)
			}
			a.Restart()
			a.Master = h.srv.URL
			if _, err := a.Register(h.ctx); err != nil {
				h.t.Fatal(err)
			}
			checkLeaving(h, "after it registered again", false)
			return true
		}, []string{"->up", "up->leaving", "up->lost", "lost->up"},
			[]scenario.Event{drain, {At: 57, Kind: scenario.EventNodeDown, Node: "n1"},
				{At: 57, Kind: scenario.EventNodeUp, Node: "n1"}, {At: 57, Kind: scenario.EventResume, Node: "n1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 2)
			t0 := h.clock.Now()
			id := h.submit(jobSpec("train", 1, `, "preemptible": true`))
			h.step()
			h.sync(a, a)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task %s before the leave, want running", got)
			}
			h.clock.Advance(10 * time.Second)
			a.Leave()
			h.sync(a) // the goodbye: the task still runs, n1 has a GPU free
			h.clock.Advance(10 * time.Second)

			h.start()
			checkLeaving(h, "after the master's restart", true)
			late := h.submit(jobSpec("late", 1, ""))
			h.step()
			if got := h.taskState(late, 0); got != store.TaskQueued {
				t.Fatalf("a job submitted after the restart is %s before the agent's next sync, want queued: n1 is leaving", got)
			}
			h.clock.Advance(5 * time.Second)
			runs := tt.end(h, a, tid(id, 0, 1))
			h.step()
			h.sync(a, a)
			want := store.TaskQueued
			if runs {
				want = store.TaskRunning
			}
			if got := h.taskState(late, 0); got != want {
				t.Fatalf("the late job is %s once the leave went on or ended, want %s", got, want)
			}
			if !runs && slices.ContainsFunc(a.Started(), func(s agent.TaskSpec) bool { return s.JobID == fmt.Sprint(late) }) {
				t.Fatalf("the leaving agent got the late job's start: %+v", a.Started())
			}

			got := h.nodeHistory(t)
			if !slices.Equal(got, tt.history) {
				t.Fatalf("node history %q, want %q", got, tt.history)
			}
			h.clock.Advance(time.Minute)
			sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
			checkNodeEvents(t, sc, body, tt.events)
		})
	}
}

// checkLeaving checks that the API lists n1 up, and leaving or not.
func checkLeaving(h *harness, when string, leaving bool) {
	h.t.Helper()
	if n := h.node("n1"); n.State != string(store.NodeUp) || n.Leaving != leaving {
		h.t.Fatalf("node n1 %s (leaving %v) %s, want up, leaving %v", n.State, n.Leaving, when, leaving)
	}
}
