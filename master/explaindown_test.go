package master

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestDownNodeReason (trial F14): a job within its project's quota that
// waits because a node of its quota pool is lost is told so, naming the
// node, in the job list and the explanation, not that it would take its
// project past its quota; a job past its quota keeps the quota reason.
func TestDownNodeReason(t *testing.T) {
	for _, tt := range []struct {
		name    string
		project string
		says    string
		not     string
	}{
		{"within quota", "a", "within its project's quota (0 of 2 held), but nodes of pool default are down: n2 (lost at 12:00:32, no contact since 12:00:00)",
			"past its quota"},
		{"past quota", "b", "past its quota or fair share", "are down"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: quota}\ndefault_project: a\nprojects:\n  - {name: a, quota: 2}\n  - {name: b, quota: 2}\n")))
			n1, n2 := h.agent("n1", 2), h.agent("n2", 2)
			h.submit(`{"name": "hold", "project": "b", "entrypoint": "e", "resources": {"slots": 2, "preemptible": true}}`)
			h.step()
			h.sync(n1, n2, n1, n2)
			h.clock.Advance(DefaultAgentTimeout / 2)
			h.sync(n1)
			h.clock.Advance(DefaultAgentTimeout/2 + 2*time.Second)
			h.sync(n1)
			h.m.Tick(h.ctx)
			if h.m.nodes["n2"].up() || !h.m.nodes["n1"].up() {
				t.Fatalf("n1 up %v, n2 up %v: want only n2 lost", h.m.nodes["n1"].up(), h.m.nodes["n2"].up())
			}
			id := h.submit(`{"name": "wait", "project": "` + tt.project + `", "entrypoint": "e", "resources": {"slots": 2, "preemptible": true}}`)
			h.step()
			var list []api.Job
			if code := h.do("GET", "/api/v1/jobs", nil, &list); code != 200 {
				t.Fatalf("list: %d", code)
			}
			var reason string
			for _, j := range list {
				if j.ID == id && j.Pending != nil {
					reason = j.Pending.Message
				}
			}
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			for what, s := range map[string]string{"list": reason, "explain": x.Summary} {
				if !strings.Contains(s, tt.says) || strings.Contains(s, tt.not) {
					t.Errorf("%s: %q\nwant %q, not %q", what, s, tt.says, tt.not)
				}
			}
		})
	}
}
