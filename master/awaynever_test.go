package master

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/sched"
)

// TestAwayNodeCounted (trial 2026-11-29a A11's leftovers): a job judged
// with its pool's lost node counts the node's slots. Too big even with
// it back, the job list and explain say the pool's slots add up to the
// sum with the node back, name the node and say plainly that its return
// would not let the job start; a job whose GPU type only the lost node
// has waits for it (nodes_down), not "can never run".
func TestAwayNodeCounted(t *testing.T) {
	for _, tt := range []struct {
		name  string
		slots int
		gpu   string // the job's GPU type; n1 is h100, n4 l40s
		code  string
		list  []string // what the job list's message says
		never []string // what explain's never says; nil: it is not never
	}{
		{name: "too big even with the lost node back", slots: 16, code: sched.ReasonNoNodes.String(),
			list: []string{"a task needs 16 slots, but the slots of pool default add up to 12 with its node n1 (8 GPUs, lost since 12:00:32) back",
				"it can never run in this pool, n1 back or not"},
			never: []string{"can never run: a task needs 16 slots, but the slots of pool default add up to 12 with its node n1 (8 GPUs, lost since 12:00:32) back",
				"n1's return would not let it start"}},
		{name: "too big for the lost node of its GPU type", slots: 12, gpu: "h100", code: sched.ReasonGPUType.String(),
			list:  []string{"a task needs 12 slots, but the h100 slots of pool default add up to 8 with its node n1 (8 GPUs, lost since 12:00:32) back"},
			never: []string{"add up to 8 with its node n1"}},
		{name: "its GPU type only on the lost node", slots: 8, gpu: "h100", code: CodeNodesDown,
			list: []string{"no node of pool default up now has GPU type h100",
				"its node n1 (8 GPUs) is lost since 12:00:32", "it waits for n1 to come back"}},
		{name: "its GPU type only on the lost node, a smaller task", slots: 2, gpu: "h100", code: CodeNodesDown,
			list: []string{"it waits for n1 to come back"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			n1 := h.agent("n1", 8) // h100
			n4 := &mastertest.Agent{Master: h.srv.URL, Name: "n4", GPUs: 4, GPUType: "l40s", Token: h.tokenFor("/api/v1/agents/n4", nil)}
			if _, err := n4.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(n1, n4)
			loseN1(h, n1, n4)
			extra := ""
			if tt.gpu != "" {
				extra = `, "gpu": "` + tt.gpu + `"`
			}
			var reply api.SubmitReply
			if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", jobSpec("big", tt.slots, extra), &reply); code != http.StatusCreated {
				t.Fatalf("submit: %d", code)
			}
			h.step()
			p := h.job(reply.ID).Pending
			if p == nil || p.Reason != tt.code {
				t.Fatalf("job list's pending %+v, want code %s", p, tt.code)
			}
			for _, w := range tt.list {
				if !strings.Contains(p.Message, w) {
					t.Errorf("job list's message %q\nwant %q", p.Message, w)
				}
			}
			if strings.Contains(p.Message, "hold together is 4") || strings.Contains(p.Message, "add up to 4") {
				t.Errorf("job list's message %q counts only the node up", p.Message)
			}
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(reply.ID, 10)+"/explain", nil, &x); code != http.StatusOK {
				t.Fatalf("explain: %d", code)
			}
			if x.WouldStart == nil || (x.WouldStart.Never != "") != (tt.never != nil) {
				t.Fatalf("would start %+v, want never %v", x.WouldStart, tt.never != nil)
			}
			for _, w := range tt.never {
				if !strings.Contains(x.WouldStart.Never, w) || !strings.Contains(x.Summary, w) {
					t.Errorf("explain's never %q, summary %q\nwant %q in both", x.WouldStart.Never, x.Summary, w)
				}
			}
			if tt.never == nil && (strings.Contains(x.Summary, "can never run") || !strings.Contains(x.WouldStart.Message, "it waits for n1 to come back (")) {
				t.Errorf("summary %q, would start %q: want it to wait for n1", x.Summary, x.WouldStart.Message)
			}
			t.Logf("list: %s: %s\nsummary: %s", p.Reason, p.Message, x.Summary)
		})
	}
}
