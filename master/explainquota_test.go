package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestExplainOverQuota: work that may only run within quota and does not
// fit its project's quota is told so, and, where the pool has slots idle
// for it, that submitted preemptible it could borrow them; not where
// nothing is idle. With no node in the pool, that it can never run leads
// the summary, before the quota.
func TestExplainOverQuota(t *testing.T) {
	const pools = "pools:\n  - {name: default, policy: quota}\ndefault_project: a\nprojects:\n  - {name: a, quota: 0}\n  - {name: b, quota: 2}\n"
	const hint = "preemptible (resources: preemptible: true)"
	tests := []struct {
		name   string
		agents int // slots of the one agent; 0 for none
		busy   bool
		says   []string
		not    []string
	}{
		{"quota 0, idle slots: borrowing is offered", 4, false,
			[]string{"may only run within quota; submitted " + hint + " it could borrow idle slots past its quota (4 idle in the pool)",
				"Its project a holds 0 of its quota of 0 in work that may only run within quota",
				"Submitted " + hint + ", it could borrow the pool's 4 slots idle now past its quota"},
			[]string{"runs only on idle slots"}},
		{"quota 0, no slot idle: no offer", 2, true,
			[]string{"may only run within quota", "Its project a holds 0 of its quota of 0"},
			[]string{hint, "runs only on idle slots"}},
		{"no node in the pool: can never run leads", 0, false,
			[]string{"can never run", "may only run within quota"},
			[]string{hint}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, pools)))
			if tt.agents > 0 {
				n1 := h.agent("n1", tt.agents)
				if tt.busy {
					h.submit(`{"name": "held", "project": "b", "entrypoint": "x", "resources": {"slots": ` + strconv.Itoa(tt.agents) + `}}`)
					h.step()
					h.sync(n1)
				}
			}
			var reply api.SubmitReply
			if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", `{"name": "nb", "project": "a", "entrypoint": "x", "resources": {"slots": 1, "preemptible": false}}`, &reply); code != 201 {
				t.Fatalf("submit: %d", code)
			}
			h.step()
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(reply.ID, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if x.Pending == nil || x.Pending.Reason != "over_quota" {
				t.Fatalf("pending %+v, want over_quota", x.Pending)
			}
			checkSays(t, "summary", x.Summary, tt.says, tt.not)
			if never, quota := strings.Index(x.Summary, "can never run"), strings.Index(x.Summary, "In the last pass"); never >= 0 && never > quota {
				t.Errorf("summary %q: the quota reason leads, not that it can never run", x.Summary)
			}
		})
	}
}

// TestExplainOversubscribedQuotas (trial r R6): in a full quota pool whose
// quotas add up to more than its slots, a job within its project's quota
// that reclaim cannot serve (every other project is within its own) is
// told so, with what each holds and the quotas' sum; where a project is
// over its quota, which reclaim serves, nothing of it is said.
func TestExplainOversubscribedQuotas(t *testing.T) {
	tests := []struct {
		name   string
		quotaA int
		heldA  int
		says   []string
		not    []string
	}{
		{"quotas 8 on 4 slots", 4, 4,
			[]string{"Its project b is within its quota (holds 0 of 4), but reclaim frees nothing for it: no project holds more than its quota in pool default (a holds 4 of its 4)",
				"The quotas there add up to 8 slots, more than the pool's 4"},
			nil},
		// Quotas that fit the pool leave no project within its quota
		// waiting in a full pool with none over: no case to tell.
		{"a project over its quota: reclaim may take", 2, 4, nil, []string{"add up to"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := "pools:\n  - {name: default, policy: quota, preemption: true}\ndefault_project: a\nprojects:\n" +
				"  - {name: a, quota: " + strconv.Itoa(tt.quotaA) + "}\n  - {name: b, quota: 4}\n"
			h := newHarness(t, withConfig(mustConfig(t, cfg)))
			n1 := h.agent("n1", 4)
			h.submit(`{"name": "held", "project": "a", "entrypoint": "x", "resources": {"slots": ` + strconv.Itoa(tt.heldA) + `, "preemptible": true}}`)
			if tt.heldA < 4 {
				h.submit(`{"name": "fill", "project": "b", "entrypoint": "x", "resources": {"slots": ` + strconv.Itoa(4-tt.heldA) + `}}`)
			}
			h.step()
			h.sync(n1)
			id := h.submit(`{"name": "wants", "project": "b", "entrypoint": "x", "resources": {"slots": 2}}`)
			h.step()
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if x.Pending == nil {
				t.Fatalf("job wants is not pending: %+v", x)
			}
			checkSays(t, "summary", x.Summary, tt.says, tt.not)
		})
	}
}
