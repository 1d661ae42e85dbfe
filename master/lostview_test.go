package master

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// TestLostNodeShownOnJob: while a task is held on a lost node within
// lost_node_grace, the job stays running, but its reason and the task's
// say which node is lost since when and that the task fails at the end
// of the grace unless the node returns, in the job list, the job's view
// and its explanation; once the node is back they say so no more.
func TestLostNodeShownOnJob(t *testing.T) {
	lost := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).Add(DefaultAgentTimeout + 2*time.Second)
	want := func(since time.Time) string {
		return fmt.Sprintf("node n1 lost since %s: the task fails at %s unless the node returns (lost_node_grace %s)",
			since.Format("2006-01-02 15:04:05 UTC"), since.Add(config.DefaultLostNodeGrace).Format("2006-01-02 15:04:05 UTC"), "5m")
	}
	tests := []struct {
		name    string
		back    bool // the node's agent registers again
		restart bool // the master restarts: the grace still counts from the loss (restoreLosses)
		want    string
	}{
		{"lost", false, false, want(lost)},
		{"back", true, false, ""},
		{"lost before a restart", false, true, want(lost)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, a, id := lostWithTask(t)
			h.clock.Advance(time.Minute)
			if tt.restart {
				h.start()
				h.m.Tick(h.ctx)
			}
			if tt.back {
				if _, err := a.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
				h.sync(a)
			}
			j := h.job(id)
			var list []api.Job
			if code := h.do("GET", "/api/v1/jobs", nil, &list); code != 200 || len(list) != 1 {
				t.Fatalf("list: %d, %d jobs", code, len(list))
			}
			var x api.Explanation
			if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if j.State != "running" {
				t.Fatalf("job %s, want running", j.State)
			}
			if tt.want == "" {
				if strings.Contains(j.Reason+list[0].Reason+j.TaskList[0].Reason+x.Summary, "lost") {
					t.Fatalf("back, still says lost: job %q, list %q, task %q, summary %q",
						j.Reason, list[0].Reason, j.TaskList[0].Reason, x.Summary)
				}
				return
			}
			if j.Reason != tt.want || list[0].Reason != tt.want || j.TaskList[0].Reason != tt.want {
				t.Fatalf("reasons: job %q, list %q, task %q\nwant %q", j.Reason, list[0].Reason, j.TaskList[0].Reason, tt.want)
			}
			if x.NodeLost != tt.want || !strings.Contains(x.Summary, tt.want) {
				t.Fatalf("explanation: node_lost %q, summary %q", x.NodeLost, x.Summary)
			}
		})
	}
}

// TestLostNodeNotes: the words of a held task's and its job's reason, by
// the node's state, when it went, the job's preemptibility and exit
// actions and the task's requeues (by the rule the master ends a lost
// attempt by, lostEnd), and how many of the job's nodes are gone.
func TestLostNodeNotes(t *testing.T) {
	since := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cfg := mustConfig(t, "pools: [{name: default, policy: priority, preemption: true}, {name: capped, policy: priority, preemption: true, max_retries: 2}]\n")
	one := func(retries int32) []taskPart { return []taskPart{{node: "n1", ran: true, retries: retries}} }
	fail := spec.OnPreemptFail
	cases := []struct {
		name        string
		gone        []goneNode
		pool        string
		preemptible bool
		onPreempt   string // the job file's
		open        []taskPart
		want        string
	}{
		{"lost", []goneNode{{"n1", store.NodeLost, since}}, "default", false, "", one(0),
			"node n1 lost since 2026-05-01 12:00:00 UTC: the task fails at 2026-05-01 12:05:00 UTC unless the node returns (lost_node_grace 5m)"},
		{"left", []goneNode{{"n1", store.NodeLeft, since}}, "default", false, "", one(0),
			"node n1 left since 2026-05-01 12:00:00 UTC: the task fails at 2026-05-01 12:05:00 UTC unless the node returns (lost_node_grace 5m)"},
		{"held with exit actions: fails all the same", []goneNode{{"n1", store.NodeLost, since}}, "capped", false, fail, one(5),
			"node n1 lost since 2026-05-01 12:00:00 UTC: the task fails at 2026-05-01 12:05:00 UTC unless the node returns (lost_node_grace 5m)"},
		{"preemptible: requeued", []goneNode{{"n1", store.NodeLost, since}}, "default", true, "", one(0),
			"node n1 lost since 2026-05-01 12:00:00 UTC: the task is requeued at the master's next check unless the node returns first (lost_node_grace 5m)"},
		{"preemptible, on_preempt fail", []goneNode{{"n1", store.NodeLost, since}}, "default", true, fail, one(0),
			"node n1 lost since 2026-05-01 12:00:00 UTC: the task fails (on_preempt: fail) at the master's next check unless the node returns first (lost_node_grace 5m)"},
		{"preemptible, max_retries 2 not reached", []goneNode{{"n1", store.NodeLost, since}}, "capped", true, "", one(1),
			"node n1 lost since 2026-05-01 12:00:00 UTC: the task is requeued at the master's next check unless the node returns first (lost_node_grace 5m)"},
		{"preemptible, max_retries 2 exhausted", []goneNode{{"n1", store.NodeLost, since}}, "capped", true, "", one(2),
			"node n1 lost since 2026-05-01 12:00:00 UTC: the task fails (max_retries 2, requeued 2 times already) at the master's next check unless the node returns first (lost_node_grace 5m)"},
		{"being killed", []goneNode{{"n1", store.NodeLost, since}}, "default", false, "", []taskPart{{node: "n1", ran: true, killing: true}},
			"node n1 lost since 2026-05-01 12:00:00 UTC: the task is killed at the master's next check unless the node returns first (lost_node_grace 5m)"},
		{"never ran", []goneNode{{"n1", store.NodeLost, since}}, "default", false, "", []taskPart{{node: "n1"}},
			"node n1 lost since 2026-05-01 12:00:00 UTC: the task is requeued at the master's next check unless the node returns first (lost_node_grace 5m)"},
		{"before a restart", []goneNode{{"n1", store.NodeLost, time.Time{}}}, "default", false, "", one(0),
			"node n1 lost (since before the master started): the task fails 5m after the master's first check unless the node returns (lost_node_grace 5m)"},
		{"preemptible before a restart", []goneNode{{"n1", store.NodeLost, time.Time{}}}, "default", true, "", one(0),
			"node n1 lost (since before the master started): the task is requeued at the master's first check unless the node returns first (lost_node_grace 5m)"},
		{"several nodes", []goneNode{{"n1", store.NodeLost, since}, {"n2", store.NodeLost, since}, {"n3", store.NodeLeft, since}}, "default", false, "", one(0),
			"node n1 lost since 2026-05-01 12:00:00 UTC: the task fails at 2026-05-01 12:05:00 UTC unless the node returns (lost_node_grace 5m); 2 more nodes of its tasks are gone too"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := &jobRead{rec: store.Job{Pool: tc.pool, Preemptible: tc.preemptible}, open: tc.open, ownOnPreempt: tc.onPreempt}
			if got := lostJobReason(tc.gone, cfg, j); got != tc.want {
				t.Fatalf("reason %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestLostNodeOnlyForOpenParts: a task over two nodes whose part on the
// lost node had already exited, while its other part runs on, is not
// held there: neither it nor its job says the node is lost. The node
// filter still finds the job on that node, as before.
func TestLostNodeOnlyForOpenParts(t *testing.T) {
	tests := []struct {
		name      string
		exitFirst bool // the part on n1 exits before n1 is lost
		lost      bool // the notes say n1 is lost
	}{
		{"part on the lost node still open", false, true},
		{"part on the lost node exited", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a, b := h.agent("n1", 2), h.agent("n2", 2)
			id := h.submit(jobSpec("gang", 4, `, "preemptible": false`))
			h.step()
			h.sync(a, b)
			h.sync(a, b)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("gang %s, want running on both nodes", got)
			}
			if tt.exitFirst {
				a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
				h.sync(a)
			}
			h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
			h.sync(b)
			h.m.Tick(h.ctx)
			if h.m.nodes["n1"].up() {
				t.Fatal("n1 not lost after the agent timeout")
			}
			j := h.job(id)
			if j.State != "running" {
				t.Fatalf("job %s, want running", j.State)
			}
			var x api.Explanation
			if code := h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/explain", id), nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			for what, s := range map[string]string{"job": j.Reason, "task": j.TaskList[0].Reason, "node_lost": x.NodeLost} {
				if got := strings.Contains(s, "node n1 lost since"); got != tt.lost {
					t.Errorf("%s reason %q: says n1 lost %v, want %v", what, s, got, tt.lost)
				}
			}
			var on []api.Job
			if code := h.do("GET", "/api/v1/jobs?node=n1", nil, &on); code != 200 || len(on) != 1 {
				t.Errorf("jobs on n1: %d, %d jobs, want the gang", code, len(on))
			}
		})
	}
}
