package master

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/sim"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/storetest"
)

// TestReportsAfterStoreOutage (trial 2026-11-29b, B6): h holds n2 and
// the preemptible a and b hold n1; h ends, and the store fails. n1's
// fence stops a and b meanwhile; their exit reports wait on the node
// for their output, and reach the master one request each, a few
// milliseconds apart, once the store is back. The pass that a's end
// kicks waits for b's, which n1's sync said was coming (api.Sync.Exited):
// both taken, a goes back on n2, where it fits, and b on n1, as in the
// replay (allot history check), which takes the second's ends before
// its starts. Before, a went back on n1 beside b's old attempt, b on
// n1 too, and the check failed on it. A sync that reports both exits
// leaves nothing on its way (its pass places both at once), and a report
// that does not come holds the passes reportSettle at most.
func TestReportsAfterStoreOutage(t *testing.T) {
	cases := []struct {
		name string
		// oneSync says both exits come in one sync: nothing is on its
		// way, and the pass runs at once.
		oneSync bool
		// late says b's report does not come within reportSettle.
		late bool
	}{
		{name: "one request each"},
		{name: "in one sync", oneSync: true},
		{name: "a report that does not come", late: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, t0, n1, ids := outageWithHeldExits(t)
			a, b := tid(ids[1], 0, 1), tid(ids[2], 0, 1)
			n1.Exit(a, agent.OutcomePreempted, 0)
			if c.oneSync {
				n1.Exit(b, agent.OutcomePreempted, 0)
			}
			h.sync(n1)
			h.step()
			want := map[bool]store.TaskState{false: store.TaskQueued, true: store.TaskStarting}[c.oneSync]
			if got := h.taskState(ids[1], 0); got != want {
				t.Fatalf("a is %s after the pass its end kicked, want %s", got, want)
			}
			if c.late {
				h.clock.Advance(reportSettle)
				h.step()
				if got := h.taskState(ids[1], 0); got != store.TaskStarting {
					t.Fatalf("a is %s once reportSettle is over, want starting (placed)", got)
				}
				return
			}
			if !c.oneSync {
				h.clock.Advance(2 * time.Millisecond)
				n1.Exit(b, agent.OutcomePreempted, 0)
				h.sync(n1)
				h.step()
			}
			h.sync(n1)
			h.clock.Advance(time.Minute)
			live := checkOutageReplay(t, h, t0)
			for _, want := range []string{
				fmt.Sprintf("start j%d-a task=0 attempt=2 nodes=n2:4", ids[1]),
				fmt.Sprintf("start j%d-b task=0 attempt=2 nodes=n1:4", ids[2]),
			} {
				if !strings.Contains(live, want) {
					t.Errorf("live decisions lack %q:\n%s", want, live)
				}
			}
		})
	}
}

// outageWithHeldExits runs the case up to the store's return: h (4
// GPUs, n2) ended, a and b (4 each, preemptible) stopped on n1 by its
// fence in the outage, their exit reports held. It returns the harness,
// when the case began, n1's agent and the jobs' ids (h, a, b).
func outageWithHeldExits(t *testing.T) (*harness, time.Time, *mastertest.Agent, []int64) {
	var flaky *flakyStore
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")),
		func(o *Options) { flaky = &flakyStore{&storetest.Flaky{Store: o.Store}}; o.Store = flaky })
	h.m.health.minGap = 0
	n1, n2 := h.agent("n1", 8), h.agent("n2", 4)
	t0 := h.clock.Now()
	var ids []int64
	for _, j := range []struct {
		name  string
		extra string
	}{{"h", `, "preemptible": false`}, {"a", `, "preemptible": true`}, {"b", `, "preemptible": true`}} {
		ids = append(ids, h.submit(jobSpec(j.name, 4, j.extra)))
		h.step()
		h.sync(n1, n2, n1, n2)
	}
	h.clock.Advance(10 * time.Second)
	n2.Exit(tid(ids[0], 0, 1), agent.OutcomeCompleted, 0)
	h.sync(n2)
	h.step()
	h.sync(n1, n2)
	h.clock.Advance(10 * time.Second)
	flaky.Down.Store(true)
	h.m.Tick(h.ctx)
	h.clock.Advance(21 * time.Second)
	for _, id := range ids[1:] {
		if !n1.HoldExit(tid(id, 0, 1)) {
			t.Fatalf("job %d does not run on n1", id)
		}
	}
	if _, err := n1.Sync(h.ctx, 0); err == nil {
		t.Fatal("a sync went through while the store was down")
	}
	h.clock.Advance(4 * time.Second)
	flaky.Down.Store(false)
	h.m.Tick(h.ctx)
	if h.m.health.isDown() {
		t.Fatal("the store is back but the master says it is down")
	}
	return h, t0, n1, ids
}

// checkOutageReplay compares the live decisions since t0 with the
// replay of the window's export, as allot history check does, checks
// that the export's note on the outage says how the master took the
// reports after it, and returns the live decisions.
func checkOutageReplay(t *testing.T, h *harness, t0 time.Time) string {
	t.Helper()
	q := window(t0, h.clock.Now())
	sc, body := exportScenario(t, h, q)
	var live api.DecisionLog
	h.do("GET", "/api/v1/history/decisions"+q, nil, &live)
	replayed, err := sim.ReplayDecisions(sc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := decisionlog.Diff(logText(live.Lines), decisionlog.Format(replayed), 3); diff != "" {
		t.Errorf("live (-) and replayed (+) decisions differ:\n%s\nscenario:\n%s", diff, body)
	}
	if want := "the master waits up to 2s after an outage for the reports the agents said were on their way"; !strings.Contains(body, want) {
		t.Errorf("the export's outage note lacks %q:\n%s", want, body)
	}
	return logText(live.Lines)
}

// TestEndsOfTwoNodesAfterStoreOutage: a holds n2, b and h n1 (binpack),
// and x waits for 4 GPUs. In the store outage a and h complete; n2's and
// n1's syncs carry their exits, and the store refuses them. Once it is
// back, n2's sync comes first: its pass waits for h's end, which n1's
// refused sync reported, and x goes where the replay, with both ends,
// puts it (n1, the first of two equal fits), not on n2, the only room
// the first end made.
func TestEndsOfTwoNodesAfterStoreOutage(t *testing.T) {
	var flaky *flakyStore
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")),
		func(o *Options) { flaky = &flakyStore{&storetest.Flaky{Store: o.Store}}; o.Store = flaky })
	h.m.health.minGap = 0
	n1, n2 := h.agent("n1", 8), h.agent("n2", 4)
	t0 := h.clock.Now()
	var ids []int64
	for _, name := range []string{"a", "b", "h", "x"} {
		ids = append(ids, h.submit(jobSpec(name, 4, "")))
		h.step()
		h.sync(n1, n2, n1, n2)
	}
	if on := n2.Running(); len(on) != 1 || on[0] != tid(ids[0], 0, 1) {
		t.Fatalf("n2 runs %v, want a's attempt (binpack)", on)
	}
	if got := h.taskState(ids[3], 0); got != "queued" {
		t.Fatalf("x is %s before the outage, want queued", got)
	}
	h.clock.Advance(10 * time.Second)
	flaky.Down.Store(true)
	h.m.Tick(h.ctx)
	h.clock.Advance(5 * time.Second)
	n2.Exit(tid(ids[0], 0, 1), agent.OutcomeCompleted, 0)
	n1.Exit(tid(ids[2], 0, 1), agent.OutcomeCompleted, 0)
	for _, ag := range []*mastertest.Agent{n2, n1} {
		if _, err := ag.Sync(h.ctx, 0); err == nil {
			t.Fatalf("%s's sync went through while the store was down", ag.Name)
		}
	}
	h.clock.Advance(5 * time.Second)
	flaky.Down.Store(false)
	h.m.Tick(h.ctx)
	h.sync(n2)
	h.step()
	if got := h.taskState(ids[3], 0); got != "queued" {
		t.Fatalf("x is %s while n1's report is on its way, want queued (not placed yet)", got)
	}
	h.clock.Advance(2 * time.Millisecond)
	h.sync(n1)
	h.step()
	h.sync(n1, n2)
	h.clock.Advance(time.Minute)
	live := checkOutageReplay(t, h, t0)
	if want := fmt.Sprintf("start j%d-x task=0 attempt=1 nodes=n1:4", ids[3]); !strings.Contains(live, want) {
		t.Errorf("live decisions lack %q:\n%s", want, live)
	}
}

// TestReportSettleDocs: the docs say how long the master waits for the
// reports after a store outage, reportSettle.
func TestReportSettleDocs(t *testing.T) {
	want := fmt.Sprintf("up to %d s", int(reportSettle/time.Second))
	for _, doc := range []string{"reliability.md", "cli.md"} {
		t.Run(doc, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "docs", doc))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), want) {
				t.Errorf("docs/%s does not say %q (reportSettle is %v)", doc, want, reportSettle)
			}
		})
	}
}
