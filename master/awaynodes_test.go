package master

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// TestAwayNodeWait (trial 2026-11-29a A11): a job that only a node of
// its pool that is lost or left could hold is told so, naming the node
// and since when, with code nodes_down, in the job list and explain,
// not that it can never run; allot pools counts the node apart
// ("1 (+1 lost)"); and the node back, the job starts. A job too big even
// with the node back (its slots counted: awaynever_test.go), or one that
// only a deleted node could hold, can never run.
func TestAwayNodeWait(t *testing.T) {
	for _, tt := range []struct {
		name string
		// away takes n1 out of the pool: lost, left or deleted.
		away  func(h *harness, n1, n4 *mastertest.Agent)
		slots int
		// code, says and pools are what the job list, explain and
		// allot pools say while n1 is away.
		code  string
		says  string
		never bool
		lost  int
		left  int
		// back: n1's agent registers again and the job starts there.
		back bool
	}{
		{name: "lost", away: loseN1, slots: 8, code: CodeNodesDown,
			says: "no node of pool default up now can hold a task of 8 slots (the nodes up hold 4 together); its node n1 (8 GPUs) is lost since 12:00:32 (no word from its agent since 12:00:00): it waits for n1 to come back, or for another node that can hold its task to join",
			lost: 1, back: true},
		// B17: its last word is its sync 10 s after its registration,
		// not the registration.
		{name: "lost after a sync", away: func(h *harness, n1, n4 *mastertest.Agent) {
			h.clock.Advance(10 * time.Second)
			h.sync(n1, n4)
			loseN1(h, n1, n4)
		}, slots: 8, code: CodeNodesDown,
			says: "its node n1 (8 GPUs) is lost since 12:00:42 (no word from its agent since 12:00:10)",
			lost: 1, back: true},
		{name: "left", away: func(h *harness, n1, _ *mastertest.Agent) {
			n1.Leave()
			h.sync(n1) // runs nothing: its final sync
		}, slots: 8, code: CodeNodesDown,
			says: "its node n1 (8 GPUs) left at 12:00:00 (its agent shut down): it waits for n1 to come back",
			left: 1, back: true},
		{name: "too big even with it back", away: loseN1, slots: 16, code: sched.ReasonNoNodes.String(),
			says: "the slots of pool default add up to 12 with its node n1 (8 GPUs, lost since 12:00:32) back: it can never run in this pool", never: true, lost: 1},
		{name: "deleted", away: func(h *harness, n1, n4 *mastertest.Agent) {
			loseN1(h, n1, n4)
			if code := h.do("DELETE", "/api/v1/nodes/n1", nil, nil); code != http.StatusOK {
				h.t.Fatalf("delete n1: %d", code)
			}
		}, slots: 8, code: sched.ReasonNoNodes.String(), says: "no node in the pool can hold a task of 8 slots", never: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			n1, n4 := h.agent("n1", 8), h.agent("n4", 4)
			h.sync(n1, n4)
			tt.away(h, n1, n4)
			if h.m.nodes["n4"] == nil || !h.m.nodes["n4"].up() {
				t.Fatal("n4 is not up")
			}
			// A job no node up could hold: allow_infeasible, as the
			// submit-time check counts a lost node but not a deleted one.
			var reply api.SubmitReply
			if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", jobSpec("big", tt.slots, ""), &reply); code != http.StatusCreated {
				t.Fatalf("submit: %d", code)
			}
			id := reply.ID
			h.step()

			p := h.job(id).Pending
			if p == nil || p.Reason != tt.code || !strings.Contains(p.Message, tt.says) {
				t.Errorf("job list's pending %+v\nwant code %s, saying %q", p, tt.code, tt.says)
			}
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != http.StatusOK {
				t.Fatalf("explain: %d", code)
			}
			if x.WouldStart == nil || (x.WouldStart.Never != "") != tt.never {
				t.Fatalf("would start %+v, want never %v", x.WouldStart, tt.never)
			}
			if never := strings.Contains(x.Summary, "can never run"); never != tt.never {
				t.Errorf("summary %q: says never %v, want %v", x.Summary, never, tt.never)
			}
			if !tt.never && !strings.Contains(x.WouldStart.Message, "it waits for n1 to come back (") {
				t.Errorf("would start %q, want it to wait for n1", x.WouldStart.Message)
			}
			// D14 (trial 2026-11-29d): the summary says the wait once, not
			// the pending message and then the counterfactual again.
			if n := strings.Count(x.Summary, "to come back"); !tt.never && n != 1 {
				t.Errorf("summary %q: says it waits for n1 %d times, want once", x.Summary, n)
			}
			t.Logf("list: %s: %s\nsummary: %s\nwould start: %s", p.Reason, p.Message, x.Summary, x.WouldStart.Message)
			var pools []api.Pool
			if code := h.do("GET", "/api/v1/pools", nil, &pools); code != http.StatusOK || len(pools) != 1 {
				t.Fatalf("pools: %d, %+v", code, pools)
			}
			if pl := pools[0]; pl.Nodes != 1 || pl.Slots != 4 || pl.LostNodes != tt.lost || pl.LeftNodes != tt.left {
				t.Errorf("pool %+v, want 1 node up of 4 slots, %d lost, %d left", pl, tt.lost, tt.left)
			}
			if !tt.back {
				return
			}
			if _, err := n1.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(n1, n4)
			h.step()
			h.sync(n1, n4)
			h.sync(n1) // the start's ack
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Errorf("n1 back: task %s, want running", got)
			}
			if p := h.job(id).Pending; p != nil {
				t.Errorf("n1 back: still pending %+v", p)
			}
		})
	}
}

// loseN1 silences n1's agent past the agent timeout while n4's syncs.
func loseN1(h *harness, n1, n4 *mastertest.Agent) {
	h.t.Helper()
	h.clock.Advance(DefaultAgentTimeout / 2)
	h.sync(n4)
	h.clock.Advance(DefaultAgentTimeout/2 + 2*time.Second)
	h.sync(n4)
	h.m.Tick(h.ctx)
	if n := h.m.nodes["n1"]; n == nil || n.up() {
		h.t.Fatal("n1 is not lost")
	}
}

// TestAwayPhrases: the nodes a job waits for are named with their GPUs
// and since when, three, then a count; one lost before the master
// started says so.
func TestAwayPhrases(t *testing.T) {
	at := time.Date(2026, 11, 29, 1, 37, 5, 0, time.UTC)
	node := func(name string, state store.NodeState, since time.Time) awayNode {
		return awayNode{name: name, state: state, since: since, heard: at.Add(-time.Minute), node: sched.Node{Name: name, Slots: 8}}
	}
	for _, tt := range []struct {
		name         string
		away         []awayNode
		phrase, back string
	}{
		{"one lost", []awayNode{node("n1", store.NodeLost, at)},
			"its node n1 (8 GPUs) is lost since 01:37:05 (no word from its agent since 01:36:05)", "n1 to come back"},
		{"lost before the master started", []awayNode{node("n1", store.NodeLost, time.Time{})},
			"its node n1 (8 GPUs) is lost since before the master started (no word from its agent since 01:36:05)", "n1 to come back"},
		{"lost and left", []awayNode{node("n1", store.NodeLost, at), node("n2", store.NodeLeft, at)},
			"its nodes n1 (8 GPUs, lost since 01:37:05) and n2 (8 GPUs, left at 01:37:05) are not up", "nodes n1 and n2 to come back"},
		{"five", []awayNode{node("a", store.NodeLost, at), node("b", store.NodeLost, at), node("c", store.NodeLost, at),
			node("d", store.NodeLost, at), node("e", store.NodeLost, at)},
			"its nodes a (8 GPUs, lost since 01:37:05), b (8 GPUs, lost since 01:37:05), c (8 GPUs, lost since 01:37:05) and 2 more are not up",
			"nodes a, b, c and 2 more to come back"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := awayPhrase(tt.away); got != tt.phrase {
				t.Errorf("awayPhrase = %q\nwant %q", got, tt.phrase)
			}
			if got := returnPhrase(tt.away); got != tt.back {
				t.Errorf("returnPhrase = %q, want %q", got, tt.back)
			}
		})
	}
}
