package master

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// TestAgentLeave: an agent that shuts down says so before it stops its
// tasks (api.Sync.Leaving). The master places nothing more on the node,
// not even the task that the leave's preempted exit requeues; the final
// sync marks the node left at once, not lost at the agent timeout, and
// the task's attempt ends preempted, with nothing lost. The task runs on
// another node, or waits; the node comes back up when its agent
// registers again.
func TestAgentLeave(t *testing.T) {
	tests := []struct {
		name string
		// other is the GPUs of a second node, registered once the task
		// runs on n1; 0: none.
		other int
		// want is where the requeued task runs after the leave: "" waits.
		want string
	}{
		{"requeued task waits", 0, ""},
		{"requeued task goes to another node", 1, "n2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 2)
			id := h.submit(jobSpec("train", 1, `, "preemptible": true`))
			h.step()
			h.sync(a, a)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task %s before the leave, want running", got)
			}
			agents := []*mastertest.Agent{a}
			if tt.other > 0 {
				agents = append(agents, h.agent("n2", tt.other))
			}

			a.Leave()
			h.sync(a) // the leave, before the agent stops its task
			if n := h.node("n1"); n.State != string(store.NodeUp) || !n.Leaving {
				t.Fatalf("node %s (leaving %v) while its agent stops its tasks, want up and leaving", n.State, n.Leaving)
			}
			late := h.submit(jobSpec("late", 1, ""))
			h.step()
			h.sync(agents...)
			if tt.other == 0 && h.taskState(late, 0) != store.TaskQueued {
				t.Fatalf("a job submitted during the leave is %s, want queued: nothing goes to a leaving node", h.taskState(late, 0))
			}
			// Out of the way of the requeued task.
			if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", late), nil, nil); code != http.StatusOK {
				t.Fatalf("kill: %d", code)
			}
			h.sync(agents...)
			h.sync(agents...)

			if !a.Exit(tid(id, 0, 1), agent.OutcomePreempted, 0) {
				t.Fatal("the agent does not run the task")
			}
			h.sync(a) // the final sync: the exit report, nothing running
			if n := h.node("n1"); n.State != string(store.NodeLeft) || n.Leaving {
				t.Fatalf("node %s (leaving %v) after its agent's final sync, want left, no longer leaving", n.State, n.Leaving)
			}
			h.step()
			h.sync(agents...)
			if got := len(a.Started()); got != 1 {
				t.Fatalf("the leaving agent got %d starts, want its first only: %+v", got, a.Started())
			}
			j := h.job(id)
			task := j.TaskList[0]
			if n := len(task.Attempts); tt.want == "" && n != 1 || tt.want != "" && n != 2 {
				t.Fatalf("attempts %+v, want the one on n1 and, with another node, one there", task.Attempts)
			}
			if end := task.Attempts[0].EndState; end != string(store.AttemptPreempted) {
				t.Fatalf("the attempt on the node that left ended %q, want preempted", end)
			}
			// The record says that the node's agent stopped it, not a
			// preemption nobody made (trial 2026-11-29d D15).
			if r := task.Attempts[0].Reason; !strings.Contains(r, "node n1's agent stopped") || strings.HasPrefix(r, "preempted") {
				t.Fatalf("the attempt's reason %q, want it to say that node n1's agent stopped", r)
			}
			checkAgentStoppedEvent(t, h, id)
			checkExplainAgentStopped(t, h, id) // explainagentstop_test.go
			if tt.want != "" && task.Attempts[1].Placement[0].Node != tt.want {
				t.Fatalf("the requeued task went to %+v, want %s", task.Attempts[1].Placement, tt.want)
			}

			// The agent timeout passes: the node stays left, and nothing
			// more happens to the task.
			h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			if tt.other > 0 {
				h.sync(agents[1])
			}
			h.m.Tick(h.ctx)
			if n := h.node("n1"); n.State != string(store.NodeLeft) {
				t.Fatalf("node %s past the agent timeout, want left", n.State)
			}
			if again := h.job(id).TaskList[0]; again.Restarts != task.Restarts || len(again.Attempts) != len(task.Attempts) {
				t.Fatalf("task %+v past the agent timeout, want as it was: %+v", again, task)
			}

			// Back: it takes tasks again.
			if _, err := a.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			if n := h.node("n1"); n.State != string(store.NodeUp) || n.Leaving {
				t.Fatalf("node %s (leaving %v) after it registered again, want up, not leaving", n.State, n.Leaving)
			}
			if tt.other == 0 {
				h.step()
				h.sync(a, a)
				if got := h.taskState(id, 0); got != store.TaskRunning || len(a.Started()) != 2 {
					t.Fatalf("task %s on the node back, with %d starts, want running, 2", got, len(a.Started()))
				}
			}
		})
	}
}

// TestAgentLeaveGang: an agent that stops under --on-exit kill reports
// its part preempted before it leaves (trial n, F13). A one-node task's
// attempt ends preempted at the report. A gang whose other part runs on
// is made preempting at once (persisted, store.CauseAgentStopped), its
// other part gets the preempt with the pool's checkpoint grace, not a
// kill, the node's leave right after loses nothing, and once the other
// part's checkpoint lands the attempt ends preempted and the task waits
// again, whether its job is preemptible or not, and across a restart of
// the master while the other part checkpoints (agentStops).
func TestAgentLeaveGang(t *testing.T) {
	tests := []struct {
		name    string
		slots   int    // 4: a gang over n1 and n2; 2: n1 alone
		extra   string // the job's extra fields
		restart bool   // the master restarts once n1 left
	}{
		{"one-node task", 2, `, "preemptible": true`, false},
		{"gang", 4, `, "preemptible": true`, false},
		{"gang not preemptible", 4, "", false},
		{"gang, the master restarted meanwhile", 4, `, "preemptible": true`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a, b := h.agent("n1", 2), h.agent("n2", 2)
			b.HoldPreempt = true // its rank checkpoints until Exit
			id := h.submit(jobSpec("gang", tt.slots, tt.extra))
			h.step()
			h.sync(a, b)
			h.sync(a, b)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task %s, want running", got)
			}
			gang := tt.slots > 2
			a.Leave()
			h.sync(a)
			a.Exit(tid(id, 0, 1), agent.OutcomePreempted, 0)
			h.sync(a) // the final sync: the report, then the leave
			if n := h.node("n1"); n.State != string(store.NodeLeft) {
				t.Fatalf("node %s after its agent's final sync, want left", n.State)
			}
			if !gang {
				checkLeaveEnd(t, h, id, "")
				checkExplainAgentStopped(t, h, id) // explainagentstop_test.go
				return
			}
			if tt.restart {
				h.start()
				b.Master = h.srv.URL
				if _, err := b.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
				h.sync(b)
				h.m.Tick(h.ctx) // the left node's attempts (checkLostNodes)
			}
			if got := h.taskState(id, 0); got != store.TaskPreempting {
				t.Fatalf("gang %s after n1 left, want preempting while its part on n2 checkpoints", got)
			}
			evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id, To: string(store.TaskPreempting)})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 1 || evs[0].Cause != store.CauseAgentStopped {
				t.Fatalf("transitions to preempting %+v, want one, cause %s", evs, store.CauseAgentStopped)
			}
			h.sync(b)
			var stops []api.Command
			for _, c := range b.Commands() {
				if c.Task == tid(id, 0, 1) && c.Type != api.CommandStart {
					stops = append(stops, c)
				}
			}
			if tt.restart && len(stops) > 0 {
				stops = stops[len(stops)-1:] // the restarted master's, again
			}
			if len(stops) != 1 || stops[0].Type != api.CommandPreempt || stops[0].GraceS != int64(DefaultGrace/time.Second) {
				t.Fatalf("n2 got %+v for the gang, want one preempt with the grace of %s", stops, DefaultGrace)
			}
			b.Exit(tid(id, 0, 1), agent.OutcomePreempted, 0)
			h.sync(b)
			checkLeaveEnd(t, h, id, "n1's agent stopped")
			checkExplainAgentStopped(t, h, id) // explainagentstop_test.go
		})
	}
}

// checkLeaveEnd checks that job id's task waits again, its first
// attempt ended preempted, with reason saying want.
func checkLeaveEnd(t *testing.T, h *harness, id int64, want string) {
	t.Helper()
	if got := h.taskState(id, 0); got != store.TaskQueued {
		t.Fatalf("task %s after its attempt ended, want queued", got)
	}
	att := h.job(id).TaskList[0].Attempts[0]
	if att.EndState != string(store.AttemptPreempted) || !strings.Contains(att.Reason, want) {
		t.Fatalf("the attempt ended %q (%s), want preempted (%s)", att.EndState, att.Reason, want)
	}
}

// TestHistoryScenarioNodeLeave: the what-if export writes a node's leave
// as a loss, node_down, and its return as node_up: the node was gone in
// between, its attempts having ended as its agent reported.
func TestHistoryScenarioNodeLeave(t *testing.T) {
	h := newHarness(t)
	a, _ := h.agent("n1", 2), h.agent("n2", 2)
	t0 := h.clock.Now()
	h.clock.Advance(40 * time.Second)
	a.Leave()
	h.sync(a) // runs nothing: the goodbye is final at once
	if n := h.node("n1"); n.State != string(store.NodeLeft) {
		t.Fatalf("node %s, want left", n.State)
	}
	h.clock.Advance(20 * time.Second)
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Minute)
	sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
	want := []scenario.Event{{At: 40, Kind: scenario.EventNodeDown, Node: "n1"}, {At: 60, Kind: scenario.EventNodeUp, Node: "n1"}}
	checkNodeEvents(t, sc, body, want)
}

// TestAgentRegistersWhileLeaving: a registration says whether its agent
// leaves (api.Register.Leaving). One that does not, while the node
// leaves (a new agent process that found its tasks running), ends the
// leave: the node takes tasks again, and the node history records the
// leave's end (leaving → up, store.NodeStayed) for the what-if export. A
// registration after the node left records its return only, and one
// with no leave nothing. The leaving agent registering again, still
// leaving (Rejoin, as agentd does when its sync gets 404), keeps the
// leave, recording nothing; after its node was lost, or where the master
// never heard its goodbye, it starts the leave again, recorded as the
// first leaving sync records it (up → leaving): the master places
// nothing on the node whose agent shuts down, where it used to take the
// agent for one that takes work until its next leaving sync.
func TestAgentRegistersWhileLeaving(t *testing.T) {
	tests := []struct {
		name string
		// running: the agent runs a task as it leaves, so its goodbye is
		// not final; leave: it says goodbye at all (a sync with Leaving);
		// lost: the agent timeout passes before it registers again;
		// rejoin: it registers as the leaving agent (Rejoin), not as a
		// new process (Register).
		running, leave, lost, rejoin bool
		want                         []string // the node history after the registration
		leaving                      bool     // the node's leave after it
	}{
		{"while leaving", true, true, false, false, []string{"->up", "up->leaving", "leaving->up"}, false},
		{"after it left", false, true, false, false, []string{"->up", "up->left", "left->up"}, false},
		{"with no leave", true, false, false, false, []string{"->up"}, false},
		{"while leaving, still leaving", true, true, false, true, []string{"->up", "up->leaving"}, true},
		{"after it was lost, still leaving", true, true, true, true,
			[]string{"->up", "up->leaving", "up->lost", "lost->up", "up->leaving"}, true},
		{"with no goodbye heard, leaving", true, false, false, true, []string{"->up", "up->leaving"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 2)
			if tt.running {
				h.submit(jobSpec("train", 1, ""))
				h.step()
				h.sync(a, a)
			}
			if tt.leave || tt.rejoin {
				a.Leave()
			}
			if tt.leave {
				h.sync(a)
			}
			if tt.lost {
				h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
				h.m.Tick(h.ctx)
				if n := h.node("n1"); n.State != string(store.NodeLost) {
					t.Fatalf("node %s past the agent timeout, want lost", n.State)
				}
			}
			register := a.Register
			if tt.rejoin {
				register = a.Rejoin
			}
			if _, err := register(h.ctx); err != nil {
				t.Fatal(err)
			}
			if n := h.node("n1"); n.State != string(store.NodeUp) || n.Leaving != tt.leaving {
				t.Fatalf("node %s (leaving %v) after it registered again, want up, leaving %v", n.State, n.Leaving, tt.leaving)
			}
			got := h.nodeHistory(t)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("node history %q, want %q", got, tt.want)
			}
			if tt.running {
				late := h.submit(jobSpec("late", 1, ""))
				h.step()
				h.sync(a, a)
				want := store.TaskRunning
				if tt.leaving {
					want = store.TaskQueued
				}
				if got := h.taskState(late, 0); got != want {
					t.Fatalf("a job submitted after the registration is %s, want %s", got, want)
				}
			}
		})
	}
}

// nodeHistory is the node history's transitions, "from->to", in order.
func (h *harness) nodeHistory(t *testing.T) []string {
	t.Helper()
	evs, err := h.st.NodeEvents(h.ctx, store.NodeEventFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprintf("%s->%s", e.From, e.To))
	}
	return got
}

// checkAgentStoppedEvent checks that job id's task 0 went from running
// to preempted with the cause agent_stopped, its reason naming n1's
// agent.
func checkAgentStoppedEvent(t *testing.T, h *harness, id int64) {
	t.Helper()
	var evs api.JobEvents
	if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/events", id), nil, &evs); code != http.StatusOK {
		t.Fatalf("events: %d", code)
	}
	ended, requeued := false, false
	for _, e := range evs.Events {
		switch {
		case e.Task != nil && e.From == string(store.TaskRunning) && e.To == string(store.TaskPreempted):
			if e.Cause != string(store.CauseAgentStopped) || !strings.Contains(e.Reason, "n1's agent stopped") {
				t.Fatalf("running→preempted event %+v, want cause %s and a reason naming n1's agent", e, store.CauseAgentStopped)
			}
			ended = true
		case e.Task != nil && e.From == string(store.TaskPreempted) && e.To == string(store.TaskQueued):
			if e.Reason != requeuedAgentStopped {
				t.Fatalf("preempted→queued event %+v, want the reason %q", e, requeuedAgentStopped)
			}
			requeued = true
		case e.Task == nil && e.To == string(store.JobQueued) && strings.Contains(e.Reason, "preempted"):
			t.Fatalf("job event %+v: no preemption was made", e)
		}
	}
	if !ended || !requeued {
		t.Fatalf("want a running→preempted and a preempted→queued event in %+v", evs)
	}
}
